package dev.tern.transport.http;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.JsonRpcResponse;
import dev.tern.protocol.RequestId;
import dev.tern.server.EventStore;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.ServerChannel;
import dev.tern.server.SessionStore;
import dev.tern.server.StoreUnavailableException;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A legacy (2025-11-25 and older) Streamable HTTP session: one server channel, a stream per request in flight (its
 * POST) and the standalone GET stream. Every SSE event is kept in the {@link EventStore} under an id naming its
 * stream, so a client that lost a stream can GET it again with {@code Last-Event-ID} and receive exactly what it
 * missed, then what follows. A disconnect is not a cancellation: messages for a request whose POST is gone are kept
 * for that resumption.
 */
final class Session implements Outbound {
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.http");
    private static final Duration RECONNECT = Duration.ofSeconds(1);
    /**
     * What the ids of standalone streams start with, so that a node that did not open one carries it on when the
     * client resumes it there (its node shut down), instead of replaying it and ending it as a request's stream.
     */
    private static final String STANDALONE = "g";

    final String id;
    /** What the server's observer is told of this session's life; set once it is initialized. */
    volatile dev.tern.server.observe.SessionObservation observation;
    /** Who opened the session ({@code null}: anonymous); only they may use it. */
    final String principal;
    /** The caller of the latest request, whose token may have gained scopes since the session opened. */
    private volatile dev.tern.server.Caller caller;
    /** The client whose share of the sessions this one takes ({@link ClientShares}). */
    final String client;
    private final JsonRpcCodec codec;
    private final EventStore events;
    /** Whether answers carry {@code Server-Timing}, for which handlers are timed. */
    private final boolean serverTiming;
    private final ServerChannel channel;
    private final SessionStore store;
    private final dev.tern.server.NotificationBus bus;
    private final Duration idleTimeout;
    /**
     * The thread whose request could not save the session's state because the store is down, until its failure
     * response goes out: as a 503 with Retry-After, like every other request that needs the store.
     */
    private volatile Thread storeFailedOn;
    /** The revision of the state this node holds, as the {@link SessionStore} numbered it. */
    volatile long revision;
    /** The touch of a shared store that this session's next requests join, until it is sent ({@link SessionManager}). */
    volatile SessionTouch touching;
    private static final AtomicLongFieldUpdater<Session> STREAMS_OPENED =
            AtomicLongFieldUpdater.newUpdater(Session.class, "streamsOpened");

    /**
     * The streams of the requests in flight, by request. Sized for the few a session has at once: an idle session
     * keeps whatever table its busiest moment grew, and there may be tens of thousands of idle sessions.
     */
    private final Map<RequestId, Stream> posts = new ConcurrentHashMap<>(2);
    private volatile long streamsOpened;
    private volatile Stream getStream;
    private volatile long lastAccessNanos = System.nanoTime();

    /**
     * One SSE stream and the exchange currently writing it, if any. Writers hold the stream's lock; an exchange whose
     * client went away detaches itself without it, since it calls in holding its own lock (taking the stream's too
     * would deadlock with a writer that holds the stream and writes to the exchange).
     */
    private static final class Stream {
        private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<Stream, HttpExchange> SINK =
                java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(Stream.class, HttpExchange.class, "sink");

        final String id;
        volatile HttpExchange sink;
        boolean done;

        Stream(String id, HttpExchange sink) {
            this.id = id;
            this.sink = sink;
        }

        void detach(HttpExchange exchange) {
            SINK.compareAndSet(this, exchange, null);
        }

        boolean live() {
            HttpExchange s = sink;
            return s != null && s.isOpen();
        }
    }

    Session(String id, String principal, String client, McpServer server, JsonRpcCodec codec, EventStore events,
            SessionStore store, Duration idleTimeout, boolean serverTiming) {
        this.store = store;
        this.idleTimeout = idleTimeout;
        this.serverTiming = serverTiming;
        this.principal = principal;
        this.client = client;
        this.id = id;
        this.codec = codec;
        this.events = events;
        this.bus = server.notificationBus();
        this.channel = server.connect(this);
    }

    ServerChannel channel() {
        return channel;
    }

    void touch() {
        lastAccessNanos = System.nanoTime();
    }

    long idleNanos() {
        return System.nanoTime() - lastAccessNanos;
    }

    /** Routes the messages of a request (or all requests of a batch) to the POST that carried it. */
    void register(RequestId requestId, HttpExchange exchange) {
        Stream stream = newStream(exchange);
        posts.put(requestId, stream);
        exchange.onClientGone(() -> stream.detach(exchange));
    }

    void unregister(RequestId requestId, HttpExchange exchange) {
        Stream stream = posts.get(requestId);
        if (stream != null && stream.sink == exchange) {
            posts.remove(requestId, stream);
        }
    }

    private Stream newStream(HttpExchange exchange) {
        return new Stream(events.streamId(STREAMS_OPENED.incrementAndGet(this)), exchange);
    }

    /**
     * The live stream {@code streamId} names: the standalone stream or that of a request in flight. Streams that
     * ended, and standalone streams a newer one replaced, are gone: their events can only be replayed.
     */
    private Stream liveStream(String streamId) {
        Stream get = getStream;
        if (get != null && get.id.equals(streamId)) {
            return get;
        }
        for (Stream post : posts.values()) {
            if (post.id.equals(streamId)) {
                return post;
            }
        }
        return null;
    }

    /**
     * A GET: resumes the stream {@code lastEventId} names (replaying what was missed), or opens the standalone stream.
     * Returns false when a standalone stream is open already.
     */
    boolean openStream(HttpExchange exchange, String lastEventId, Duration keepAlive) {
        Optional<EventStore.Replay> replay = lastEventId == null ? Optional.empty() : events.replayAfter(id, lastEventId);
        if (replay.isPresent()) {
            resume(exchange, replay.get(), lastEventId, keepAlive);
            return true;
        }
        synchronized (this) {
            Stream current = getStream;
            if (current != null && current.live()) {
                return false;
            }
            Stream stream = new Stream(STANDALONE + events.streamId(STREAMS_OPENED.incrementAndGet(this)), exchange);
            getStream = stream;
            exchange.onClientGone(() -> stream.detach(exchange));
            synchronized (stream) {
                exchange.startStream(primingId(stream), RECONNECT, keepAlive);
            }
            return true;
        }
    }

    private void resume(HttpExchange exchange, EventStore.Replay replay, String lastEventId, Duration keepAlive) {
        Stream stream = liveStream(replay.streamId());
        boolean adopted = false;
        if (stream == null && replay.streamId().startsWith(STANDALONE)) {
            synchronized (this) {
                if (getStream == null) {
                    stream = new Stream(replay.streamId(), null);
                    getStream = stream;
                    adopted = true;
                }
            }
        }
        Object lock = stream != null ? stream : this;
        synchronized (lock) {
            if (adopted) {
                // what was sent on it between the first read and its adoption here is in the store too
                replay = events.replayAfter(id, lastEventId).orElse(replay);
            }
            exchange.startStream(null, RECONNECT, keepAlive);
            for (EventStore.Event e : replay.events()) {
                exchange.event(e.message(), e.id(), false);
            }
            if (stream == null || stream.done) {
                exchange.end(null);
                return;
            }
            if (stream.sink != null && stream.sink != exchange) {
                stream.sink.end(null);
            }
            Stream resumed = stream;
            resumed.sink = exchange;
            exchange.onClientGone(() -> resumed.detach(exchange));
        }
    }

    /**
     * The client cancelled a request: the server sends nothing more for it, so its POST ends here without a
     * response instead of staying open (and counted in flight) until the client gives up.
     */
    void cancelled(RequestId requestId) {
        Stream stream = posts.remove(requestId);
        if (stream != null) {
            synchronized (stream) {
                stream.done = true;
                if (stream.sink != null) {
                    stream.sink.endWithoutResponse(null);
                }
            }
        }
    }

    boolean hasPost(RequestId requestId) {
        return posts.containsKey(requestId);
    }

    /** {@code receive} is called on the connection's event loop once the request's stream is registered. */
    void caller(dev.tern.server.Caller caller) {
        this.caller = caller;
    }

    @Override
    public dev.tern.server.Caller caller() {
        return caller;
    }

    @Override
    public boolean runsNonBlockingHandlersInline() {
        return true;
    }

    @Override
    public void sessionStateChanged() {
        if (store.shared()) {
            try {
                revision = store.save(id, principal, channel.legacyState(), idleTimeout);
            } catch (StoreUnavailableException e) {
                storeFailedOn = Thread.currentThread();
                throw e;
            }
            bus.publish(new dev.tern.server.NotificationBus.SessionChanged(id));
        }
    }

    @Override
    public void storeUnavailable(RequestId request) {
        storeFailedOn = Thread.currentThread();
    }

    @Override
    public boolean timesHandlers() {
        return serverTiming;
    }

    @Override
    public dev.tern.server.observe.RequestObservation observation(RequestId request) {
        // Notifications and unreadable batch members are observed by the endpoint, which knows their POST.
        Stream stream = request == null ? null : posts.get(request);
        var o = stream == null || stream.sink == null ? null : stream.sink.takeObservation();
        return o == null ? null : o.session(id);
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public String sessionId() {
        return id;
    }

    @Override
    public void served(RequestId request, long handlerStartedNanos, long handlerEndedNanos) {
        Stream stream = posts.get(request);
        HttpExchange sink = stream == null ? null : stream.sink;
        ServerTiming timing = sink == null ? null : sink.timing();
        if (timing != null) {
            timing.handler(handlerStartedNanos, handlerEndedNanos);
        }
    }

    @Override
    public void send(JsonRpcMessage message, RequestId relatedTo) {
        Stream stream = relatedTo == null ? null : posts.get(relatedTo);
        boolean last = stream != null && message instanceof JsonRpcResponse r && relatedTo.equals(r.id());
        if (stream == null) {
            if (message instanceof JsonRpcResponse) {
                LOG.log(System.Logger.Level.DEBUG, "Response to {0} dropped: its request is gone", relatedTo);
                return;
            }
            stream = getStream;
            if (stream == null) {
                return;
            }
        }
        synchronized (stream) {
            if (last) {
                // forgotten before the client can read the answer, so that it may reuse the id at once
                stream.done = true;
                posts.remove(relatedTo, stream);
            }
            HttpExchange sink = stream.sink;
            boolean open = sink != null && sink.isOpen();
            if (last && open && !sink.streaming() && message instanceof dev.tern.protocol.JsonRpcFailure
                    && storeFailedOn == Thread.currentThread()) {
                storeFailedOn = null;
                McpEndpoint.storeUnavailable(sink, codec, relatedTo);
            } else if (last && open && !sink.streaming()) {
                sink.json(HttpResponseStatus.OK, sink.encode(codec, message));
            } else {
                byte[] json = codec.encode(message);
                if (open && !sink.streaming()) {
                    sink.startStream(primingId(stream), RECONNECT, null);
                }
                String eventId = append(stream, json);
                if (open) {
                    sink.event(json, eventId, last);
                }
            }
        }
    }

    /**
     * The stream's priming id, or none when a shared event store cannot answer: the stream is then served live, only
     * not resumable.
     */
    private String primingId(Stream stream) {
        try {
            return events.primingId(id, stream.id);
        } catch (StoreUnavailableException e) {
            return null;
        }
    }

    /** Stores an event and returns its id; none when a shared event store cannot answer, so the client still gets it. */
    private String append(Stream stream, byte[] json) {
        try {
            return events.append(id, stream.id, json);
        } catch (StoreUnavailableException e) {
            LOG.log(System.Logger.Level.DEBUG, "An event of session stream {0} was sent without an id: {1}", stream.id,
                    e.getMessage());
            return null;
        }
    }

    @Override
    public void sendBatch(List<? extends JsonRpcMessage> responses) {
        Stream first = null;
        for (JsonRpcMessage m : responses) {
            if (m instanceof JsonRpcResponse r && r.id() != null) {
                Stream s = posts.remove(r.id());
                if (s != null && first == null) {
                    first = s;
                }
            }
        }
        if (first != null) {
            synchronized (first) {
                first.done = true;
                if (first.sink != null) {
                    first.sink.json(HttpResponseStatus.OK, codec.encodeBatch(responses));
                }
            }
        }
    }

    void close(Duration retry) {
        channel.close();
        Stream get = getStream;
        if (get != null) {
            synchronized (get) {
                if (get.sink != null) {
                    get.sink.end(retry);
                }
            }
        }
        for (Stream post : posts.values()) {
            synchronized (post) {
                post.done = true;
                if (post.sink != null) {
                    post.sink.endWithoutResponse(retry);
                }
            }
        }
        posts.clear();
    }
}
