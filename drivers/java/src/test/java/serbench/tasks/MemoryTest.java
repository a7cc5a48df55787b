package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
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

/** memory: the kept objects' checksum, and a retained heap that grows with n. */
class MemoryTest {
    @ParameterizedTest
    @CsvSource({"handcoded,trade", "kryo,tweet", "handcoded_direct,customer"})
    void keepsTheObjectsAndMeasuresTheirHeap(String id, String modelId, @TempDir Path dir)
            throws Exception {
        check(Registry.method(id), ModelType.byId(modelId), dir);
    }

    private static <T> void check(MethodSpec method, ModelType<T> model, Path dir)
            throws Exception {
        Path base = dir.resolve("f");
        List<T> objects = TaskFiles.write(method, model, 4000, base, 4096);
        JsonNode small = run(method, model, base, 400);
        JsonNode large = run(method, model, base, 4000);
        assertEquals(TaskFiles.setChecksum(model, objects).json(), large.get("checksum"));
        JsonNode c = large.get("counters");
        assertEquals(Memory.ACCOUNTING, c.get("accounting").asText());
        assertTrue(c.get("peak_rss_bytes").asLong() >= c.get("rss_start_bytes").asLong() / 2);
        assertTrue(c.get("max_heap_bytes").asLong() > 0);
        // every object is at least a header: ten times the objects, (much) more heap
        long few = small.get("counters").get("retained_bytes").asLong();
        long many = c.get("retained_bytes").asLong();
        assertTrue(few >= 400L * 16 && many > 5 * few, few + " then " + many);
        assertEquals((double) many / 4000, c.get("retained_bytes_per_object").asDouble());
    }

    private static <T> JsonNode run(MethodSpec method, ModelType<T> model, Path base, int n)
            throws Exception {
        ObjectNode p = TaskFiles.params(0, 2);
        p.put("input", base.toString());
        p.put("n", n);
        return new Memory().run(method.codec(model), method, model, Depth.MATERIALIZE,
            new Params(p));
    }

    @Test
    void accessIsUnsupportedAndTooManyObjectsOutOfRange(@TempDir Path dir) throws Exception {
        failures(Registry.method("handcoded"), ModelType.byId("trade"), dir);
    }

    private static <T> void failures(MethodSpec method, ModelType<T> model, Path dir)
            throws Exception {
        Path base = dir.resolve("f");
        TaskFiles.write(method, model, 5, base, 256);
        ObjectNode p = TaskFiles.params(0, 1);
        p.put("input", base.toString());
        p.put("n", 6);
        assertEquals("out_of_range", assertThrows(Failure.class, () -> new Memory().run(
            method.codec(model), method, model, Depth.MATERIALIZE, new Params(p))).kind);
        assertEquals(Failure.UNSUPPORTED, assertThrows(Failure.class, () -> new Memory().run(
            method.codec(model), method, model, Depth.ACCESS, new Params(p))).kind);
    }
}
