package serbench.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Registry;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.model.Arrays;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.tasks.Checksum;
import serbench.tasks.Reads;
import serbench.tasks.Tasks;

/**
 * Network pages through a real socket: packed (`ram`) and shipped (`disk`) streams arrive
 * as paged files the validating reader accepts, holding exactly the objects sent; entries
 * that do not fit their frame are refused before any byte is trusted.
 */
class NetPagesTest {
    private static final int P = 64;
    @SuppressWarnings("unchecked")
    private static final ModelType<Arrays> ARRAYS = (ModelType<Arrays>) ModelType.byId("arrays");

    /** Objects whose hand-coded lengths lie around and above the page size. */
    private static List<Arrays> objects() {
        List<Arrays> out = new ArrayList<>();
        for (int k : new int[] {0, 8, 4, 14, 1, 48, 0, 13, 2, 31, 3, 5, 7}) {
            Arrays a = new Arrays();
            a.strings = new String[0];
            a.ints = new int[k];
            for (int i = 0; i < k; i++) {
                a.ints[i] = i * 7 - k;
            }
            out.add(a);
        }
        return out;
    }

    private static Checksum checksum(List<Arrays> objects) {
        Checksum c = new Checksum();
        objects.forEach(o -> c.add(ARRAYS.hash(o)));
        return c;
    }

    /** A connected pair: [0] sends, [1] receives. */
    private static Link[] links() throws Exception {
        try (ServerSocketChannel l = ServerSocketChannel.open()
                .bind(new InetSocketAddress("127.0.0.1", 0))) {
            SocketChannel a = SocketChannel.open(l.getLocalAddress());
            return new Link[] {new Link("receiver", a, 5_000), new Link("sender", l.accept(),
                5_000)};
        }
    }

    /** Receives one stream into `base`, decoding every object; its counts and checksum. */
    private static CompletableFuture<Object[]> receive(Link link, Path base, MethodSpec method) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                IoTimer timer = new IoTimer();
                Codec<Arrays> codec = method.codec(ARRAYS);
                Payload payload = new Payload(method.directPages());
                try (Receiver r = new Receiver(base, P, timer)) {
                    while (link.recv(payload, timer) == FrameKind.PAGES) {
                        r.frame(payload, link.peer, (frame, at, len) -> {
                            Hasher h = new Hasher();
                            codec.fold(frame, at, len, Depth.MATERIALIZE, h);
                            return h.finish();
                        });
                    }
                    r.streamed.checkEnd(Wire.jsonObject(payload.copy(), link.peer), P,
                        link.peer);
                    return new Object[] {r.finish("arrays", method.id(), "java"), r.checksum};
                }
            } catch (Failure e) {
                throw new IllegalStateException(e.kind + ": " + e.getMessage(), e);
            }
        });
    }

    private static Checksum readBack(Path base, MethodSpec method) throws Failure {
        Reads.Outcome o = Reads.read(method.codec(ARRAYS), method, ARRAYS, base,
            new Reads.Selection(0, -1, null), Depth.MATERIALIZE, P,
            new PageReader.Buffer(method.directPages()), new IoTimer());
        Checksum c = new Checksum();
        c.count = o.count();
        c.sum = o.sum();
        return c;
    }

    @ParameterizedTest
    @ValueSource(strings = {"handcoded", "handcoded_direct", "json"})
    void packedObjectsArriveAsAValidPagedFileInSeveralFrames(String id, @TempDir Path dir)
            throws Exception {
        MethodSpec method = Registry.method(id);
        List<Arrays> objects = objects();
        Link[] pair = links();
        Path base = dir.resolve("got");
        CompletableFuture<Object[]> got = receive(pair[1], base, method);
        IoTimer timer = new IoTimer();
        // room for four pages a frame: the 200-byte object alone takes four
        Packer packer = new Packer(P, 4 * P + NetPages.HEAD + 16 * 8);
        Codec<Arrays> codec = method.codec(ARRAYS);
        for (Arrays o : objects) {
            packer.push(out -> codec.encode(o, out), pair[0], timer);
        }
        Streamed sent = packer.finish(pair[0], timer);
        sent.end(pair[0], P, timer);
        Object[] received = got.get();
        assertEquals(sent, received[0]);
        assertTrue(sent.frames >= 3, sent.toString());
        assertTrue(checksum(objects).sameAs((Checksum) received[1]));
        assertTrue(checksum(objects).sameAs(readBack(base, method)));
    }

    @Test
    void shippedPagesOfARangeArriveWithOnlyItsObjects(@TempDir Path dir) throws Exception {
        MethodSpec method = Registry.method("handcoded");
        List<Arrays> objects = objects();
        Path source = dir.resolve("source");
        Tasks.writeFile(method.codec(ARRAYS), method, ARRAYS, objects, source, P, Index.noRun(),
            new IoTimer());
        Link[] pair = links();
        Path base = dir.resolve("got");
        CompletableFuture<Object[]> got = receive(pair[1], base, method);
        IoTimer timer = new IoTimer();
        Streamed sent;
        try (PageReader reader = new PageReader(source, new Index.Expect("arrays", "handcoded",
                null), timer, new PageReader.Buffer(false))) {
            sent = new Shipper(reader, 3 * P + NetPages.HEAD + 16 * 8, pair[0], timer)
                .ship(2, 9);
        }
        sent.end(pair[0], P, timer);
        Object[] received = got.get();
        assertEquals(sent, received[0]);
        assertEquals(9, sent.objects);
        assertTrue(sent.frames >= 3, sent.toString());
        Checksum expected = checksum(objects.subList(2, 11));
        assertTrue(expected.sameAs((Checksum) received[1]));
        assertTrue(expected.sameAs(readBack(base, method)));
    }

    /** One object of 80,008 bytes (hand-coded): above a 64 KiB frame. */
    private static Arrays big() {
        Arrays a = new Arrays();
        a.strings = new String[0];
        a.ints = new int[20_000];
        for (int i = 0; i < a.ints.length; i++) {
            a.ints[i] = i;
        }
        return a;
    }

    /**
     * An object above the link's frame is refused by the packer naming the parameter to raise,
     * and through links whose maximum is 1 MiB it travels alone.
     */
    @Test
    void anObjectAboveTheLinksFrameNamesParamsNetFrameBytesAndFitsALargerOne(@TempDir Path dir)
            throws Exception {
        MethodSpec method = Registry.method("handcoded");
        Codec<Arrays> codec = method.codec(ARRAYS);
        Arrays big = big();
        IoTimer timer = new IoTimer();
        Link[] small = links();
        small[0].setMaxFrame(64 << 10);
        Failure e = assertThrows(Failure.class, () -> new Packer(P, 4096).push(
            out -> codec.encode(big, out), small[0], timer));
        assertEquals("internal", e.kind);
        assertEquals("an object of 80008 bytes does not fit a frame of 65536 "
            + "(params.net_frame_bytes)", e.getMessage());
        assertEquals(0, small[0].bytesSent);

        Link[] pair = links();
        pair[0].setMaxFrame(1 << 20);
        pair[1].setMaxFrame(1 << 20);
        Path base = dir.resolve("got");
        CompletableFuture<Object[]> got = receive(pair[1], base, method);
        Packer packer = new Packer(P, 4096);
        packer.push(out -> codec.encode(big, out), pair[0], timer);
        Streamed sent = packer.finish(pair[0], timer);
        sent.end(pair[0], P, timer);
        Object[] received = got.get();
        assertEquals(sent, received[0]);
        assertEquals(1, sent.frames);
        assertTrue(sent.bytes > 64 << 10, sent.toString());
        assertTrue(checksum(List.of(big)).sameAs((Checksum) received[1]));
    }

    /** A stored object whose pages exceed the link's frame is refused before they are read. */
    @Test
    void storedPagesAboveTheLinksFrameAreRefusedNamingParamsNetFrameBytes(@TempDir Path dir)
            throws Exception {
        MethodSpec method = Registry.method("handcoded");
        Path source = dir.resolve("source");
        Tasks.writeFile(method.codec(ARRAYS), method, ARRAYS, List.of(big()), source, P,
            Index.noRun(), new IoTimer());
        Link[] pair = links();
        pair[0].setMaxFrame(64 << 10);
        IoTimer timer = new IoTimer();
        try (PageReader reader = new PageReader(source, new Index.Expect("arrays", "handcoded",
                null), timer, new PageReader.Buffer(false))) {
            Failure e = assertThrows(Failure.class, () -> new Shipper(reader, 4096, pair[0],
                timer).ship(0, 1));
            assertEquals("stored pages of 80008 bytes do not fit a frame of 65536 "
                + "(params.net_frame_bytes)", e.getMessage());
        }
        assertEquals(0, pair[0].bytesSent);
    }

    @Test
    void aNetworkPageMayNotExceedTheCellsFrame() throws Exception {
        assertEquals(100 << 20, NetPages.netPageBytes(100L << 20, P, 256 << 20));
        Failure e = assertThrows(Failure.class, () -> NetPages.netPageBytes(2L << 20, P,
            1 << 20));
        assertEquals("bad_request", e.kind);
        assertEquals("params.net_page_bytes must be between a storage page (64 bytes) plus one "
            + "entry and params.net_frame_bytes (1048576), got 2097152", e.getMessage());
    }

    /** A frame of the given entries (page, offset, length) and `pages` page bytes. */
    private static Payload frame(int pages, long[]... entries) {
        Payload p = new Payload(false);
        ByteBuffer b = p.fill(NetPages.HEAD + 16 * entries.length + pages)
            .order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(entries.length).putInt(0);
        for (long[] e : entries) {
            b.putLong(e[0]).putInt((int) e[1]).putInt((int) e[2]);
        }
        return p;
    }

    private static String refused(Payload p) {
        return refused(p, 0);
    }

    /** The refusal of a frame whose first `valid` objects are fine (only they are visited). */
    private static String refused(Payload p, int valid) {
        int[] visited = {0};
        Failure e = assertThrows(Failure.class, () -> NetPages.forEachObject(p, P, "server3", 4,
            (page, offset, length, f, at) -> {
                if (++visited[0] > valid) {
                    throw new AssertionError("an unchecked object was visited");
                }
            }));
        assertEquals("corrupt_input", e.kind);
        return e.getMessage();
    }

    @Test
    void entriesThatDoNotFitTheFrameAreRefusedNamingPeerFrameAndObject() {
        // past the frame's pages, across a page end, empty, overlapping, far beyond
        assertTrue(refused(frame(64, new long[] {0, 60, 8})).startsWith(
            "peer server3: network page 4: object 0 (page 0, offset 60, length 8)"));
        assertTrue(refused(frame(128, new long[] {0, 60, 8})).contains("object 0"));
        assertTrue(refused(frame(64, new long[] {0, 0, 0})).contains("length 0"));
        assertTrue(refused(frame(64, new long[] {0, 8, 8}, new long[] {0, 12, 8}), 1)
            .startsWith("peer server3: network page 4: object 1"));
        assertTrue(refused(frame(64, new long[] {-1, 0, 8})).contains("object 0"));
        assertTrue(refused(frame(64, new long[] {1L << 40, 0, 8})).contains("object 0"));
        // a large object must start a page
        assertTrue(refused(frame(256, new long[] {0, 8, 100})).contains("object 0"));
        // a count the frame cannot hold, and no zero word
        Payload huge = frame(0);
        huge.buffer().order(ByteOrder.LITTLE_ENDIAN).putInt(0, -1);
        assertTrue(refused(huge).contains("4294967295 entries do not fit its 8 bytes"));
        Payload noZero = frame(0);
        noZero.buffer().putInt(4, 1);
        assertTrue(refused(noZero).contains("has no entry count and zero word"));
    }

    @Test
    void aDecodeErrorNamesTheObject() {
        Payload p = frame(64, new long[] {0, 0, 8}, new long[] {0, 8, 8});
        Failure e = assertThrows(Failure.class, () -> NetPages.forEachObject(p, P, "leaf4", 0,
            (page, offset, length, f, at) -> {
                if (offset == 8) {
                    throw new serbench.wire.DecodeException(3, "a length past the object");
                }
            }));
        assertEquals("peer leaf4: network page 0: object 1: byte 3: a length past the object",
            e.getMessage());
    }

    @Test
    void aFrameMayNotFollowOneThatEndedInsideAStoragePage(@TempDir Path dir) throws Exception {
        try (Receiver r = new Receiver(dir.resolve("x"), P, new IoTimer())) {
            r.frame(frame(10, new long[] {0, 0, 8}), "s", null);
            Failure e = assertThrows(Failure.class, () -> r.frame(frame(10,
                new long[] {0, 0, 8}), "s", null));
            assertTrue(e.getMessage().contains("follows one that ended inside a storage page"));
        }
    }
}
