package dev.tern.transport.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.netty.handler.codec.http.QueryStringDecoder;

/**
 * A route's path, such as {@code /users/{id}}: literal segments and {@code {name}} variables, each variable standing
 * for one whole, non-empty segment (percent-decoded when matched). Immutable.
 */
final class PathTemplate {
    private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9._~!$&'()*+,;=:@-]+");
    private static final Pattern VARIABLE = Pattern.compile("\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private final String template;
    /** Per segment: the literal text, or {@code null} for a variable. */
    private final String[] literals;
    private final String[] variables;

    private PathTemplate(String template, String[] literals, String[] variables) {
        this.template = template;
        this.literals = literals;
        this.variables = variables;
    }

    static PathTemplate parse(String template) {
        if (!template.startsWith("/") || template.length() < 2 || template.endsWith("/") || template.contains("//")) {
            throw new IllegalArgumentException("path: " + template + " (expected: /segment/{variable}/..., no empty segments)");
        }
        String[] segments = template.substring(1).split("/");
        String[] literals = new String[segments.length];
        String[] variables = new String[segments.length];
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < segments.length; i++) {
            var variable = VARIABLE.matcher(segments[i]);
            if (variable.matches()) {
                String name = variable.group(1);
                if (seen.contains(name)) {
                    throw new IllegalArgumentException("path: " + template + " (variable {" + name + "} appears twice)");
                }
                seen.add(name);
                variables[i] = name;
            } else if (LITERAL.matcher(segments[i]).matches()) {
                literals[i] = segments[i];
            } else {
                throw new IllegalArgumentException("path: " + template + " (segment \"" + segments[i]
                        + "\" is neither a literal nor a whole {variable})");
            }
        }
        return new PathTemplate(template, literals, variables);
    }

    /** The template as written. */
    String template() {
        return template;
    }

    /** The variable names, in order. */
    List<String> variableNames() {
        List<String> names = new ArrayList<>();
        for (String v : variables) {
            if (v != null) {
                names.add(v);
            }
        }
        return names;
    }

    boolean hasVariables() {
        for (String v : variables) {
            if (v != null) {
                return true;
            }
        }
        return false;
    }

    /** The variables of a raw (still percent-encoded) request path, or {@code null} when it does not match. */
    Map<String, String> match(String path) {
        if (path.isEmpty() || path.charAt(0) != '/') {
            return null;
        }
        Map<String, String> values = null;
        int start = 1;
        for (int i = 0; i < literals.length; i++) {
            if (start > path.length()) {
                return null;
            }
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            if (end == start || (i == literals.length - 1) != (end == path.length())) {
                return null;
            }
            if (literals[i] != null) {
                if (!path.regionMatches(start, literals[i], 0, literals[i].length()) || end - start != literals[i].length()) {
                    return null;
                }
            } else {
                String value;
                try {
                    // in a path '+' is itself, not a space
                    value = QueryStringDecoder.decodeComponent(path.substring(start, end).replace("+", "%2B"));
                } catch (IllegalArgumentException malformed) {
                    return null;
                }
                if (values == null) {
                    values = new LinkedHashMap<>(4);
                }
                values.put(variables[i], value);
            }
            start = end + 1;
        }
        return values == null ? Map.of() : values;
    }

    @Override
    public String toString() {
        return template;
    }
}
