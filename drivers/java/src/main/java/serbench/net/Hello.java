package serbench.net;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import serbench.Failure;
import serbench.IoTimer;
import serbench.tasks.Json;

/**
 * What one end of a connection says it is (PROTOCOL.md 10.2): `control` (the harness) or
 * `data` (a peer node), its name, the task, method, model and variant it speaks (a data peer
 * must match all four) and the cell's token (a node admits only hellos carrying its own).
 */
public record Hello(String role, String from, List<String> speaks, String token) {
    public static final List<String> FIELDS = List.of("task", "method", "model", "variant");

    public byte[] toPayload() {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("role", role);
        body.put("from", from);
        body.put("token", token);
        for (int i = 0; i < FIELDS.size(); i++) {
            body.put(FIELDS.get(i), speaks.get(i));
        }
        byte[] json = Wire.json(body);
        byte[] out = Arrays.copyOf(Wire.MAGIC, Wire.MAGIC.length + json.length);
        System.arraycopy(json, 0, out, Wire.MAGIC.length, json.length);
        return out;
    }

    /** Parses a hello payload from a connection known only as `peer`. */
    public static Hello parse(byte[] payload, String peer) throws Failure {
        int m = Wire.MAGIC.length;
        if (payload.length < m || !Arrays.equals(payload, 0, m, Wire.MAGIC, 0, m)) {
            throw Wire.peerFailure(peer, "not a serbench peer (no hello magic)");
        }
        ObjectNode body = Wire.jsonObject(Arrays.copyOfRange(payload, m, payload.length), peer);
        return new Hello(body.path("role").asText(""), body.path("from").asText(""),
            FIELDS.stream().map(f -> body.path(f).asText("")).toList(),
            body.path("token").asText(""));
    }

    /**
     * The token must equal `mine` (compared in constant time); the failure names the
     * connection's address `from`, never a token.
     */
    public void checkToken(String mine, String from) throws Failure {
        if (token.isEmpty()) {
            throw Wire.peerFailure(from, "no token");
        }
        if (!sameToken(token, mine)) {
            throw Wire.peerFailure(from, "wrong token");
        }
    }

    /** Whether two tokens are equal, in a time that depends on their lengths only. */
    public static boolean sameToken(String theirs, String mine) {
        return MessageDigest.isEqual(theirs.getBytes(StandardCharsets.UTF_8),
            mine.getBytes(StandardCharsets.UTF_8));
    }

    /** Checks a data peer's hello against what this node speaks, naming the first difference. */
    public void checkSpeaks(List<String> mine, String peer) throws Failure {
        for (int i = 0; i < FIELDS.size(); i++) {
            if (!speaks.get(i).equals(mine.get(i))) {
                throw Wire.peerFailure(peer, "speaks " + FIELDS.get(i) + " '" + speaks.get(i)
                    + "', this node speaks '" + mine.get(i) + "'");
            }
        }
    }

    public void send(Link link, IoTimer timer) throws Failure {
        link.send(FrameKind.HELLO, timer, ByteBuffer.wrap(toPayload()));
    }

    /** Reads a fresh connection's first frame, which must be a hello of at most MAX_HELLO. */
    public static Hello receive(Link link, IoTimer timer) throws Failure {
        Payload payload = new Payload(false);
        if (link.recv(payload, timer, Wire.MAX_HELLO) != FrameKind.HELLO) {
            throw Wire.peerFailure(link.peer, "not a serbench peer (its first frame is no hello)");
        }
        return parse(payload.copy(), link.peer);
    }
}
