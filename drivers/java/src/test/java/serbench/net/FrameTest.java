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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import serbench.Failure;
import serbench.IoTimer;
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
            new byte[] {1, 0, 0, 4, 3}), "x"));
        assertTrue(over.getMessage().contains("67108865 bytes exceeds"), over.getMessage());
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
