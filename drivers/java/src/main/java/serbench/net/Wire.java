package serbench.net;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import serbench.Failure;
import serbench.tasks.Json;

/**
 * The frame layout every connection carries (PROTOCOL.md 10.2): `u32 length (LE) | u8 kind |
 * payload`, with a hard maximum checked before anything is allocated.
 */
public final class Wire {
    private Wire() {}

    /** The largest payload any node sends or accepts. */
    public static final int MAX_FRAME = 64 << 20;
    public static final int HEADER = 5;
    /** The first bytes of every hello: anything else is not a serbench peer. */
    public static final byte[] MAGIC = "SERBNET1".getBytes(StandardCharsets.US_ASCII);
    /** The largest hello a fresh connection may send: longer is refused from its header. */
    public static final int MAX_HELLO = 4096;

    /** A frame header: its kind and payload length. */
    public record Header(FrameKind kind, int length) {}

    /** A network failure naming the peer. */
    public static Failure peerFailure(String peer, String what) {
        return new Failure("network", "peer " + peer + ": " + what);
    }

    /** Parses the 5 header bytes, refusing an unknown kind or an oversize length. */
    public static Header parseHeader(ByteBuffer header, String peer) throws Failure {
        long length = Integer.toUnsignedLong(header.order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        byte kindByte = header.get(4);
        FrameKind kind = FrameKind.of(kindByte);
        if (kind == null) {
            throw peerFailure(peer, "unknown frame kind " + Byte.toUnsignedInt(kindByte)
                + " (garbage on the socket?)");
        }
        if (length > MAX_FRAME) {
            throw peerFailure(peer, "a frame of " + length + " bytes exceeds the maximum "
                + MAX_FRAME);
        }
        return new Header(kind, (int) length);
    }

    /** The header bytes of a frame. */
    static ByteBuffer header(FrameKind kind, int length) {
        ByteBuffer h = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0, length).put(4, kind.id);
        return h;
    }

    /** A payload that must be one JSON object; the reason otherwise. */
    public static ObjectNode jsonObject(byte[] payload, String peer) throws Failure {
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(payload);
        } catch (java.io.IOException e) {
            throw peerFailure(peer, "a frame that should hold JSON does not parse: "
                + e.getMessage().lines().findFirst().orElse(""));
        }
        if (node == null || !node.isObject()) {
            throw peerFailure(peer, "a frame that should hold a JSON object holds another "
                + "JSON value");
        }
        return (ObjectNode) node;
    }

    static byte[] json(JsonNode value) {
        try {
            return Json.MAPPER.writeValueAsBytes(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }
}
