package dev.tern.server;

import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generates JSON Schema (2020-12) from Java types: primitives and boxes, strings, enums, optionals, collections,
 * arrays, maps with string keys, records (nested too) and Jackson trees. A record's components are required unless
 * they are {@link Optional} or carry {@link Arg} with {@code required = false} or a default.
 */
final class SchemaGenerator {

    /** A named input of a tool or prompt method. */
    record Property(String name, Type type, String description, boolean required, String defaultValue) {
    }

    private SchemaGenerator() {
    }

    static ObjectNode emptyObjectSchema() {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("additionalProperties", false);
        return schema;
    }

    static ObjectNode inputSchema(Type type) {
        return inputSchema(Json.mapper(), type);
    }

    /** The schema of a tool's arguments bound to {@code type} by {@code mapper}. */
    static ObjectNode inputSchema(JsonMapper mapper, Type type) {
        ObjectNode schema = schema(mapper, type, new HashSet<>(), false);
        if (!"object".equals(schema.path("type").asString(""))) {
            throw new IllegalArgumentException("tool arguments must be an object type (a record or a map), was " + type.getTypeName());
        }
        return schema;
    }

    /**
     * The schema of what a tool returns. Null fields are left out of results, so only components that cannot be
     * null (primitives) are required.
     */
    static ObjectNode outputSchema(Type type) {
        return outputSchema(Json.mapper(), type);
    }

    static ObjectNode outputSchema(JsonMapper mapper, Type type) {
        ObjectNode schema = schema(mapper, type, new HashSet<>(), true);
        if (!"object".equals(schema.path("type").asString(""))) {
            throw new IllegalArgumentException("tool output must be an object type (a record or a map), was " + type.getTypeName());
        }
        return schema;
    }

    static ObjectNode objectSchema(List<Property> properties) {
        return objectSchema(Json.mapper(), properties);
    }

    static ObjectNode objectSchema(JsonMapper mapper, List<Property> properties) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        ObjectNode props = schema.putObject("properties");
        ArrayNode required = Json.mapper().createArrayNode();
        for (Property p : properties) {
            ObjectNode ps = schema(mapper, p.type(), new HashSet<>(), false);
            describe(ps, p.description(), p.defaultValue());
            props.set(p.name(), ps);
            if (p.required() && p.defaultValue() == null && !isOptional(p.type())) {
                required.add(p.name());
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    /** The {@code default} of each top-level property that has one. */
    static ObjectNode defaults(ObjectNode schema) {
        ObjectNode defaults = Json.object();
        JsonNode props = schema.path("properties");
        for (Map.Entry<String, JsonNode> e : props.properties()) {
            JsonNode d = e.getValue().get("default");
            if (d != null) {
                defaults.set(e.getKey(), d);
            }
        }
        return defaults;
    }

    static boolean isOptional(Type type) {
        Class<?> raw = raw(type);
        return raw == Optional.class || raw == OptionalInt.class || raw == OptionalLong.class || raw == OptionalDouble.class;
    }

    static ObjectNode schema(Type type, Set<Type> inProgress, boolean output) {
        return schema(Json.mapper(), type, inProgress, output);
    }

    /** {@code mapper} decides the names of record components and the values of enum constants, as it binds them. */
    static ObjectNode schema(JsonMapper mapper, Type type, Set<Type> inProgress, boolean output) {
        ObjectNode s = Json.object();
        Class<?> raw = raw(type);
        if (raw == String.class || raw == char.class || raw == Character.class || raw == CharSequence.class
                || raw == UUID.class) {
            s.put("type", "string");
        } else if (raw == URI.class) {
            s.put("type", "string");
            s.put("format", "uri");
        } else if (raw == Instant.class || raw == OffsetDateTime.class || raw == LocalDateTime.class) {
            s.put("type", "string");
            s.put("format", "date-time");
        } else if (raw == LocalDate.class) {
            s.put("type", "string");
            s.put("format", "date");
        } else if (raw == boolean.class || raw == Boolean.class) {
            s.put("type", "boolean");
        } else if (raw == int.class || raw == Integer.class || raw == OptionalInt.class) {
            s.put("type", "integer");
            s.put("minimum", Integer.MIN_VALUE);
            s.put("maximum", Integer.MAX_VALUE);
        } else if (raw == short.class || raw == Short.class) {
            s.put("type", "integer");
            s.put("minimum", Short.MIN_VALUE);
            s.put("maximum", Short.MAX_VALUE);
        } else if (raw == byte.class || raw == Byte.class) {
            s.put("type", "integer");
            s.put("minimum", Byte.MIN_VALUE);
            s.put("maximum", Byte.MAX_VALUE);
        } else if (raw == long.class || raw == Long.class || raw == OptionalLong.class || raw == BigInteger.class) {
            s.put("type", "integer");
        } else if (raw == double.class || raw == Double.class || raw == float.class || raw == Float.class
                || raw == BigDecimal.class || raw == OptionalDouble.class || raw == Number.class) {
            s.put("type", "number");
        } else if (raw.isEnum()) {
            s.put("type", "string");
            ArrayNode values = s.putArray("enum");
            for (Object constant : raw.getEnumConstants()) {
                values.add(mapper.valueToTree(constant).asString(((Enum<?>) constant).name()));
            }
        } else if (raw == Optional.class) {
            return schema(mapper, typeArgument(type, 0), inProgress, output);
        } else if (raw.isArray() || type instanceof GenericArrayType) {
            if (raw == byte[].class) {
                s.put("type", "string");
                s.put("contentEncoding", "base64");
            } else {
                s.put("type", "array");
                s.set("items", schema(mapper, componentType(type), inProgress, output));
            }
        } else if (Collection.class.isAssignableFrom(raw)) {
            s.put("type", "array");
            s.set("items", schema(mapper, typeArgument(type, 0), inProgress, output));
            if (Set.class.isAssignableFrom(raw)) {
                s.put("uniqueItems", true);
            }
        } else if (Map.class.isAssignableFrom(raw)) {
            s.put("type", "object");
            Type valueType = typeArgument(type, 1);
            if (raw(valueType) != Object.class) {
                s.set("additionalProperties", schema(mapper, valueType, inProgress, output));
            }
        } else if (raw.isRecord()) {
            if (!inProgress.add(raw)) {
                s.put("type", "object");
                return s;
            }
            s.put("type", "object");
            ObjectNode props = s.putObject("properties");
            ArrayNode required = Json.mapper().createArrayNode();
            Map<String, String> names = propertyNames(mapper, raw);
            for (RecordComponent c : raw.getRecordComponents()) {
                Arg arg = c.getAnnotation(Arg.class);
                String name = names.getOrDefault(c.getName(), c.getName());
                ObjectNode cs = schema(mapper, c.getGenericType(), inProgress, output);
                String defaultValue = arg == null || arg.defaultValue().isEmpty() ? null : arg.defaultValue();
                describe(cs, arg == null ? null : arg.description(), defaultValue);
                props.set(name, cs);
                boolean optional = isOptional(c.getGenericType()) || (arg != null && !arg.required()) || defaultValue != null
                        || (output && !c.getType().isPrimitive());
                if (!optional) {
                    required.add(name);
                }
            }
            if (!required.isEmpty()) {
                s.set("required", required);
            }
            s.put("additionalProperties", false);
            inProgress.remove(raw);
        } else if (JsonNode.class.isAssignableFrom(raw)) {
            if (ObjectNode.class.isAssignableFrom(raw)) {
                s.put("type", "object");
            } else if (ArrayNode.class.isAssignableFrom(raw)) {
                s.put("type", "array");
            }
        } else if (raw != Object.class) {
            s.put("type", "object");
        }
        return s;
    }

    /** The JSON name {@code mapper} gives each property of {@code type}, by its name in Java. */
    private static Map<String, String> propertyNames(JsonMapper mapper, Class<?> type) {
        Map<String, String> names = new HashMap<>();
        for (BeanPropertyDefinition p : mapper._serializationContext()
                .introspectBeanDescription(mapper.constructType(type)).findProperties()) {
            names.put(p.getInternalName(), p.getName());
        }
        return names;
    }

    private static void describe(ObjectNode schema, String description, String defaultValue) {
        if (description != null && !description.isEmpty()) {
            schema.put("description", description);
        }
        if (defaultValue != null) {
            schema.set("default", parseDefault(defaultValue, schema.path("type").asString("")));
        }
    }

    private static JsonNode parseDefault(String value, String type) {
        if (!"string".equals(type)) {
            try {
                return Json.mapper().readTree(value);
            } catch (RuntimeException notJson) {
                // fall through: a bare string
            }
        }
        return Json.mapper().getNodeFactory().stringNode(value);
    }

    static Class<?> raw(Type type) {
        return switch (type) {
            case Class<?> c -> c;
            case ParameterizedType p -> (Class<?>) p.getRawType();
            case GenericArrayType g -> Array.newInstance(raw(g.getGenericComponentType()), 0).getClass();
            case WildcardType w -> raw(w.getUpperBounds()[0]);
            default -> Object.class;
        };
    }

    private static Type typeArgument(Type type, int index) {
        if (type instanceof ParameterizedType p && p.getActualTypeArguments().length > index) {
            return p.getActualTypeArguments()[index];
        }
        return Object.class;
    }

    private static Type componentType(Type type) {
        if (type instanceof GenericArrayType g) {
            return g.getGenericComponentType();
        }
        return raw(type).getComponentType();
    }
}
