package serbench.tasks;

import serbench.Hasher;

/** A set checksum: count and wrapping sum of object hashes (order-free). */
public final class Checksum {
    public long count;
    public long sum;

    public void add(long hash) {
        count++;
        sum += hash;
    }

    public boolean sameAs(Checksum o) {
        return count == o.count && sum == o.sum;
    }

    public com.fasterxml.jackson.databind.node.ObjectNode json() {
        com.fasterxml.jackson.databind.node.ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("count", count);
        n.put("sum", Hasher.hex(sum));
        return n;
    }
}
