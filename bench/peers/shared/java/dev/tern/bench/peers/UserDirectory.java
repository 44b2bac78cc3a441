package dev.tern.bench.peers;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The 1,000-user directory of Tern's user-directory example, generated the same way so that every peer answers
 * {@code get_user} with the same record, byte for byte. Every Java peer compiles this one file with its own sources.
 */
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

    public record User(String id, String username, String name, String email, String phone, String title, String department,
            Address address, List<String> roles, boolean active, String createdAt) {
    }

    public record Address(String street, String city, String postalCode, String country) {
    }

    private final Map<String, User> byId;

    private UserDirectory(Map<String, User> byId) {
        this.byId = byId;
    }

    /** Users with ids "1" to {@code size}. */
    public static UserDirectory generate(int size) {
        Map<String, User> users = new HashMap<>();
        Instant epoch = Instant.parse("2020-01-01T00:00:00Z");
        for (int i = 1; i <= size; i++) {
            String first = FIRST[i % FIRST.length];
            String last = LAST[(i * 7) % LAST.length];
            String username = (first.charAt(0) + last).toLowerCase(Locale.ROOT) + i;
            int city = (i * 3) % CITIES.length;
            User user = new User(Integer.toString(i), username, first + " " + last, username + "@example.com",
                    String.format(Locale.ROOT, "+1-555-%04d", i % 10_000), TITLES[i % TITLES.length],
                    DEPARTMENTS[(i * 5) % DEPARTMENTS.length],
                    new Address((100 + i) + " Market Street", CITIES[city],
                            String.format(Locale.ROOT, "%05d", (i * 37) % 100_000), COUNTRIES[city]),
                    i % 10 == 0 ? List.of("member", "admin") : List.of("member"), i % 13 != 0,
                    epoch.plusSeconds(i * 86_400L).toString());
            users.put(user.id(), user);
        }
        return new UserDirectory(Map.copyOf(users));
    }

    public User find(String id) {
        return byId.get(id);
    }
}
