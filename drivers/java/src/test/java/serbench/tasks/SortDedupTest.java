package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.Registry;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.model.TotalOrder;
import serbench.paged.Index;
import serbench.paged.PageReader;

/**
 * sort_dedup: the output file holds each distinct input object once, strictly increasing in
 * the total order, and the result's count and sequence checksum are that file's; small budgets
 * make many runs and several merge passes. (tests/test_java_tasks.py checks the order itself
 * against the harness's Python reference.)
 */
class SortDedupTest {
    @ParameterizedTest
    @CsvSource({"handcoded,trade,300,1", "handcoded,tweet,2000,1", "kryo,part,1,1",
        "json_gzip,customer,800,2", "handcoded_direct,org,200,1", "handcoded,arrays,1000000,2"})
    void writesTheDistinctObjectsInOrder(String id, String modelId, long budget, int warmups,
            @TempDir Path dir) throws Exception {
        check(Registry.method(id), ModelType.byId(modelId), budget, warmups, dir);
    }

    private static <T> void check(MethodSpec method, ModelType<T> model, long budget,
            int warmups, Path dir) throws Exception {
        Path base = dir.resolve("in");
        List<T> objects = TaskFiles.write(method, model, 60, base, 512);
        Path out = Files.createDirectory(dir.resolve("out"));
        JsonNode r = sort(method, model, base, out, budget, warmups);
        List<T> sorted = readAll(method, model, out.resolve("sorted"));
        @SuppressWarnings("unchecked")
        Comparator<T> order = (Comparator<T>) TotalOrder.of(model.id);
        List<T> distinct = new ArrayList<>();
        for (T o : objects) {
            if (distinct.stream().noneMatch(d -> model.same(d, o))) {
                distinct.add(o);
            }
        }
        assertEquals(distinct.size(), sorted.size());
        assertTrue(distinct.size() < objects.size(), "the input holds duplicates");
        Hasher sequence = new Hasher();
        for (int k = 0; k < sorted.size(); k++) {
            T o = sorted.get(k);
            assertTrue(distinct.stream().anyMatch(d -> model.same(d, o)));
            assertTrue(k == 0 || order.compare(sorted.get(k - 1), o) < 0, "strictly increasing");
            sequence.word(model.hash(o));
        }
        assertEquals(sorted.size(), r.get("checksum").get("count").asLong());
        assertEquals(Hasher.hex(sequence.finish()), r.get("checksum").get("sum").asText());
        JsonNode c = r.get("counters");
        assertEquals(objects.size(), c.get("input_objects").asLong());
        assertTrue(c.get("peak_held_bytes").asLong() > 0);
        if (budget < 1000) {
            // each run holds as many objects as fit the budget (at least one)
            assertTrue(c.get("runs").asLong() > 5, c.toString());
            assertTrue(c.get("merge_passes").asLong() > 1, c.toString());
        } else if (budget >= 1_000_000) {
            assertEquals(1, c.get("runs").asLong());
        }
        try (Stream<Path> left = Files.list(out)) {
            assertEquals(List.of("sorted.index", "sorted.pages"),
                left.map(p -> p.getFileName().toString()).sorted().toList(),
                "merged runs are deleted");
        }
        for (JsonNode s : r.get("samples")) {
            long phases = s.get("phase1_ns").asLong() + s.get("phase2_ns").asLong();
            assertTrue(phases > 0 && phases <= s.get("total_ns").asLong());
        }
    }

    private static <T> JsonNode sort(MethodSpec method, ModelType<T> model, Path base,
            Path out, long budget, int warmups) throws Exception {
        ObjectNode p = TaskFiles.params(warmups, 1);
        p.put("input", base.toString());
        p.put("output", out.toString());
        p.put("budget_bytes", budget);
        p.put("page_size", 256);
        return new SortDedup().run(method.codec(model), method, model, Depth.MATERIALIZE,
            new Params(p));
    }

    private static <T> List<T> readAll(MethodSpec method, ModelType<T> model, Path base)
            throws Exception {
        Codec<T> codec = method.codec(model);
        List<T> out = new ArrayList<>();
        try (PageReader r = new PageReader(base, new Index.Expect(model.id, method.id(), 256),
                new IoTimer(), new PageReader.Buffer(method.directPages()))) {
            for (long i = 0; i < r.index.count; i++) {
                out.add(Reads.decode(codec, r, i));
            }
        }
        return out;
    }

    @Test
    void accessRawAtADepthAndAMissingDirectoryAreRefused(@TempDir Path dir) throws Exception {
        refusals(Registry.method("handcoded"), ModelType.byId("trade"), dir);
    }

    private static <T> void refusals(MethodSpec method, ModelType<T> model, Path dir)
            throws Exception {
        Path base = dir.resolve("in");
        TaskFiles.write(method, model, 5, base, 256);
        ObjectNode p = TaskFiles.params(0, 1);
        p.put("input", base.toString());
        p.put("output", dir.resolve("nowhere").toString());
        p.put("budget_bytes", 1000);
        p.put("page_size", 256);
        assertEquals("not_found", assertThrows(Failure.class, () -> new SortDedup().run(
            method.codec(model), method, model, Depth.MATERIALIZE, new Params(p))).kind);
        assertEquals(Failure.UNSUPPORTED, assertThrows(Failure.class, () -> new SortDedup().run(
            method.codec(model), method, model, Depth.ACCESS, new Params(p))).kind);
        // raw is the sort floor (SortFloorTest), at no depth
        MethodSpec raw = Registry.method("raw");
        assertEquals("not_found", assertThrows(Failure.class, () -> new SortDedup().run(
            raw.codec(model), raw, model, Depth.NONE, new Params(p))).kind);
        assertEquals(Failure.UNSUPPORTED, assertThrows(Failure.class, () -> new SortDedup().run(
            raw.codec(model), raw, model, Depth.MATERIALIZE, new Params(p))).kind);
    }
}
