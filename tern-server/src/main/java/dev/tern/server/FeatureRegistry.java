package dev.tern.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import dev.tern.protocol.Json;

import tools.jackson.databind.json.JsonMapper;

/**
 * The server's tools, resources, templates and prompts. Reads are lock-free over immutable snapshots; writes
 * replace the snapshot and report which list changed. Thread-safe.
 */
final class FeatureRegistry {

    enum Kind {
        TOOLS("notifications/tools/list_changed"),
        RESOURCES("notifications/resources/list_changed"),
        PROMPTS("notifications/prompts/list_changed");

        final String notification;

        Kind(String notification) {
            this.notification = notification;
        }

        /** The list's name between nodes: {@code tools}, {@code resources}, {@code prompts}. */
        String list() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The kind {@link #list} names, or null for a name this node does not know. */
        static @org.jspecify.annotations.Nullable Kind of(String list) {
            for (Kind k : values()) {
                if (k.list().equals(list)) {
                    return k;
                }
            }
            return null;
        }
    }

    private static final class Table<K, V> {
        // A HashMap of its own, never handed out: looked up on every call, a call site that only ever sees HashMap.
        private volatile HashMap<K, V> byKey = new HashMap<>();
        private volatile List<V> ordered = List.of();
        private final Function<V, K> key;

        Table(Function<V, K> key) {
            this.key = key;
        }

        synchronized boolean put(V value) {
            LinkedHashMap<K, V> copy = inOrder();
            copy.put(key.apply(value), value);
            publish(copy);
            return true;
        }

        synchronized void replaceAll(UnaryOperator<V> replacement) {
            LinkedHashMap<K, V> copy = new LinkedHashMap<>();
            for (V v : ordered) {
                V replaced = replacement.apply(v);
                copy.put(key.apply(replaced), replaced);
            }
            publish(copy);
        }

        synchronized boolean remove(K k) {
            if (!byKey.containsKey(k)) {
                return false;
            }
            LinkedHashMap<K, V> copy = inOrder();
            copy.remove(k);
            publish(copy);
            return true;
        }

        private LinkedHashMap<K, V> inOrder() {
            LinkedHashMap<K, V> copy = new LinkedHashMap<>();
            for (V v : ordered) {
                copy.put(key.apply(v), v);
            }
            return copy;
        }

        private void publish(LinkedHashMap<K, V> copy) {
            ordered = List.copyOf(copy.values());
            byKey = new HashMap<>(copy);
        }

        V get(K k) {
            return byKey.get(k);
        }

        List<V> all() {
            return ordered;
        }
    }

    private final Table<String, ToolSpec> tools = new Table<>(ToolSpec::name);
    private final Table<String, ResourceSpec> resources = new Table<>(ResourceSpec::uri);
    private final Table<String, ResourceTemplateSpec> templates = new Table<>(t -> t.template().uriTemplate());
    private final Table<String, PromptSpec> prompts = new Table<>(PromptSpec::name);

    /** The mapper the features' schemas, argument binding and results are made with. */
    private volatile JsonMapper mapper = Json.mapper();

    /** Makes every feature, those added already and those to come, with {@code mapper}. */
    void mapper(JsonMapper mapper) {
        this.mapper = mapper;
        tools.replaceAll(t -> t.bind(mapper));
        resources.replaceAll(r -> r.bind(mapper));
        templates.replaceAll(t -> t.bind(mapper));
    }

    void add(ToolSpec tool) {
        tools.put(tool.bind(mapper));
    }

    void add(ResourceSpec resource) {
        resources.put(resource.bind(mapper));
    }

    void add(ResourceTemplateSpec template) {
        templates.put(template.bind(mapper));
    }

    void add(PromptSpec prompt) {
        prompts.put(prompt);
    }

    boolean removeTool(String name) {
        return tools.remove(name);
    }

    boolean removeResource(String uri) {
        return resources.remove(uri) || templates.remove(uri);
    }

    boolean removePrompt(String name) {
        return prompts.remove(name);
    }

    ToolSpec tool(String name) {
        return tools.get(name);
    }

    List<ToolSpec> tools() {
        return tools.all();
    }

    ResourceSpec resource(String uri) {
        return resources.get(uri);
    }

    List<ResourceSpec> resources() {
        return resources.all();
    }

    List<ResourceTemplateSpec> templates() {
        return templates.all();
    }

    ResourceTemplateSpec template(String uriTemplate) {
        return templates.get(uriTemplate);
    }

    PromptSpec prompt(String name) {
        return prompts.get(name);
    }

    List<PromptSpec> prompts() {
        return prompts.all();
    }

    /** A resource read target: a static resource, or the first template that matches, with its variables. */
    record Match(ResourceHandler handler, Map<String, String> variables, boolean nonBlocking, CachePolicy cache) {
    }

    Optional<Match> findResource(String uri) {
        ResourceSpec fixed = resources.get(uri);
        if (fixed != null) {
            return Optional.of(new Match(fixed.handler(), Map.of(), fixed.nonBlocking(), fixed.cache()));
        }
        for (ResourceTemplateSpec t : templates.all()) {
            Optional<Map<String, String>> vars = t.uriTemplate().match(uri);
            if (vars.isPresent()) {
                return Optional.of(new Match(t.handler(), vars.get(), t.nonBlocking(), t.cache()));
            }
        }
        return Optional.empty();
    }

    static <T> List<T> copy(List<T> list) {
        return new ArrayList<>(list);
    }
}
