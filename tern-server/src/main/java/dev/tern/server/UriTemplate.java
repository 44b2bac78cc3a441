package dev.tern.server;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An RFC 6570 URI template, used to match URIs: simple ({@code {id}}), reserved ({@code {+path}}), path segment
 * ({@code {/seg}}) and query ({@code {?a,b}}, {@code {&c}}) expressions. The match is a regular expression without
 * nested quantifiers, so it runs in linear time. Immutable.
 */
public final class UriTemplate {
    private static final Pattern EXPRESSION = Pattern.compile("\\{([+#/?&.;]?)([A-Za-z0-9_.,%]+)}");
    private static final int MAX_URI_LENGTH = 8192;

    private final String template;
    private final Pattern pattern;
    private final List<String> pathVariables;
    private final List<String> queryVariables;
    private final List<String> variables;

    private UriTemplate(String template) {
        this.template = template;
        StringBuilder regex = new StringBuilder("^");
        List<String> path = new ArrayList<>();
        List<String> query = new ArrayList<>();
        Matcher m = EXPRESSION.matcher(template);
        int last = 0;
        boolean sawQuery = false;
        while (m.find()) {
            if (sawQuery) {
                throw new IllegalArgumentException("uri template: " + template + " (query expressions must come last)");
            }
            regex.append(Pattern.quote(template.substring(last, m.start())));
            String op = m.group(1);
            String[] names = m.group(2).split(",");
            switch (op) {
                case "?", "&" -> {
                    query.addAll(List.of(names));
                    regex.append("(?:[?&](?<query>[^#]*))?");
                    sawQuery = true;
                }
                case "+", "#" -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append(op.equals("#") ? "(?:#" : "").append("([^?#]*)").append(op.equals("#") ? ")?" : "");
                }
                case "/" -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append("(?:/([^/?#]*))?");
                }
                case "." -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append("(?:\\.([^/?#.]*))?");
                }
                default -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append("([^/?#]*)");
                }
            }
            last = m.end();
        }
        regex.append(Pattern.quote(template.substring(last))).append('$');
        this.pattern = Pattern.compile(regex.toString());
        this.pathVariables = List.copyOf(path);
        this.queryVariables = List.copyOf(query);
        List<String> all = new ArrayList<>(path);
        all.addAll(query);
        this.variables = List.copyOf(all);
    }

    private static void require(String[] names, String template) {
        if (names.length != 1) {
            throw new IllegalArgumentException("uri template: " + template + " (one variable per path expression)");
        }
    }

    public static UriTemplate of(String template) {
        return new UriTemplate(Objects.requireNonNull(template, "template"));
    }

    public static boolean isTemplate(String uri) {
        return EXPRESSION.matcher(uri).find();
    }

    public String template() {
        return template;
    }

    public List<String> variables() {
        return variables;
    }

    /** The variables of {@code uri} if it matches this template. */
    public Optional<Map<String, String>> match(String uri) {
        if (uri.length() > MAX_URI_LENGTH) {
            return Optional.empty();
        }
        Matcher m = pattern.matcher(uri);
        if (!m.matches()) {
            return Optional.empty();
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < pathVariables.size(); i++) {
            String v = m.group(i + 1);
            if (v != null) {
                values.put(pathVariables.get(i), decode(v));
            }
        }
        if (!queryVariables.isEmpty()) {
            String q = m.group("query");
            if (q != null && !q.isEmpty()) {
                for (String pair : q.split("&")) {
                    int eq = pair.indexOf('=');
                    String name = eq < 0 ? pair : pair.substring(0, eq);
                    if (queryVariables.contains(name)) {
                        values.put(name, eq < 0 ? "" : decode(pair.substring(eq + 1)));
                    }
                }
            }
        }
        return Optional.of(values);
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return s;
        }
    }

    @Override
    public String toString() {
        return template;
    }
}
