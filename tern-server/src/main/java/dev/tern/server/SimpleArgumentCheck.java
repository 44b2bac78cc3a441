package dev.tern.server;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A fast check of tool arguments for the input schemas most tools have: an object of scalar properties (string,
 * integer, number, boolean, null), with {@code required}, {@code additionalProperties} as a boolean, {@code enum} of
 * strings, {@code minLength}/{@code maxLength} and integer {@code minimum}/{@code maximum}. It only ever says "valid"
 * when the schema certainly holds; whatever it does not accept goes to the full JSON Schema validator, which decides
 * and words the errors. A schema with any other keyword gets no fast check ({@link #compile} returns null).
 * Immutable, thread-safe.
 */
final class SimpleArgumentCheck {
    private static final int STRING = 1;
    private static final int INTEGER = 2;
    private static final int NUMBER = 4;
    private static final int BOOLEAN = 8;
    private static final int NULL = 16;
    /** Keywords with no bearing on validity (JSON Schema 2020-12 annotations). */
    private static final Set<String> ANNOTATIONS = Set.of("title", "description", "default", "examples", "$comment",
            "deprecated", "readOnly", "writeOnly");

    private final Map<String, Property> properties;
    private final String[] required;
    private final boolean closed;

    private SimpleArgumentCheck(Map<String, Property> properties, String[] required, boolean closed) {
        this.properties = properties;
        this.required = required;
        this.closed = closed;
    }

    private record Property(int types, Set<String> allowed, int minLength, int maxLength, Long minimum, Long maximum) {
    }

    /** The fast check for {@code schema}, or null when the schema uses anything it does not handle. */
    static SimpleArgumentCheck compile(ObjectNode schema) {
        if (schema == null) {
            return null;
        }
        Map<String, Property> properties = new HashMap<>();
        String[] required = new String[0];
        boolean closed = false;
        boolean isObject = false;
        for (Map.Entry<String, JsonNode> e : schema.properties()) {
            JsonNode value = e.getValue();
            switch (e.getKey()) {
                case "type" -> {
                    if (!value.isString() || !value.stringValue().equals("object")) {
                        return null;
                    }
                    isObject = true;
                }
                case "properties" -> {
                    if (!(value instanceof ObjectNode props)) {
                        return null;
                    }
                    for (Map.Entry<String, JsonNode> p : props.properties()) {
                        Property property = property(p.getValue());
                        if (property == null) {
                            return null;
                        }
                        properties.put(p.getKey(), property);
                    }
                }
                case "required" -> {
                    if (!value.isArray()) {
                        return null;
                    }
                    required = new String[value.size()];
                    for (int i = 0; i < value.size(); i++) {
                        if (!value.get(i).isString()) {
                            return null;
                        }
                        required[i] = value.get(i).stringValue();
                    }
                }
                case "additionalProperties" -> {
                    if (!value.isBoolean()) {
                        return null;
                    }
                    closed = !value.booleanValue();
                }
                case "$schema" -> {
                    if (!value.isString() || !value.stringValue().startsWith("https://json-schema.org/draft/2020-12/")) {
                        return null;
                    }
                }
                default -> {
                    if (!ANNOTATIONS.contains(e.getKey())) {
                        return null;
                    }
                }
            }
        }
        return isObject ? new SimpleArgumentCheck(Map.copyOf(properties), required, closed) : null;
    }

    private static Property property(JsonNode schema) {
        if (!(schema instanceof ObjectNode object)) {
            return null;
        }
        int types = 0;
        Set<String> allowed = null;
        int minLength = 0;
        int maxLength = Integer.MAX_VALUE;
        Long minimum = null;
        Long maximum = null;
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            JsonNode value = e.getValue();
            switch (e.getKey()) {
                case "type" -> {
                    if (value.isString()) {
                        types = type(value.stringValue());
                    } else if (value.isArray() && !value.isEmpty()) {
                        for (JsonNode t : value) {
                            int type = t.isString() ? type(t.stringValue()) : 0;
                            if (type == 0) {
                                return null;
                            }
                            types |= type;
                        }
                    }
                    if (types == 0) {
                        return null;
                    }
                }
                case "enum" -> {
                    if (!value.isArray()) {
                        return null;
                    }
                    allowed = new HashSet<>();
                    for (JsonNode v : value) {
                        if (!v.isString()) {
                            return null;
                        }
                        allowed.add(v.stringValue());
                    }
                }
                case "minLength", "maxLength" -> {
                    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0) {
                        return null;
                    }
                    if (e.getKey().equals("minLength")) {
                        minLength = value.intValue();
                    } else {
                        maxLength = value.intValue();
                    }
                }
                case "minimum", "maximum" -> {
                    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
                        return null;
                    }
                    if (e.getKey().equals("minimum")) {
                        minimum = value.longValue();
                    } else {
                        maximum = value.longValue();
                    }
                }
                default -> {
                    if (!ANNOTATIONS.contains(e.getKey())) {
                        return null;
                    }
                }
            }
        }
        if (types == 0) {
            return null;
        }
        return new Property(types, allowed == null ? null : Set.copyOf(allowed), minLength, maxLength, minimum, maximum);
    }

    private static int type(String name) {
        return switch (name) {
            case "string" -> STRING;
            case "integer" -> INTEGER;
            case "number" -> NUMBER;
            case "boolean" -> BOOLEAN;
            case "null" -> NULL;
            default -> 0;
        };
    }

    /** True only when {@code arguments} certainly satisfy the schema; false means "ask the full validator". */
    boolean accepts(JsonNode arguments) {
        if (!(arguments instanceof ObjectNode object)) {
            return false;
        }
        for (String name : required) {
            if (object.get(name) == null) {
                return false;
            }
        }
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            Property property = properties.get(e.getKey());
            if (property == null) {
                if (closed) {
                    return false;
                }
                continue;
            }
            if (!holds(property, e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static boolean holds(Property p, JsonNode value) {
        if (value.isString()) {
            if ((p.types & STRING) == 0) {
                return false;
            }
            String s = value.stringValue();
            // Lengths count code points; checking UTF-16 units against the maximum also holds for a validator
            // that counts those.
            return (p.allowed == null || p.allowed.contains(s)) && s.length() <= p.maxLength
                    && (p.minLength == 0 || s.codePointCount(0, s.length()) >= p.minLength);
        }
        if (p.allowed != null) {
            return false;
        }
        if (value.isIntegralNumber()) {
            if ((p.types & (INTEGER | NUMBER)) == 0 || !value.canConvertToLong()) {
                return false;
            }
            long n = value.longValue();
            return (p.minimum == null || n >= p.minimum) && (p.maximum == null || n <= p.maximum);
        }
        if (value.isNumber()) {
            return (p.types & NUMBER) != 0 && p.minimum == null && p.maximum == null;
        }
        if (value.isBoolean()) {
            return (p.types & BOOLEAN) != 0;
        }
        if (value.isNull()) {
            return (p.types & NULL) != 0;
        }
        return false;
    }
}
