package serbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import serbench.paged.Index;
import serbench.paged.PageReader;

/**
 * The sort floor (PROTOCOL.md 5.2.1): sort_dedup with raw moves another method's objects
 * through runs of at most budget bytes and turn-taking merges into `sorted`, which holds
 * every input object once (duplicates too), in the order the two phases make.
 */
class SortFloorTest {
    private static final String STAMP = "0123456789abcdef0123456789abcdef";

    private static JsonNode respond(String line) {
        return Main.respond(line).response();
    }

    private static String request(String op, String task, String model, String method,
            String params) {
        return "{\"id\":1,\"op\":\"" + op + "\",\"task\":\"" + task + "\",\"model\":\"" + model
            + "\",\"method\":\"" + method + "\",\"depth\":\"\",\"variant\":\"\",\"params\":{"
            + params + "}}";
    }

    /** `copies` rounds of the model's vectors (so duplicates) as `method`'s paged file. */
    private static Path input(Path dir, String model, String method, int copies, int pageSize)
            throws Exception {
        List<String> lines = Files.readAllLines(Vectors.jsonl(model));
        List<String> all = new ArrayList<>();
        for (int k = 0; k < copies; k++) {
            all.addAll(lines);
        }
        Path jsonl = Files.write(dir.resolve("in.jsonl"), all);
        Path base = dir.resolve("in");
        JsonNode r = respond(request("encode", "", model, method, "\"input\":\"" + jsonl
            + "\",\"output\":\"" + base + "\",\"page_size\":" + pageSize));
        assertEquals("ok", r.get("status").asText(), r.toString());
        return base;
    }

    private static JsonNode floor(String model, Path base, Path out, long budget,
            int pageSize) {
        JsonNode r = respond(request("run", "sort_dedup", model, "raw", "\"input\":\"" + base
            + "\",\"output\":\"" + out + "\",\"budget_bytes\":" + budget + ",\"page_size\":"
            + pageSize + ",\"run_stamp\":\"" + STAMP + "\",\"cold\":false,\"warmups\":1,"
            + "\"repetitions\":2"));
        assertEquals("ok", r.get("status").asText(), r.toString());
        return r.get("result");
    }

    /** The raw read's set checksum of every object of `base`. */
    private static JsonNode rawChecksum(String model, Path base) throws Exception {
        long n = objects(model, base).size();
        JsonNode r = respond(request("run", "read_seq", model, "raw", "\"input\":\"" + base
            + "\",\"start\":0,\"n\":" + n + ",\"cold\":false,\"warmups\":0,\"repetitions\":1"));
        assertEquals("ok", r.get("status").asText(), r.toString());
        return r.at("/result/checksum");
    }

    /** Every object's bytes of `base`, in file order. */
    private static List<byte[]> objects(String model, Path base) throws Exception {
        List<byte[]> out = new ArrayList<>();
        try (PageReader r = new PageReader(base, new Index.Expect(model, null, null),
                new IoTimer(), new PageReader.Buffer(false))) {
            for (long n = 0; n < r.index.count; n++) {
                ByteBuffer page = r.object(n);
                byte[] object = new byte[r.index.length(n)];
                System.arraycopy(page.array(), r.index.offset(n), object, 0, object.length);
                out.add(object);
            }
        }
        return out;
    }

    /** Phase 1 by the protocol's words: chunks of at most `budget` bytes, at least 1 object. */
    private static ArrayDeque<List<byte[]>> runs(List<byte[]> objects, long budget) {
        ArrayDeque<List<byte[]>> runs = new ArrayDeque<>();
        List<byte[]> chunk = new ArrayList<>();
        long held = 0;
        for (byte[] o : objects) {
            if (!chunk.isEmpty() && held + o.length > budget) {
                runs.add(chunk);
                chunk = new ArrayList<>();
                held = 0;
            }
            chunk.add(o);
            held += o.length;
        }
        if (!chunk.isEmpty()) {
            runs.add(chunk);
        }
        return runs;
    }

    /** One merge by the protocol's words: an object from each run with any left, in turn. */
    private static List<byte[]> inTurn(List<List<byte[]>> group) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; out.size() < group.stream().mapToInt(List::size).sum(); i++) {
            for (List<byte[]> run : group) {
                if (i < run.size()) {
                    out.add(run.get(i));
                }
            }
        }
        return out;
    }

    /** What `sorted` must hold, and how many merges make it, with fan-in `fanIn`. */
    private record Expected(List<byte[]> sorted, long runs, long merges) {}

    private static Expected expected(List<byte[]> input, long budget, int fanIn) {
        ArrayDeque<List<byte[]>> runs = runs(input, budget);
        long made = runs.size();
        long merges = 1;
        while (runs.size() > fanIn) {
            List<List<byte[]>> group = new ArrayList<>();
            for (int k = 0; k < fanIn; k++) {
                group.add(runs.poll());
            }
            runs.add(inTurn(group));
            merges++;
        }
        return new Expected(inTurn(new ArrayList<>(runs)), made, merges);
    }

    @ParameterizedTest
    @CsvSource({
        // one merge of several runs; tweets (1.4 KB) span pages
        "tweet,handcoded,15,1024,16384,false",
        "trade,kryo,25,64,1000,false",
        // F = 3 and F = 2: passes of merges into new runs first
        "part,json,20,128,600,true",
        "trade,kryo,25,256,600,true",
        // a budget below every object: one object a run
        "customer,handcoded,10,256,1,true",
    })
    void sortedHoldsEveryInputObjectTakenInTurnFromTheRuns(String model, String method,
            int copies, int pageSize, long budget, boolean passes, @TempDir Path dir)
            throws Exception {
        Path base = input(dir, model, method, copies, pageSize);
        JsonNode c = check(model, base, dir, budget, pageSize);
        assertEquals(passes, c.get("merge_passes").asLong() > 1, c.toString());
    }

    @Test
    void aChunkMayFillTheBudgetExactly(@TempDir Path dir) throws Exception {
        Path base = input(dir, "trade", "kryo", 25, 64);
        List<byte[]> in = objects("trade", base);
        long budget = in.get(0).length + in.get(1).length;
        JsonNode c = check("trade", base, dir, budget, 64);
        assertEquals(budget, c.get("peak_held_bytes").asLong(), c.toString());
    }

    /**
     * The floor of `base` at `budget`: sorted holds every input object in the order the
     * protocol's two phases make, its checksum and counters say so, the samples carry both
     * phases, merged runs are gone. Returns the counters.
     */
    private static JsonNode check(String model, Path base, Path dir, long budget, int pageSize)
            throws Exception {
        Path out = Files.createDirectory(dir.resolve("out"));
        JsonNode r = floor(model, base, out, budget, pageSize);
        Path sorted = out.resolve("sorted");
        List<byte[]> in = objects(model, base);
        int fanIn = (int) Math.max(2, budget / pageSize - 1);
        Expected want = expected(in, budget, fanIn);

        // the same objects (count and set checksum of their bytes), duplicates kept
        JsonNode inputChecksum = rawChecksum(model, base);
        assertEquals(inputChecksum, rawChecksum(model, sorted));
        assertEquals(inputChecksum, r.get("checksum"));
        assertEquals(in.size(), r.at("/checksum/count").asLong());
        // in the order the two phases make
        List<byte[]> got = objects(model, sorted);
        assertEquals(want.sorted().size(), got.size());
        for (int k = 0; k < got.size(); k++) {
            assertArrayEquals(want.sorted().get(k), got.get(k), "object " + k + " of sorted");
        }

        JsonNode c = r.get("counters");
        assertEquals(in.size(), c.get("input_objects").asLong(), c.toString());
        assertEquals(in.size(), c.get("output_objects").asLong(), c.toString());
        assertEquals(want.runs(), c.get("runs").asLong(), c.toString());
        assertTrue(c.get("runs").asLong() > 1, c.toString());
        assertEquals(want.merges(), c.get("merge_passes").asLong(), c.toString());
        assertEquals(budget, c.get("budget_bytes").asLong());
        assertEquals(Files.size(serbench.paged.PagedFile.data(sorted)),
            c.get("output_bytes").asLong());
        long objectBytes = in.stream().mapToLong(o -> o.length).sum();
        assertTrue(c.get("output_bytes").asLong() >= objectBytes, c.toString());
        assertTrue(c.get("run_bytes").asLong() >= objectBytes, c.toString());
        assertTrue(c.get("peak_held_bytes").asLong() <= Math.max(budget,
            in.stream().mapToLong(o -> o.length).max().orElseThrow()), c.toString());
        assertTrue(c.get("peak_rss_bytes").asLong() > 0 && c.get("rss_start_bytes").asLong() > 0);

        assertEquals(3, r.get("samples").size());
        for (JsonNode s : r.get("samples")) {
            long p1 = s.get("phase1_ns").asLong();
            long p2 = s.get("phase2_ns").asLong();
            assertTrue(p1 > 0 && p2 > 0 && p1 + p2 <= s.get("total_ns").asLong(), s.toString());
        }
        try (Stream<Path> left = Files.list(out)) {
            assertEquals(List.of("sorted.index", "sorted.pages"),
                left.map(p -> p.getFileName().toString()).sorted().toList(),
                "merged runs are deleted");
        }
        return c;
    }

    @Test
    void theFilesNameTheInputsModelAndMethodAndThisRun(@TempDir Path dir) throws Exception {
        Path base = input(dir, "part", "json", 5, 128);
        Path out = Files.createDirectory(dir.resolve("out"));
        floor("part", base, out, 300, 128);
        try (PageReader r = new PageReader(out.resolve("sorted"),
                new Index.Expect("part", null, 128), new IoTimer(),
                new PageReader.Buffer(false))) {
            assertEquals("part", r.index.model);
            assertEquals("json", r.index.method);
            assertEquals("java", r.index.writer);
            assertArrayEquals(HexFormat.of().parseHex(STAMP), r.index.runStamp);
        }
    }

    @Test
    void theFloorIsListedAndTakesNoDepth(@TempDir Path dir) throws Exception {
        JsonNode info = respond("{\"id\":1,\"op\":\"info\"}").get("result");
        assertEquals("[\"write\",\"sort_dedup\"]", info.at("/methods/raw/floors").toString());
        Path base = input(dir, "part", "handcoded", 2, 256);
        JsonNode r = respond(request("run", "sort_dedup", "part", "raw", "\"input\":\"" + base
            + "\",\"output\":\"" + dir + "\",\"budget_bytes\":1000,\"cold\":false,"
            + "\"warmups\":0,\"repetitions\":1").replace("\"depth\":\"\"",
            "\"depth\":\"materialize\""));
        assertEquals(Failure.UNSUPPORTED, r.get("status").asText(), r.toString());
    }
}
