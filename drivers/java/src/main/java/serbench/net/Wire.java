package serbench.net;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import serbench.Failure;
import serbench.Params;
import serbench.tasks.Json;

/**
 * The frame layout every connection carries (PROTOCOL.md 10.2): `u32 length (LE) | u8 kind |
 * payload`, with a maximum per link checked before anything is allocated (fixed for the
 * harness's link and the hello, the cell's `net_frame_bytes` between data nodes).
 */
public final class Wire {
    private Wire() {}

    /**
     * The largest payload on a link until it is told otherwise: the harness's control link
     * keeps it, and it is the default of a data link's (`params.net_frame_bytes`).
     */
    public static final int MAX_FRAME = 64 << 20;
    /** The bounds of `params.net_frame_bytes`; every driver checks the same. */
    public static final int MIN_NET_FRAME = 64 << 10;
    public static final int MAX_NET_FRAME = 1 << 30;
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

    /**
     * The largest frame between this cell's data nodes (`params.net_frame_bytes`, default
     * {@link #MAX_FRAME}), refused outside [MIN_NET_FRAME, MAX_NET_FRAME].
     */
    public static int netFrameBytes(Params params) throws Failure {
        long requested = params.u64Or("net_frame_bytes", MAX_FRAME);
        if (requested < MIN_NET_FRAME || requested > MAX_NET_FRAME) {
            throw Failure.badRequest("params.net_frame_bytes must be between " + MIN_NET_FRAME
                + " and " + MAX_NET_FRAME + ", got " + requested);
        }
        return (int) requested;
    }

    /** Parses the 5 header bytes, refusing an unknown kind or a length above `max`. */
    public static Header parseHeader(ByteBuffer header, int max, String peer) throws Failure {
        long length = Integer.toUnsignedLong(header.order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        byte kindByte = header.get(4);
        FrameKind kind = FrameKind.of(kindByte);
        if (kind == null) {
            throw peerFailure(peer, "unknown frame kind " + Byte.toUnsignedInt(kindByte)
                + " (garbage on the socket?)");
        }
        if (length > max) {
            throw peerFailure(peer, "a frame of " + length + " bytes exceeds the maximum " + max);
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
