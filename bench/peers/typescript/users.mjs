// The 1,000-user directory of Tern's user-directory example, generated the same way so that every peer answers
// get_user with the same record, byte for byte (property order included).
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Leslie', 'Margaret', 'Niklaus',
  'Radia', 'Tony', 'Whitfield', 'Yukihiro', 'Guido', 'James', 'Anders', 'Bjarne', 'Hedy'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Lamport', 'Hamilton',
  'Wirth', 'Perlman', 'Hoare', 'Diffie', 'Matsumoto', 'Rossum', 'Gosling', 'Hejlsberg', 'Stroustrup', 'Lamarr'];
const CITIES = ['Lisbon', 'Oslo', 'Nairobi', 'Montreal', 'Osaka', 'Valparaiso', 'Tallinn', 'Auckland', 'Reykjavik', 'Kraków'];
const COUNTRIES = ['PT', 'NO', 'KE', 'CA', 'JP', 'CL', 'EE', 'NZ', 'IS', 'PL'];
const TITLES = ['Engineer', 'Staff Engineer', 'Designer', 'Product Manager', 'SRE', 'Data Scientist',
  'Engineering Manager', 'Researcher'];
const DEPARTMENTS = ['Platform', 'Payments', 'Search', 'Growth', 'Infrastructure', 'Mobile'];
const DAY_MS = 86_400_000;
const EPOCH_MS = Date.UTC(2020, 0, 1);

/** Users with ids "1" to size, by id. */
export function generateUsers(size) {
  const users = new Map();
  for (let i = 1; i <= size; i++) {
    const first = FIRST[i % FIRST.length];
    const last = LAST[(i * 7) % LAST.length];
    const username = (first[0] + last).toLowerCase() + i;
    const city = (i * 3) % CITIES.length;
    users.set(String(i), {
      id: String(i),
      username,
      name: `${first} ${last}`,
      email: `${username}@example.com`,
      phone: `+1-555-${String(i % 10_000).padStart(4, '0')}`,
      title: TITLES[i % TITLES.length],
      department: DEPARTMENTS[(i * 5) % DEPARTMENTS.length],
      address: {
        street: `${100 + i} Market Street`,
        city: CITIES[city],
        postalCode: String((i * 37) % 100_000).padStart(5, '0'),
        country: COUNTRIES[city],
      },
      roles: i % 10 === 0 ? ['member', 'admin'] : ['member'],
      active: i % 13 !== 0,
      // Java's Instant.toString drops zero milliseconds: 2020-02-12T00:00:00Z
      createdAt: new Date(EPOCH_MS + i * DAY_MS).toISOString().replace('.000Z', 'Z'),
    });
  }
  return users;
}
