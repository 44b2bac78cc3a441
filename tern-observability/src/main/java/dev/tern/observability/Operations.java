package dev.tern.observability;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import dev.tern.server.observe.Transport;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;

/**
 * Span names and attribute sets per method and target, built once and then shared by every request to them. Targets
 * come from clients, so each method keeps at most {@link #MAX_TARGETS}; past that, a target's names are built per call
 * and its metrics are recorded under {@code _OTHER} so a client cannot grow the metric series without bound.
 */
final class Operations {
    static final int MAX_TARGETS = 1_000;
    static final String OTHER = "_OTHER";

    private final ConcurrentHashMap<String, Method> methods = new ConcurrentHashMap<>();

    Operation of(String method, String target) {
        Method m = methods.get(method);
        if (m == null) {
            if (methods.size() >= MAX_TARGETS) {
                return new Operation(method, target, target);
            }
            m = methods.computeIfAbsent(method, Method::new);
        }
        return m.target(target);
    }

    private static final class Method {
        final String name;
        final Operation untargeted;
        final ConcurrentHashMap<String, Operation> targets = new ConcurrentHashMap<>();

        Method(String name) {
            this.name = name;
            this.untargeted = new Operation(name, null, null);
        }

        Operation target(String target) {
            if (target == null) {
                return untargeted;
            }
            Operation o = targets.get(target);
            if (o != null) {
                return o;
            }
            if (targets.size() >= MAX_TARGETS) {
                return new Operation(name, target, OTHER);
            }
            return targets.computeIfAbsent(target, t -> new Operation(name, t, t));
        }
    }

    /** One method and target: its span name, its span's first attributes, and its metric attributes per transport. */
    static final class Operation {
        final String method;
        final String target;
        final String spanName;
        final Attributes spanAttributes;
        private final Attributes metricBase;
        private final AtomicReferenceArray<Attributes> metric =
                new AtomicReferenceArray<>(Transport.values().length * (McpAttributes.KNOWN_VERSIONS.size() + 1));

        Operation(String method, String target, String metricTarget) {
            this.method = method;
            this.target = target;
            this.spanName = target == null ? method : method + " " + target;
            this.spanAttributes = named(Attributes.builder(), method, target).build();
            this.metricBase = named(Attributes.builder(), method, metricTarget).build();
        }

        private static AttributesBuilder named(AttributesBuilder b, String method, String target) {
            b.put(McpAttributes.METHOD, method);
            if (McpAttributes.TOOLS_CALL.equals(method)) {
                b.put(McpAttributes.OPERATION_NAME, McpAttributes.EXECUTE_TOOL);
                if (target != null) {
                    b.put(McpAttributes.TOOL_NAME, target);
                }
            } else if (McpAttributes.PROMPTS_GET.equals(method) && target != null) {
                b.put(McpAttributes.PROMPT_NAME, target);
            }
            return b;
        }

        /** The attributes of a successful call's duration. */
        Attributes metric(Transport transport, String protocolVersion) {
            int v = McpAttributes.versionIndex(protocolVersion);
            if (v < 0 && protocolVersion != null) {
                return build(transport, protocolVersion);
            }
            int slot = transport.ordinal() * (McpAttributes.KNOWN_VERSIONS.size() + 1) + v + 1;
            Attributes a = metric.get(slot);
            if (a == null) {
                a = build(transport, protocolVersion);
                metric.set(slot, a);
            }
            return a;
        }

        /** The attributes of a failed call's duration, built per call since failures are the rarer case. */
        Attributes metric(Transport transport, String protocolVersion, String errorType, String statusCode) {
            AttributesBuilder b = metric(transport, protocolVersion).toBuilder().put(McpAttributes.ERROR_TYPE, errorType);
            if (statusCode != null) {
                b.put(McpAttributes.STATUS_CODE, statusCode);
            }
            return b.build();
        }

        private Attributes build(Transport transport, String protocolVersion) {
            AttributesBuilder b = network(metricBase.toBuilder(), transport);
            if (protocolVersion != null) {
                b.put(McpAttributes.PROTOCOL_VERSION, protocolVersion);
            }
            return b.build();
        }
    }

    static AttributesBuilder network(AttributesBuilder b, Transport transport) {
        b.put(McpAttributes.NETWORK_TRANSPORT, transport.networkTransport());
        if (transport.protocolName() != null) {
            b.put(McpAttributes.NETWORK_PROTOCOL_NAME, transport.protocolName());
            b.put(McpAttributes.NETWORK_PROTOCOL_VERSION, transport.protocolVersion());
        }
        return b;
    }
}
