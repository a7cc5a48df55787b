package serbench.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import serbench.Failure;
import serbench.IoTimer;
import serbench.Params;
import serbench.tasks.Json;

/** Frames and hellos over real loopback sockets: what a node refuses and how it names it. */
class FrameTest {
    private ServerSocketChannel listener;
    private SocketChannel raw;

    /** A link named "server" (what the test receives on) and the raw socket at its peer. */
    private Link pair(long timeoutMs) throws Exception {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        raw = SocketChannel.open(listener.getLocalAddress());
        return new Link("server", listener.accept(), timeoutMs);
    }

    @AfterEach
    void close() throws Exception {
        if (raw != null) {
            raw.close();
        }
        if (listener != null) {
            listener.close();
        }
    }

    private void write(byte[] bytes) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            raw.write(b);
        }
    }

    @Test
    void framesRoundTripAndCountTheirBytes() throws Exception {
        Link a = pair(5_000);
        Link b = new Link("a", raw, 5_000);
        IoTimer t = new IoTimer();
        b.send(FrameKind.PAGES, t, ByteBuffer.wrap("abc".getBytes(StandardCharsets.US_ASCII)),
            ByteBuffer.wrap("defg".getBytes(StandardCharsets.US_ASCII)));
        b.sendJson(FrameKind.CONTROL, Json.MAPPER.createObjectNode().put("op", "go"), t);
        Payload p = new Payload(true);
        assertEquals(FrameKind.PAGES, a.recv(p, t));
        assertEquals("abcdefg", new String(p.copy(), StandardCharsets.US_ASCII));
        assertEquals("go", a.recvJson(FrameKind.CONTROL, t).get("op").asText());
        assertEquals(b.bytesSent, a.bytesReceived);
        assertEquals(5 + 7 + 5 + 11, a.bytesReceived);
    }

    @Test
    void aHugeDeclaredLengthIsRefusedBeforeAnythingIsAllocated() throws Exception {
        Link a = pair(5_000);
        write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 3});
        Payload p = new Payload(false);
        Failure e = assertThrows(Failure.class, () -> a.recv(p, new IoTimer()));
        assertEquals("network", e.kind);
        assertEquals("peer server: a frame of 4294967295 bytes exceeds the maximum 67108864",
            e.getMessage());
        assertNull(p.buffer(), "no buffer was allocated for the declared length");
        // one byte over the maximum is refused too
        Failure over = assertThrows(Failure.class, () -> Wire.parseHeader(ByteBuffer.wrap(
            new byte[] {1, 0, 0, 4, 3}), Wire.MAX_FRAME, "x"));
        assertTrue(over.getMessage().contains("67108865 bytes exceeds"), over.getMessage());
    }

    /**
     * A data link's maximum is its cell's: a frame up to it arrives, a longer one is refused
     * from its header by the receiver (nothing allocated) and by the sender (nothing sent).
     */
    @Test
    void aDataLinkTakesFramesUpToItsOwnMaximumAndRefusesLongerUnread() throws Exception {
        Link a = pair(5_000);
        Link b = new Link("a", raw, 5_000);
        int limit = 1 << 20;
        a.setMaxFrame(limit);
        b.setMaxFrame(limit);
        CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
            try {
                b.send(FrameKind.PAGES, new IoTimer(), ByteBuffer.allocate(limit));
            } catch (Failure f) {
                throw new IllegalStateException(f);
            }
        });
        Payload p = new Payload(false);
        assertEquals(FrameKind.PAGES, a.recv(p, new IoTimer()));
        assertEquals(limit, p.length());
        sent.get();
        Failure over = assertThrows(Failure.class, () -> b.send(FrameKind.PAGES, new IoTimer(),
            ByteBuffer.allocate(limit), ByteBuffer.allocate(1)));
        assertEquals("internal", over.kind);
        assertEquals("a 1048577-byte frame to a exceeds the maximum 1048576", over.getMessage());
        assertEquals(Wire.HEADER + limit, b.bytesSent);

        write(new byte[] {1, 0, 0x10, 0, 3}); // 1048577 bytes, kind pages
        Payload fresh = new Payload(false);
        Failure e = assertThrows(Failure.class, () -> a.recv(fresh, new IoTimer()));
        assertEquals("network", e.kind);
        assertEquals("peer server: a frame of 1048577 bytes exceeds the maximum 1048576",
            e.getMessage());
        assertNull(fresh.buffer(), "no buffer was allocated for the declared length");
    }

    /**
     * Above 64 MiB (the control link's maximum and the default): a frame a link allows arrives
     * whole (the aggregation's sums of BSON vectors need this), and a hostile length is still
     * refused from its header.
     */
    @Test
    void aFrameAbove64MiBPassesALinkWhoseMaximumAllowsIt() throws Exception {
        Link a = pair(5_000);
        Link b = new Link("a", raw, 5_000);
        int limit = 128 << 20;
        a.setMaxFrame(limit);
        b.setMaxFrame(limit);
        int len = Wire.MAX_FRAME + 4097;
        byte[] big = new byte[len];
        for (int i = 0; i < len; i++) {
            big[i] = (byte) i;
        }
        CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
            try {
                b.send(FrameKind.PAGES, new IoTimer(), ByteBuffer.wrap(big, 0, 8),
                    ByteBuffer.wrap(big, 8, len - 8));
            } catch (Failure f) {
                throw new IllegalStateException(f);
            }
        });
        Payload p = new Payload(true);
        assertEquals(FrameKind.PAGES, a.recv(p, new IoTimer()));
        sent.get();
        assertEquals(len, p.length());
        assertEquals(ByteBuffer.wrap(big), p.buffer().duplicate().position(0).limit(len));
        assertEquals(b.bytesSent, a.bytesReceived);

        Failure hostile = assertThrows(Failure.class, () -> Wire.parseHeader(ByteBuffer.wrap(
            new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 3}),
            Wire.MAX_NET_FRAME, "p"));
        assertEquals("peer p: a frame of 4294967295 bytes exceeds the maximum 1073741824",
            hostile.getMessage());
        ByteBuffer justOver = ByteBuffer.wrap(new byte[] {1, 0, 0, 4, 3}); // 64 MiB + 1
        assertEquals(Wire.MAX_FRAME + 1, Wire.parseHeader(justOver, limit, "p").length());
        assertThrows(Failure.class, () -> Wire.parseHeader(justOver, Wire.MAX_FRAME, "p"));
    }

    @Test
    void netFrameBytesDefaultsTo64MiBAndIsRefusedOutOfItsBounds() throws Exception {
        assertEquals(64 << 20, Wire.netFrameBytes(new Params(null)));
        assertEquals(65536, Wire.netFrameBytes(params(65536)));
        assertEquals(1 << 30, Wire.netFrameBytes(params(1L << 30)));
        for (long bad : new long[] {65535, (1L << 30) + 1, 1L << 40, 0}) {
            Failure e = assertThrows(Failure.class, () -> Wire.netFrameBytes(params(bad)));
            assertEquals("bad_request", e.kind);
            assertEquals("params.net_frame_bytes must be between 65536 and 1073741824, got "
                + bad, e.getMessage());
        }
    }

    private static Params params(long netFrameBytes) {
        return new Params(Json.MAPPER.createObjectNode().put("net_frame_bytes", netFrameBytes));
    }

    @Test
    void aTruncatedFrameSaysThePeerClosedMidStream() throws Exception {
        Link a = pair(5_000);
        write(new byte[] {10, 0, 0, 0, 3, 1, 2});
        raw.close();
        Failure e = assertThrows(Failure.class, () -> a.recv(new Payload(false),
            new IoTimer()));
        assertEquals("peer server: closed the connection mid-stream (died?)", e.getMessage());
    }

    @Test
    void anUnknownKindIsGarbageOnTheSocket() throws Exception {
        Link a = pair(5_000);
        write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        Failure e = assertThrows(Failure.class, () -> Hello.receive(a, new IoTimer()));
        assertEquals("peer server: unknown frame kind 47 (garbage on the socket?)",
            e.getMessage());
    }

    @Test
    void anErrorFrameBecomesTheFailureItNamesFromThatPeer() throws Exception {
        Link a = pair(5_000);
        new Link("a", raw, 5_000).sendError(Failure.corrupt("part.pages: page 3"));
        Failure e = assertThrows(Failure.class, () -> a.recv(new Payload(false),
            new IoTimer()));
        assertEquals("network", e.kind);
        assertEquals("peer server: failed: corrupt_input: part.pages: page 3", e.getMessage());
    }

    @Test
    void aSilentPeerTimesOut() throws Exception {
        Link a = pair(50);
        Failure e = assertThrows(Failure.class, () -> a.recv(new Payload(false),
            new IoTimer()));
        assertEquals("peer server: sent nothing within the peer timeout (hung or dead?)",
            e.getMessage());
    }

    @Test
    void aHelloLongerThanItsMaximumIsRefusedUnread() throws Exception {
        Link a = pair(5_000);
        write(new byte[] {(byte) 0x01, 0x10, 0, 0, 1}); // 4097 bytes, kind hello
        Failure e = assertThrows(Failure.class, () -> Hello.receive(a, new IoTimer()));
        assertEquals("peer server: a hello frame of 4097 bytes exceeds its maximum 4096",
            e.getMessage());
    }

    @Test
    void onlyTheSameTokenPassesAndARefusalNamesTheAddress() throws Exception {
        String token = "0123456789abcdef0123456789abcdef";
        List<String> speaks = List.of("net_fetch", "handcoded", "part", "disk");
        new Hello("data", "leaf0", speaks, token).checkToken(token, "10.0.0.5:4711");
        for (String[] c : new String[][] {{"", "no token"}, {token.toUpperCase(), "wrong token"},
                {token.substring(1), "wrong token"}}) {
            Failure e = assertThrows(Failure.class, () -> new Hello("data", "leaf0", speaks,
                c[0]).checkToken(token, "10.0.0.5:4711"));
            assertEquals("peer 10.0.0.5:4711: " + c[1], e.getMessage());
        }
    }

    @Test
    void helloesRoundTripAndAMismatchIsNamed() throws Exception {
        Hello h = new Hello("data", "leaf0", List.of("net_fetch", "handcoded", "part", "disk"),
            "0123456789abcdef0123456789abcdef");
        assertEquals(h, Hello.parse(h.toPayload(), "x"));
        Failure e = assertThrows(Failure.class, () -> h.checkSpeaks(
            List.of("net_fetch", "json", "part", "disk"), "127.0.0.1:9"));
        assertEquals("peer 127.0.0.1:9: speaks method 'handcoded', this node speaks 'json'",
            e.getMessage());
        Failure variant = assertThrows(Failure.class, () -> h.checkSpeaks(
            List.of("net_fetch", "handcoded", "part", "ram"), "p"));
        assertTrue(variant.getMessage().contains("speaks variant 'disk'"));
        Failure notJson = assertThrows(Failure.class, () -> Hello.parse(
            "SERBNET1[1]".getBytes(StandardCharsets.US_ASCII), "p"));
        assertTrue(notJson.getMessage().contains("JSON object"), notJson.getMessage());
        Failure noMagic = assertThrows(Failure.class, () -> Hello.parse(
            "{}".getBytes(StandardCharsets.US_ASCII), "p"));
        assertEquals("peer p: not a serbench peer (no hello magic)", noMagic.getMessage());
    }

    @Test
    void aHelloSentOverASocketIsReceived() throws Exception {
        Link a = pair(5_000);
        Hello h = new Hello("data", "leaf0", List.of("net_fetch", "handcoded", "part", "disk"),
            "0123456789abcdef0123456789abcdef");
        h.send(new Link("a", raw, 5_000), new IoTimer());
        assertEquals(h, Hello.receive(a, new IoTimer()));
    }

    @Test
    void aFrameLargerThanTheMaximumIsNeverSent() throws Exception {
        Link a = pair(5_000);
        Failure e = assertThrows(Failure.class, () -> a.send(FrameKind.PAGES, new IoTimer(),
            ByteBuffer.allocate(Wire.MAX_FRAME), ByteBuffer.allocate(1)));
        assertEquals("internal", e.kind);
        assertEquals(0, a.bytesSent);
    }
}
