package serbench.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Registry;
import serbench.Vectors;
import serbench.methods.MethodSpec;
import serbench.model.Entry;
import serbench.model.SparseVector;
import serbench.model.TotalOrder;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.tasks.Checksum;
import serbench.tasks.Json;
import serbench.tasks.Reads;
import serbench.tasks.Tasks;

/**
 * One loopback cell per network task, every node a real `Node.listen` reached only through
 * its socket, checked as the harness checks it: counts and checksums per repetition and the
 * output files read back through the validating reader.
 */
class NodeTest {
    private static final int P = 256;

    @SuppressWarnings("unchecked")
    private static <T> ModelType<T> model(String id) {
        return (ModelType<T>) ModelType.byId(id);
    }

    private static ObjectNode params() {
        return Json.MAPPER.createObjectNode().put("net_page_bytes", 2048)
            .put("peer_timeout_ms", 10_000);
    }

    /** `count` objects cycling through the model's vectors, as the method's paged file. */
    private static <T> List<T> write(MethodSpec method, ModelType<T> model, int count,
            Path base) throws Exception {
        List<T> vectors = Json.load(Vectors.jsonl(model.id), model);
        List<T> objects = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            objects.add(vectors.get(i % vectors.size()));
        }
        Tasks.writeFile(method.codec(model), method, model, objects, base, P, Index.noRun(),
            new IoTimer());
        return objects;
    }

    private static <T> Checksum setChecksum(ModelType<T> model, List<T> objects) {
        Checksum c = new Checksum();
        objects.forEach(o -> c.add(model.hash(o)));
        return c;
    }

    /** Every object of a paged file read back at materialize, as the harness's scan does. */
    private static <T> Checksum readBack(MethodSpec method, ModelType<T> model, Path base)
            throws Failure {
        Reads.Outcome o = Reads.read(method.codec(model), method, model, base,
            new Reads.Selection(0, -1, null), Depth.MATERIALIZE, P,
            new PageReader.Buffer(method.directPages()), new IoTimer());
        Checksum c = new Checksum();
        c.count = o.count();
        c.sum = o.sum();
        return c;
    }

    @ParameterizedTest
    @CsvSource({"handcoded,ram", "handcoded,disk", "handcoded,decode", "json,ram",
        "json,decode", "handcoded_direct,decode", "kryo,ram"})
    void aFetchMovesExactlyEachServersObjects(String id, String variant, @TempDir Path dir)
            throws Exception {
        MethodSpec method = Registry.method(id);
        ModelType<Object> part = model("part");
        Path input = dir.resolve("part");
        List<Object> objects = write(method, part, 90, input);
        Path output = Files.createDirectory(dir.resolve("out"));
        try (LoopbackCell cell = new LoopbackCell("net_fetch", id, "part", variant)) {
            for (int s = 0; s < 2; s++) {
                cell.add(new LoopbackCell.Spec("server" + s, "server", params()
                    .put("input", input.toString()).put("start", 10 + 40 * s).put("n", 40),
                    List.of(), 1));
            }
            cell.add(new LoopbackCell.Spec("client", "client", params()
                .put("output", output.toString()).put("page_size", P),
                List.of("server0", "server1"), 0));
            cell.wire();
            Checksum expected = setChecksum(part, objects.subList(10, 90));
            for (int rep = 0; rep < 2; rep++) {
                Map<String, ObjectNode> reports = cell.go(rep);
                ObjectNode client = reports.get("client");
                assertEquals(80, client.get("objects").asLong(), client.toString());
                assertEquals(rep, client.get("rep").asInt());
                assertEquals(reports.get("server0").get("bytes_sent").asLong()
                    + reports.get("server1").get("bytes_sent").asLong(),
                    client.get("bytes_received").asLong());
                assertEquals(40, reports.get("server1").get("objects").asLong());
                long total = client.get("total_ns").asLong();
                assertEquals(total, client.get("cpu_ns").asLong() + client.get("io_ns").asLong());
                assertTrue(client.get("peak_rss_bytes").asLong() > 0);
                JsonNode servers = client.get("servers");
                assertEquals("server0", servers.get(0).get("server").asText());
                assertTrue(servers.get(1).get("frames").asLong() >= 2, servers.toString());
                if (variant.equals("decode")) {
                    assertEquals(expected.json().toString(), client.get("checksum").toString());
                } else {
                    assertTrue(client.get("checksum").isNull());
                }
            }
            cell.shutdown();
        }
        Checksum got = new Checksum();
        for (String s : new String[] {"server0", "server1"}) {
            Checksum c = readBack(method, part, output.resolve(s));
            got.count += c.count;
            got.sum += c.sum;
        }
        assertTrue(setChecksum(part, objects.subList(10, 90)).sameAs(got));
    }

    /** A sparse vector of dimension 1000 with entries at every `step`-th position from `from`. */
    private static SparseVector vector(int from, int step, double value) {
        List<Entry> entries = new ArrayList<>();
        for (long p = from; p < 1000; p += step) {
            Entry e = new Entry();
            e.position = p;
            e.value = value + p / 3.0;
            entries.add(e);
        }
        SparseVector v = new SparseVector();
        v.dimension = 1000;
        v.entries = entries.toArray(new Entry[0]);
        return v;
    }

    @ParameterizedTest
    @ValueSource(strings = {"handcoded", "protobuf"})
    void aTreeSumsItsVectorsInTheFixedOrder(String id, @TempDir Path dir) throws Exception {
        ModelType<SparseVector> sparse = model("sparse");
        String[] names = {"root0", "leaf1", "leaf2"};
        SparseVector[] own = {vector(0, 3, 0.1), vector(1, 2, 1e16), vector(0, 5, -1e16)};
        for (int i = 0; i < 3; i++) {
            try (var g = Json.FACTORY.createGenerator(dir.resolve(names[i] + ".jsonl").toFile(),
                    com.fasterxml.jackson.core.JsonEncoding.UTF8)) {
                sparse.writeJson(own[i], g);
            }
        }
        Path output = Files.createDirectory(dir.resolve("out"));
        // own, then the children by name (leaf1 before leaf2) whatever order they connect in
        SparseVector total = NetAggregate.mergeSum(NetAggregate.mergeSum(own[0], own[1], "x"),
            own[2], "x");
        try (LoopbackCell cell = new LoopbackCell("net_aggregate", id, "sparse", "")) {
            cell.add(new LoopbackCell.Spec("leaf2", "tree", params().put("page_size", P)
                .put("input", dir.resolve("leaf2.jsonl").toString()), List.of("root0"), 0));
            cell.add(new LoopbackCell.Spec("root0", "tree", params().put("page_size", P)
                .put("input", dir.resolve("root0.jsonl").toString())
                .put("output", output.toString()), List.of(), 2));
            cell.add(new LoopbackCell.Spec("leaf1", "tree", params().put("page_size", P)
                .put("input", dir.resolve("leaf1.jsonl").toString()), List.of("root0"), 0));
            cell.wire();
            Map<String, ObjectNode> reports = cell.go(0);
            ObjectNode root = reports.get("root0");
            Checksum want = new Checksum();
            want.add(sparse.hash(total));
            assertEquals(want.json().toString(), root.get("checksum").toString());
            assertEquals(total.entries.length, root.get("entries").asLong());
            assertEquals(0, reports.get("leaf1").get("bytes_received").asLong());
            assertTrue(reports.get("leaf1").get("bytes_sent").asLong() > 2048);
            cell.go(1);
            cell.shutdown();
            MethodSpec method = Registry.method(id);
            assertTrue(want.sameAs(readBack(method, sparse, output.resolve("sum"))));
        }
    }

    /**
     * The cell's net_frame_bytes bounds every data link, dialed and accepted: a leaf's vector
     * of about 96 KB (hand-coded) is refused by a leaf allowed 64 KiB, naming the parameter, by
     * a root allowed 64 KiB from the frame's header, and arrives whole where both allow 1 MiB.
     */
    @Test
    void theCellsFrameLimitBoundsEveryDataLink(@TempDir Path dir) throws Exception {
        ModelType<SparseVector> sparse = model("sparse");
        SparseVector big = new SparseVector();
        big.dimension = 100_000;
        big.entries = new Entry[6000];
        for (int i = 0; i < big.entries.length; i++) {
            big.entries[i] = new Entry();
            big.entries[i].position = 3L * i;
            big.entries[i].value = i / 7.0;
        }
        SparseVector small = new SparseVector();
        small.dimension = 100_000;
        small.entries = new Entry[] {big.entries[1]};
        for (Map.Entry<String, SparseVector> own : Map.of("leaf1", big, "root0", small)
                .entrySet()) {
            try (var g = Json.FACTORY.createGenerator(dir.resolve(own.getKey() + ".jsonl")
                    .toFile(), com.fasterxml.jackson.core.JsonEncoding.UTF8)) {
                sparse.writeJson(own.getValue(), g);
            }
        }
        int kib64 = 64 << 10;
        int mib = 1 << 20;
        String[] expected = {"does not fit a frame of 65536 (params.net_frame_bytes)",
            "exceeds the maximum 65536", null};
        int[][] limits = {{kib64, mib}, {mib, kib64}, {mib, mib}};
        for (int k = 0; k < limits.length; k++) {
            Path output = Files.createDirectories(dir.resolve("out" + k));
            try (LoopbackCell cell = new LoopbackCell("net_aggregate", "handcoded", "sparse",
                    "")) {
                cell.add(new LoopbackCell.Spec("root0", "tree", params().put("page_size", P)
                    .put("net_frame_bytes", limits[k][1])
                    .put("input", dir.resolve("root0.jsonl").toString())
                    .put("output", output.toString()), List.of(), 1));
                cell.add(new LoopbackCell.Spec("leaf1", "tree", params().put("page_size", P)
                    .put("net_frame_bytes", limits[k][0])
                    .put("input", dir.resolve("leaf1.jsonl").toString()), List.of("root0"), 0));
                cell.wire();
                if (expected[k] != null) {
                    Failure e = assertThrows(Failure.class, () -> cell.go(0));
                    assertTrue(e.getMessage().startsWith("peer root0: failed: network: peer "
                        + "leaf1: "), e.getMessage());
                    assertTrue(e.getMessage().contains(expected[k]), e.getMessage());
                    continue;
                }
                Map<String, ObjectNode> reports = cell.go(0);
                Checksum want = new Checksum();
                want.add(sparse.hash(NetAggregate.mergeSum(small, big, "x")));
                assertEquals(want.json().toString(), reports.get("root0").get("checksum")
                    .toString());
                assertTrue(reports.get("leaf1").get("bytes_sent").asLong() > kib64);
                cell.shutdown();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"handcoded", "msgpack"})
    void aTreeSortMergeEmitsEveryObjectInTotalOrder(String id, @TempDir Path dir)
            throws Exception {
        MethodSpec method = Registry.method(id);
        ModelType<Object> tweet = model("tweet");
        Path input = dir.resolve("tweet");
        List<Object> objects = write(method, tweet, 7 * 12, input);
        Path output = Files.createDirectory(dir.resolve("out"));
        String[] names = {"root0", "middle1", "middle2", "leaf3", "leaf4", "leaf5", "leaf6"};
        try (LoopbackCell cell = new LoopbackCell("net_sort_merge", id, "tweet", "")) {
            for (int i = 0; i < 7; i++) {
                ObjectNode p = params().put("input", input.toString()).put("start", 12 * i)
                    .put("n", 12);
                if (i == 0) {
                    p.put("output", output.toString());
                }
                List<String> parent = i == 0 ? List.of() : List.of(names[(i - 1) / 2]);
                cell.add(new LoopbackCell.Spec(names[i], "tree", p, parent, i < 3 ? 2 : 0));
            }
            cell.wire();
            @SuppressWarnings("unchecked")
            Comparator<Object> order = (Comparator<Object>) TotalOrder.of("tweet");
            List<Object> sorted = new ArrayList<>(objects);
            sorted.sort(order);
            Hasher sequence = new Hasher();
            sorted.forEach(o -> sequence.word(tweet.hash(o)));
            for (int rep = 0; rep < 2; rep++) {
                Map<String, ObjectNode> reports = cell.go(rep);
                ObjectNode root = reports.get("root0");
                assertEquals(84, root.get("objects").asLong(), root.toString());
                assertEquals(Hasher.hex(sequence.finish()), root.get("sequence").asText());
                assertEquals(setChecksum(tweet, objects).json().toString(),
                    root.get("checksum").toString());
                assertEquals(36, reports.get("middle1").get("objects").asLong());
            }
            cell.shutdown();
        }
        assertTrue(setChecksum(tweet, objects).sameAs(readBack(method, tweet,
            output.resolve("sorted"))));
    }

    @Test
    void aPeerOfAnotherMethodIsRefusedAndBothNodesFail(@TempDir Path dir) throws Exception {
        MethodSpec method = Registry.method("handcoded");
        Path input = dir.resolve("part");
        write(method, model("part"), 10, input);
        try (LoopbackCell cell = new LoopbackCell("net_fetch", "handcoded", "part", "disk")) {
            cell.add(new LoopbackCell.Spec("server0", "server", params()
                .put("input", input.toString()).put("start", 0).put("n", 10), List.of(), 1));
            cell.add(new LoopbackCell.Spec("client", "client", params()
                .put("output", dir.toString()), List.of("server0"), 0));
            ObjectNode json = Json.MAPPER.createObjectNode().put("op", "setup")
                .put("task", "net_fetch").put("method", "json").put("model", "part")
                .put("variant", "disk");
            Failure e = assertThrows(Failure.class, () -> cell.wire(Map.of("client", json)));
            assertTrue(e.getMessage().contains(
                "speaks method 'json', this node speaks 'handcoded'"), e.getMessage());
            assertEquals(1, cell.exit("server0"));
            assertEquals(1, cell.exit("client"));
        }
    }

    @Test
    void strangersAreRefusedAndTheCellStillRuns(@TempDir Path dir) throws Exception {
        MethodSpec method = Registry.method("handcoded");
        Path input = dir.resolve("part");
        write(method, model("part"), 10, input);
        try (LoopbackCell cell = new LoopbackCell("net_fetch", "handcoded", "part", "disk")) {
            cell.add(new LoopbackCell.Spec("server0", "server", params()
                .put("input", input.toString()).put("start", 0).put("n", 10), List.of(), 1));
            // in the server's queue before its client: it accepts them first
            Map<String, Link> strangers = Map.of("no token", cell.knock("server0", ""),
                "wrong token", cell.knock("server0", LoopbackCell.TOKEN.toUpperCase()));
            cell.add(new LoopbackCell.Spec("client", "client", params()
                .put("output", dir.toString()).put("page_size", P), List.of("server0"), 0));
            cell.wire();
            assertEquals(10, cell.go(0).get("client").get("objects").asLong());
            cell.shutdown();
            for (Map.Entry<String, Link> s : strangers.entrySet()) {
                Failure e = assertThrows(Failure.class, () -> s.getValue().recv(
                    new Payload(false), new IoTimer()));
                assertTrue(e.getMessage().matches("peer server0: failed: network: peer "
                    + "127\\.0\\.0\\.1:\\d+: " + s.getKey()), e.getMessage());
            }
        }
        assertEquals(1, Node.listen("127.0.0.1:0", false, "", new java.io.PrintStream(
            java.io.OutputStream.nullOutputStream())));
    }

    @Test
    void aSetupItCannotRunIsReportedNotThrown(@TempDir Path dir) throws Exception {
        try (LoopbackCell cell = new LoopbackCell("net_aggregate", "handcoded", "part", "")) {
            cell.add(new LoopbackCell.Spec("root0", "tree", params()
                .put("input", dir.resolve("none.jsonl").toString()), List.of(), 0));
            Failure e = assertThrows(Failure.class, () -> cell.wire());
            assertEquals("peer root0: failed: unsupported: net_aggregate sums sparse vectors, "
                + "not part", e.getMessage());
            assertEquals(1, cell.exit("root0"));
        }
        try (LoopbackCell cell = new LoopbackCell("net_fetch", "handcoded", "part", "disk")) {
            cell.add(new LoopbackCell.Spec("server0", "server", params()
                .put("input", dir.resolve("none").toString()).put("start", 0).put("n", 1),
                List.of(), 1));
            Failure e = assertThrows(Failure.class, () -> cell.wire());
            assertTrue(e.getMessage().startsWith("peer server0: failed: not_found: "),
                e.getMessage());
        }
        // a data link's maximum frame out of its bounds, before anything is loaded
        try (LoopbackCell cell = new LoopbackCell("net_aggregate", "handcoded", "sparse", "")) {
            cell.add(new LoopbackCell.Spec("root0", "tree", params().put("net_frame_bytes", 4096)
                .put("input", dir.resolve("none.jsonl").toString()), List.of(), 0));
            Failure e = assertThrows(Failure.class, () -> cell.wire());
            assertEquals("peer root0: failed: bad_request: params.net_frame_bytes must be "
                + "between 65536 and 1073741824, got 4096", e.getMessage());
        }
    }

    @Test
    void aServerThatDiesMidCellIsNamedByTheClient(@TempDir Path dir) throws Exception {
        MethodSpec method = Registry.method("handcoded");
        Path input = dir.resolve("part");
        write(method, model("part"), 10, input);
        try (LoopbackCell cell = new LoopbackCell("net_fetch", "handcoded", "part", "disk")) {
            cell.add(new LoopbackCell.Spec("server0", "server", params()
                .put("input", input.toString()).put("start", 0).put("n", 10), List.of(), 1));
            cell.add(new LoopbackCell.Spec("client", "client", params()
                .put("output", dir.toString()).put("page_size", P), List.of("server0"), 0));
            cell.wire();
            cell.go(0);
            // the server's harness goes away: it exits, closing its peer connection mid-cell
            cell.control("server0").close();
            assertEquals(1, cell.exit("server0"));
            ObjectNode go = Json.MAPPER.createObjectNode().put("op", "go").put("rep", 1)
                .put("warmup", false);
            cell.control("client").sendJson(FrameKind.CONTROL, go, new IoTimer());
            Failure e = assertThrows(Failure.class, () -> cell.control("client")
                .recvJson(FrameKind.CONTROL, new IoTimer()));
            assertTrue(e.getMessage().startsWith("peer client: failed: network: peer server0: "),
                e.getMessage());
            assertEquals(1, cell.exit("client"));
        }
    }

    @Test
    void aSilentPeerIsDeadAfterThePeerTimeoutAndNamed(@TempDir Path dir) throws Exception {
        MethodSpec method = Registry.method("handcoded");
        Path input = dir.resolve("part");
        write(method, model("part"), 10, input);
        try (LoopbackCell cell = new LoopbackCell("net_fetch", "handcoded", "part", "disk")) {
            cell.add(new LoopbackCell.Spec("server0", "server", params()
                .put("input", input.toString()).put("start", 0).put("n", 10)
                .put("peer_timeout_ms", 300), List.of(), 1));
            cell.add(new LoopbackCell.Spec("client", "client", params()
                .put("output", dir.toString()).put("page_size", P), List.of("server0"), 0));
            cell.wire();
            // only the server is told to go: its client never asks
            ObjectNode go = Json.MAPPER.createObjectNode().put("op", "go").put("rep", 0)
                .put("warmup", false);
            cell.control("server0").sendJson(FrameKind.CONTROL, go, new IoTimer());
            Failure e = assertThrows(Failure.class, () -> cell.control("server0")
                .recvJson(FrameKind.CONTROL, new IoTimer()));
            assertEquals("peer server0: failed: network: peer client: sent nothing within the "
                + "peer timeout (hung or dead?)", e.getMessage());
            assertEquals(1, cell.exit("server0"));
        }
    }

    @Test
    void infoListsTheNetworkTasks() {
        JsonNode info = serbench.Info.info();
        List<String> tasks = new ArrayList<>();
        info.get("net_tasks").forEach(t -> tasks.add(t.asText()));
        assertEquals(List.of("net_fetch", "net_aggregate", "net_sort_merge"), tasks);
        assertNull(info.get("tasks").findValue("net_fetch"));
    }
}
