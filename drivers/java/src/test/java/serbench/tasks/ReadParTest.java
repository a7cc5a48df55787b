package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import serbench.Depth;
import serbench.Failure;
import serbench.ModelType;
import serbench.Params;
import serbench.Registry;
import serbench.methods.MethodSpec;

/** read_par: slices, and the set checksum of the selection whatever the thread count. */
class ReadParTest {
    @Test
    void slicesAreContiguousDisjointAndCoverTheSelection() {
        Reads.Selection range = new Reads.Selection(10, 7, null);
        List<long[]> parts = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Reads.Selection s = ReadPar.slice(range, t, 3);
            parts.add(new long[] {s.start(), s.n()});
        }
        assertArrayEquals(new long[] {10, 2, 12, 2, 14, 3},
            parts.stream().flatMapToLong(java.util.Arrays::stream).toArray());
        Reads.Selection ids = new Reads.Selection(0, 0, new long[] {5, 5, 1, 9});
        int[] lens = new int[5];
        for (int t = 0; t < 5; t++) {
            lens[t] = ReadPar.slice(ids, t, 5).ids().length;
        }
        assertArrayEquals(new int[] {0, 1, 1, 1, 1}, lens);
    }

    @ParameterizedTest
    @CsvSource({"handcoded,trade,materialize,1", "handcoded,tweet,access,3",
        "handcoded_direct,part,access,4", "kryo,trade,materialize,2",
        "json,customer,materialize,5"})
    void seqReadsTheRangeAndRandTheIds(String id, String modelId, String depth, int threads,
            @TempDir Path dir) throws Exception {
        MethodSpec method = Registry.method(id);
        ModelType<?> model = ModelType.byId(modelId);
        check(method, model, Depth.parse(depth), threads, dir);
    }

    private static <T> void check(MethodSpec method, ModelType<T> model, Depth depth,
            int threads, Path dir) throws Exception {
        Path base = dir.resolve("f");
        List<T> objects = TaskFiles.write(method, model, 40, base, 512);
        ObjectNode p = TaskFiles.params(1, 2);
        p.put("input", base.toString());
        p.put("threads", threads);
        p.put("mode", "seq");
        p.put("start", 3);
        p.put("n", 30);
        JsonNode seq = run(method, model, depth, new Params(p));
        assertEquals(TaskFiles.setChecksum(model, objects.subList(3, 33)).json(),
            seq.get("checksum"));
        assertEquals(threads, seq.get("counters").get("threads").asInt());
        assertTrue(seq.get("counters").get("pages_read").asLong() >= threads);
        for (JsonNode s : seq.get("samples")) {
            assertEquals(threads, s.get("thread_ns").size());
            assertTrue(s.get("total_ns").asLong() >= s.get("io_ns").asLong());
        }
        long[] ids = {39, 0, 7, 7, 21, 2, 39};
        Path idFile = dir.resolve("ids");
        ByteBuffer b = ByteBuffer.allocate(8 * ids.length).order(ByteOrder.LITTLE_ENDIAN);
        b.asLongBuffer().put(ids);
        Files.write(idFile, b.array());
        p.put("mode", "rand");
        p.put("ids", idFile.toString());
        p.put("n", ids.length);
        List<T> chosen = new ArrayList<>();
        for (long id : ids) {
            chosen.add(objects.get((int) id));
        }
        JsonNode rand = run(method, model, depth, new Params(p));
        assertEquals(TaskFiles.setChecksum(model, chosen).json(), rand.get("checksum"));
    }

    @Test
    void anIdPastTheEndIsOutOfRangeAndZeroThreadsABadRequest(@TempDir Path dir)
            throws Exception {
        MethodSpec method = Registry.method("handcoded");
        ModelType<?> model = ModelType.byId("trade");
        Path base = dir.resolve("f");
        TaskFiles.write(method, model, 5, base, 256);
        ObjectNode p = TaskFiles.params(0, 1);
        p.put("input", base.toString());
        p.put("threads", 2);
        p.put("mode", "seq");
        p.put("start", 3);
        p.put("n", 3);
        Failure f = assertThrows(Failure.class,
            () -> run(method, model, Depth.MATERIALIZE, new Params(p)));
        assertEquals("out_of_range", f.kind);
        p.put("threads", 0);
        assertEquals("bad_request", assertThrows(Failure.class,
            () -> run(method, model, Depth.MATERIALIZE, new Params(p))).kind);
    }

    private static <T> ObjectNode run(MethodSpec method, ModelType<T> model, Depth depth,
            Params params) throws Exception {
        return new ReadPar().run(method.codec(model), method, model, depth, params);
    }
}
