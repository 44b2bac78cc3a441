package dev.tern.server;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.tern.protocol.model.Icon;

import org.jspecify.annotations.Nullable;

/** What every feature builder sets: a display title, a description, icons, {@code _meta} and the non-blocking promise. */
abstract class FeatureBuilder<B extends FeatureBuilder<B>> {
    String title;
    String description;
    List<Icon> icons;
    Map<String, Object> meta;
    boolean nonBlocking;
    CachePolicy cache;
    Set<String> scopes = Set.of();

    abstract B self();

    /** A human-readable name for display. */
    public B title(@Nullable String title) {
        this.title = title;
        return self();
    }

    /** What it is for; models read this to decide when to use it. */
    public B description(@Nullable String description) {
        this.description = description;
        return self();
    }

    public B icons(Icon... icons) {
        this.icons = List.of(icons);
        return self();
    }

    /**
     * Promises that the handler never blocks and returns within microseconds (an in-memory lookup, a computation): no
     * I/O, no locks held by slow code, no waiting for the client. A transport may then run it on the thread that read
     * the request instead of a virtual thread of its own, which saves the hand-off between threads: on stdio, half of
     * the server's CPU per call at a moderate rate. Such a call has no handler timeout and is not interrupted by a
     * cancellation (it is over before the next message is read), and in a legacy session it cannot ask the client
     * anything ({@link RequestContext#elicit}, {@code sample}, {@code roots}, {@code ask} throw
     * {@link IllegalStateException}); in the 2026-07-28 era those end the attempt with {@code input_required} as
     * usual. A handler that blocks after all holds up every request read by that thread. Default {@code false}.
     */
    public B nonBlocking(boolean nonBlocking) {
        this.nonBlocking = nonBlocking;
        return self();
    }

    /**
     * Keeps successful results for {@code ttl}, shared by every caller ({@link CacheScope#PUBLIC}) or per principal
     * ({@link CacheScope#PRIVATE}): see {@link CachePolicy}. Default: not cached.
     */
    public B cache(Duration ttl, CacheScope scope) {
        return cache(new CachePolicy(ttl, scope));
    }

    /** As {@link #cache(Duration, CacheScope)}; {@code null}: not cached. */
    public B cache(@Nullable CachePolicy policy) {
        this.cache = policy;
        return self();
    }

    /**
     * The OAuth scopes a caller's token must grant to use it, on top of those every request needs; a call without
     * them is refused (over HTTP, 403 {@code insufficient_scope} naming them). None by default.
     */
    public B scopes(String... scopes) {
        this.scopes = Scopes.of(scopes);
        return self();
    }

    /** Extra {@code _meta} sent with the listing. */
    public B meta(@Nullable Map<String, Object> meta) {
        this.meta = meta;
        return self();
    }
}
