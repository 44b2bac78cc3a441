package dev.tern.examples;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/** An in-memory directory of users, deterministic for a given size. Immutable and thread-safe. */
public final class UserDirectory {
    private static final String[] FIRST = {"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken",
        "Leslie", "Margaret", "Niklaus", "Radia", "Tony", "Whitfield", "Yukihiro", "Guido", "James", "Anders", "Bjarne", "Hedy"};
    private static final String[] LAST = {"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen",
        "Thompson", "Lamport", "Hamilton", "Wirth", "Perlman", "Hoare", "Diffie", "Matsumoto", "Rossum", "Gosling",
        "Hejlsberg", "Stroustrup", "Lamarr"};
    private static final String[] CITIES = {"Lisbon", "Oslo", "Nairobi", "Montreal", "Osaka", "Valparaiso", "Tallinn",
        "Auckland", "Reykjavik", "Kraków"};
    private static final String[] COUNTRIES = {"PT", "NO", "KE", "CA", "JP", "CL", "EE", "NZ", "IS", "PL"};
    private static final String[] TITLES = {"Engineer", "Staff Engineer", "Designer", "Product Manager", "SRE",
        "Data Scientist", "Engineering Manager", "Researcher"};
    private static final String[] DEPARTMENTS = {"Platform", "Payments", "Search", "Growth", "Infrastructure", "Mobile"};

    /** A user record, about 330 bytes as JSON. */
    public record User(String id, String username, String name, String email, String phone, String title,
            String department, Address address, List<String> roles, boolean active, String createdAt) {
    }

    public record Address(String street, String city, String postalCode, String country) {
    }

    /** Look-ups by id hash the id; completions walk the ids in order. */
    private final Map<String, User> byId;
    private final NavigableMap<String, User> idOrder;
    private final List<User> ordered;

    private UserDirectory(List<User> users) {
        TreeMap<String, User> map = new TreeMap<>();
        users.forEach(u -> map.put(u.id(), u));
        this.byId = Map.copyOf(map);
        this.idOrder = Collections.unmodifiableNavigableMap(map);
        this.ordered = List.copyOf(users);
    }

    /** A directory of {@code size} users with ids "1" to size. */
    public static UserDirectory generate(int size) {
        List<User> users = new ArrayList<>(size);
        long firstDay = LocalDate.of(2020, 1, 1).toEpochDay();
        for (int i = 1; i <= size; i++) {
            String first = FIRST[i % FIRST.length];
            String last = LAST[(i * 7) % LAST.length];
            String username = (first.charAt(0) + last).toLowerCase(Locale.ROOT) + i;
            int city = (i * 3) % CITIES.length;
            users.add(new User(Integer.toString(i), username, first + " " + last, username + "@example.com",
                    "+1-555-" + zeroPadded(i % 10_000, 4), TITLES[i % TITLES.length],
                    DEPARTMENTS[(i * 5) % DEPARTMENTS.length],
                    new Address((100 + i) + " Market Street", CITIES[city], zeroPadded((i * 37) % 100_000, 5),
                            COUNTRIES[city]),
                    i % 10 == 0 ? List.of("member", "admin") : List.of("member"), i % 13 != 0,
                    LocalDate.ofEpochDay(firstDay + i) + "T00:00:00Z"));
        }
        return new UserDirectory(users);
    }

    // String.format costs more than the rest of generate, run once at start-up and interpreted.
    private static String zeroPadded(int value, int width) {
        String digits = Integer.toString(value);
        return "0".repeat(Math.max(0, width - digits.length())) + digits;
    }

    public Optional<User> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public int size() {
        return ordered.size();
    }

    /** Users in id order from {@code offset}, at most {@code limit}. */
    public List<User> page(int offset, int limit) {
        if (offset >= ordered.size()) {
            return List.of();
        }
        return ordered.subList(offset, Math.min(ordered.size(), offset + limit));
    }

    /** Users whose name, username, email, title or city contains {@code query}, case-insensitively. */
    public List<User> search(String query, int limit) {
        String q = query.toLowerCase(Locale.ROOT);
        List<User> found = new ArrayList<>();
        for (User u : ordered) {
            if (found.size() == limit) {
                break;
            }
            if (u.name().toLowerCase(Locale.ROOT).contains(q) || u.username().contains(q)
                    || u.email().contains(q) || u.title().toLowerCase(Locale.ROOT).contains(q)
                    || u.address().city().toLowerCase(Locale.ROOT).contains(q)) {
                found.add(u);
            }
        }
        return found;
    }

    /** Ids starting with {@code prefix}, in id order. */
    public List<String> idsStartingWith(String prefix, int limit) {
        List<String> ids = new ArrayList<>();
        for (Map.Entry<String, User> e : idOrder.tailMap(prefix, true).entrySet()) {
            if (!e.getKey().startsWith(prefix) || ids.size() == limit) {
                break;
            }
            ids.add(e.getKey());
        }
        return ids;
    }
}
