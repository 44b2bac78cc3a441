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
 * An RFC 6570 URI template, used to match URIs: simple ({@code {id}}), reserved ({@code {+path}}), fragment,
 * path segment ({@code {/seg}}), label ({@code {.ext}}), path parameter ({@code {;p}}) and query ({@code {?a,b}},
 * {@code {&c}}) expressions. A variable's value never holds the literal that follows it and is matched possessively;
 * adjacent variables and more than one reserved expression are refused, so matching does not backtrack. Immutable.
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
        boolean sawReserved = false;
        boolean previousWasVariable = false;
        while (m.find()) {
            String literal = template.substring(last, m.start());
            String op = m.group(1);
            String[] names = m.group(2).split(",");
            boolean queryOp = op.equals("?") || op.equals("&");
            if (sawQuery && !(queryOp && literal.isEmpty())) {
                throw new IllegalArgumentException("uri template: " + template + " (query expressions must come last)");
            }
            if (!queryOp && previousWasVariable && literal.isEmpty()) {
                throw new IllegalArgumentException("uri template: " + template
                        + " (adjacent variables cannot be told apart; put a literal between them)");
            }
            regex.append(Pattern.quote(literal));
            String stop = stopCharacter(template, m.end());
            switch (op) {
                case "?", "&" -> {
                    query.addAll(List.of(names));
                    if (!sawQuery) {
                        regex.append("(?:[?&](?<query>[^#]*+))?");
                    }
                    sawQuery = true;
                }
                case "+", "#" -> {
                    require(names, template);
                    if (sawReserved) {
                        throw new IllegalArgumentException("uri template: " + template
                                + " (at most one reserved {+var} or fragment {#var} expression)");
                    }
                    sawReserved = true;
                    path.add(names[0]);
                    regex.append(op.equals("#") ? "(?:#" : "").append("([^?#]*)").append(op.equals("#") ? ")?" : "");
                }
                case "/" -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append("(?:/(").append(charClass("/?#", stop)).append("*+))?");
                }
                case "." -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append("(?:\\.(").append(charClass("/?#.", stop)).append("*+))?");
                }
                case ";" -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append("(?:;").append(Pattern.quote(names[0])).append("(?:=(")
                            .append(charClass("/?#;", stop)).append("*+))?)?");
                }
                default -> {
                    require(names, template);
                    path.add(names[0]);
                    regex.append("(").append(charClass("/?#", stop)).append("*+)");
                }
            }
            previousWasVariable = true;
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

    /** The literal character that follows an expression, which its value cannot contain, or empty. */
    private static String stopCharacter(String template, int at) {
        return at < template.length() && template.charAt(at) != '{' ? String.valueOf(template.charAt(at)) : "";
    }

    /**
     * A negated character class: a value never holds the excluded characters nor the literal that ends it, so with a
     * possessive quantifier matching never backtracks into it.
     */
    private static String charClass(String excluded, String stop) {
        String chars = stop.isEmpty() || excluded.contains(stop) ? excluded : excluded + stop;
        StringBuilder cls = new StringBuilder("[^");
        for (char c : chars.toCharArray()) {
            if ("\\[]^-&".indexOf(c) >= 0) {
                cls.append('\\');
            }
            cls.append(c);
        }
        return cls.append(']').toString();
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
