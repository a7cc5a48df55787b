package serbench.net;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import serbench.Depth;
import serbench.Failure;
import serbench.Params;

/** What the harness's `setup` message says (PROTOCOL.md 10.4). */
public record Setup(String task, String role, String name, String method, String model,
        String variant, String depth, JsonNode paramsNode) {

    static Setup parse(ObjectNode message) throws Failure {
        return new Setup(text(message, "task", true), text(message, "role", true),
            text(message, "name", true), text(message, "method", true),
            text(message, "model", true), text(message, "variant", false),
            text(message, "depth", false), message.get("params"));
    }

    private static String text(ObjectNode message, String key, boolean required)
            throws Failure {
        JsonNode v = message.get(key);
        if (v == null || v.isNull()) {
            if (required) {
                throw Failure.badRequest("a malformed setup: no " + key);
            }
            return "";
        }
        if (!v.isTextual()) {
            throw Failure.badRequest("a malformed setup: " + key + " must be a string, got " + v);
        }
        return v.asText();
    }

    public Params params() {
        return new Params(paramsNode);
    }

    /** task, method, model and variant: what a data peer must speak too. */
    public List<String> speaks() {
        return List.of(task, method, model, variant);
    }

    /** How long a socket may stay silent before its peer counts as dead. */
    public long peerTimeoutMs() throws Failure {
        long ms = params().u64Or("peer_timeout_ms", 30_000);
        if (ms == 0) {
            throw Failure.badRequest("params.peer_timeout_ms must be at least 1");
        }
        return ms;
    }

    /** The largest frame between this cell's data nodes (`params.net_frame_bytes`). */
    public int netFrameBytes() throws Failure {
        return Wire.netFrameBytes(params());
    }

    /** The depth a role decodes at: materialize when the harness gives none. */
    public Depth depthOrMaterialize() throws Failure {
        return depth.isEmpty() ? Depth.MATERIALIZE : Depth.parse(depth);
    }
}
