package dev.tern.protocol;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;

import tools.jackson.databind.JsonNode;

/**
 * The members of a JSON object node, in insertion order, as a {@link LinkedHashMap} keeps them, but stored as one array
 * of keys and values while there are few of them: MCP's objects mostly have one to six members, and a
 * {@code LinkedHashMap} spends a 16-slot table and a 40-byte entry per member on each (about 1.3 KB of the 2.9 KB a
 * {@code tools/call} request's tree took). Lookups compare keys in order, identity first (the parser interns member
 * names). Past {@link #MAX_INLINE} members it moves them into a {@code LinkedHashMap}, so a large object is hashed
 * as before and no input can make its lookups linear. Not thread-safe, like the nodes that hold it.
 */
final class CompactObjectMap extends AbstractMap<String, JsonNode> {
    static final int MAX_INLINE = 8;
    private static final int FIRST_CAPACITY = 4;

    /** Keys at even indexes, their values after them; null until the first member. */
    private Object[] slots;
    private int size;
    /** Every member once there were more than {@link #MAX_INLINE}; {@link #slots} is then unused. */
    private LinkedHashMap<String, JsonNode> large;
    private int modifications;

    @Override
    public int size() {
        return large != null ? large.size() : size;
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public boolean containsKey(Object key) {
        return large != null ? large.containsKey(key) : indexOf(key) >= 0;
    }

    @Override
    public JsonNode get(Object key) {
        if (large != null) {
            return large.get(key);
        }
        int i = indexOf(key);
        return i < 0 ? null : value(i);
    }

    @Override
    public JsonNode put(String key, JsonNode value) {
        if (large != null) {
            return large.put(key, value);
        }
        int i = indexOf(key);
        if (i >= 0) {
            JsonNode old = value(i);
            slots[2 * i + 1] = value;
            return old;
        }
        Objects.requireNonNull(key, "key");
        if (size == MAX_INLINE) {
            LinkedHashMap<String, JsonNode> moved = new LinkedHashMap<>();
            for (int j = 0; j < size; j++) {
                moved.put(key(j), value(j));
            }
            moved.put(key, value);
            large = moved;
            slots = null;
            size = 0;
            modifications++;
            return null;
        }
        if (slots == null) {
            slots = new Object[2 * FIRST_CAPACITY];
        } else if (2 * size == slots.length) {
            slots = java.util.Arrays.copyOf(slots, 2 * Math.min(2 * size, MAX_INLINE));
        }
        slots[2 * size] = key;
        slots[2 * size + 1] = value;
        size++;
        modifications++;
        return null;
    }

    @Override
    public JsonNode remove(Object key) {
        if (large != null) {
            return large.remove(key);
        }
        int i = indexOf(key);
        if (i < 0) {
            return null;
        }
        JsonNode old = value(i);
        removeAt(i);
        return old;
    }

    @Override
    public void clear() {
        if (large != null) {
            large.clear();
            return;
        }
        if (slots != null) {
            java.util.Arrays.fill(slots, 0, 2 * size, null);
        }
        size = 0;
        modifications++;
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super JsonNode> action) {
        if (large != null) {
            large.forEach(action);
            return;
        }
        int expected = modifications;
        for (int i = 0; i < size; i++) {
            action.accept(key(i), value(i));
            if (modifications != expected) {
                throw new ConcurrentModificationException();
            }
        }
    }

    @Override
    public Set<Entry<String, JsonNode>> entrySet() {
        return large != null ? large.entrySet() : new Entries();
    }

    private int indexOf(Object key) {
        Object[] s = slots;
        int n = size;
        for (int i = 0; i < n; i++) {
            if (s[2 * i] == key) {
                return i;
            }
        }
        if (key != null) {
            for (int i = 0; i < n; i++) {
                if (key.equals(s[2 * i])) {
                    return i;
                }
            }
        }
        return -1;
    }

    private String key(int i) {
        return (String) slots[2 * i];
    }

    private JsonNode value(int i) {
        return (JsonNode) slots[2 * i + 1];
    }

    private void removeAt(int i) {
        System.arraycopy(slots, 2 * (i + 1), slots, 2 * i, 2 * (size - i - 1));
        size--;
        slots[2 * size] = null;
        slots[2 * size + 1] = null;
        modifications++;
    }

    /** The members while they are inline; a view, as {@link Map#entrySet} requires. */
    private final class Entries extends AbstractSet<Entry<String, JsonNode>> {
        @Override
        public int size() {
            return CompactObjectMap.this.size();
        }

        @Override
        public void clear() {
            CompactObjectMap.this.clear();
        }

        @Override
        public Iterator<Entry<String, JsonNode>> iterator() {
            if (large != null) {
                return large.entrySet().iterator();
            }
            return new Iterator<>() {
                private int next;
                private int last = -1;
                private int expected = modifications;

                @Override
                public boolean hasNext() {
                    return next < size;
                }

                @Override
                public Entry<String, JsonNode> next() {
                    check();
                    if (next >= size) {
                        throw new NoSuchElementException();
                    }
                    last = next++;
                    return new Member(last, expected);
                }

                @Override
                public void remove() {
                    if (last < 0) {
                        throw new IllegalStateException();
                    }
                    check();
                    removeAt(last);
                    next = last;
                    last = -1;
                    expected = modifications;
                }

                private void check() {
                    if (modifications != expected || large != null) {
                        throw new ConcurrentModificationException();
                    }
                }
            };
        }
    }

    /** One inline member; writes through to the map until the map changes shape. */
    private final class Member implements Entry<String, JsonNode> {
        private final int index;
        private final String key;
        private final int shape;

        Member(int index, int shape) {
            this.index = index;
            this.key = CompactObjectMap.this.key(index);
            this.shape = shape;
        }

        @Override
        public String getKey() {
            return key;
        }

        @Override
        public JsonNode getValue() {
            return current() ? value(index) : get(key);
        }

        @Override
        public JsonNode setValue(JsonNode value) {
            if (!current()) {
                throw new ConcurrentModificationException();
            }
            JsonNode old = value(index);
            slots[2 * index + 1] = value;
            return old;
        }

        private boolean current() {
            return large == null && modifications == shape;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry<?, ?> e && key.equals(e.getKey()) && Objects.equals(getValue(), e.getValue());
        }

        @Override
        public int hashCode() {
            return key.hashCode() ^ Objects.hashCode(getValue());
        }

        @Override
        public String toString() {
            return key + "=" + getValue();
        }
    }
}
