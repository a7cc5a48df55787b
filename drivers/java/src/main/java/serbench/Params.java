package serbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import serbench.paged.Index;

/** A request's `params`, with typed getters whose errors are bad_requests naming the key. */
public final class Params {
    private final JsonNode node;

    public Params(JsonNode node) {
        this.node = node;
    }

    private JsonNode get(String key) throws Failure {
        JsonNode v = node == null ? null : node.get(key);
        if (v == null) {
            throw Failure.badRequest("params." + key + " is required");
        }
        return v;
    }

    private static Failure wrong(String key, String what, JsonNode v) {
        return Failure.badRequest("params." + key + " must be " + what + ", got " + v);
    }

    /** Whether the request gives `key` at all (optional params such as a root's output). */
    public boolean has(String key) {
        return node != null && node.has(key);
    }

    public Path path(String key) throws Failure {
        JsonNode v = get(key);
        if (!v.isTextual() || v.asText().isEmpty()) {
            throw wrong(key, "a non-empty path", v);
        }
        return Path.of(v.asText());
    }

    public String text(String key) throws Failure {
        JsonNode v = get(key);
        if (!v.isTextual()) {
            throw wrong(key, "a string", v);
        }
        return v.asText();
    }

    public long u64(String key) throws Failure {
        JsonNode v = get(key);
        if (!v.canConvertToExactIntegral() || !v.canConvertToLong() || v.asLong() < 0) {
            throw wrong(key, "a non-negative integer", v);
        }
        return v.asLong();
    }

    /** An optional non-negative integer: `fallback` when absent. */
    public long u64Or(String key, long fallback) throws Failure {
        return node != null && node.has(key) ? u64(key) : fallback;
    }

    public boolean bool(String key) throws Failure {
        JsonNode v = get(key);
        if (!v.isBoolean()) {
            throw wrong(key, "true or false", v);
        }
        return v.asBoolean();
    }

    /** `run_stamp` (32 lowercase hex digits) as 16 bytes; all zero when absent. */
    public byte[] runStamp() throws Failure {
        byte[] stamp = Index.noRun();
        if (node == null || !node.has("run_stamp")) {
            return stamp;
        }
        JsonNode v = get("run_stamp");
        String hex = v.isTextual() ? v.asText() : "";
        if (!hex.matches("[0-9a-f]{32}")) {
            throw wrong("run_stamp", "32 lowercase hex digits", v);
        }
        for (int i = 0; i < stamp.length; i++) {
            stamp[i] = (byte) Integer.parseInt(hex, 2 * i, 2 * i + 2, 16);
        }
        return stamp;
    }

    /** The page size if given: 64 .. 2^31 - 1 (Java arrays hold a page). */
    public Integer pageSize() throws Failure {
        if (node == null || !node.has("page_size")) {
            return null;
        }
        long p = u64("page_size");
        if (p < 64 || p > Integer.MAX_VALUE - 8) {
            throw wrong("page_size", "between 64 and 2^31 - 9", get("page_size"));
        }
        return (int) p;
    }
}
