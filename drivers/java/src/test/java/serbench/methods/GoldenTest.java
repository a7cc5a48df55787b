package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Registry;
import serbench.Vectors;
import serbench.model.Models;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.tasks.Json;
import serbench.tasks.Reads;
import serbench.tasks.Tasks;

/**
 * Golden vectors: every method reproduces, at every depth, the expected hash of every object
 * of vectors/<model>.jsonl, in memory and through a paged file (small pages, so objects also
 * span pages).
 */
class GoldenTest {
    static Stream<Arguments> cells() {
        return Registry.METHODS.stream().filter(MethodSpec::writes).flatMap(m ->
            Models.ALL.stream().flatMap(model -> m.depths().stream()
                .map(d -> Arguments.of(m.id(), model.id, d))));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cells")
    void everyObjectHashesAsExpected(String method, String model, Depth depth) throws Exception {
        check(Registry.method(method), ModelType.byId(model), depth);
    }

    private <T> void check(MethodSpec method, ModelType<T> model, Depth depth) throws Exception {
        List<T> objects = Json.load(Vectors.jsonl(model.id), model);
        List<Long> expected = Vectors.hashes(model.id);
        assertEquals(expected.size(), objects.size());
        Codec<T> codec = method.codec(model);
        for (int i = 0; i < objects.size(); i++) {
            T object = objects.get(i);
            assertEquals(expected.get(i), model.hash(object), "loading line " + (i + 1));
            Bytes out = new Bytes(16);
            out.length = 3; // objects are appended after whatever the buffer holds
            codec.encode(object, out);
            ByteBuffer page = method.directPages()
                ? ByteBuffer.allocateDirect(out.length).put(0, out.array, 0, out.length)
                    .order(ByteOrder.nativeOrder())
                : ByteBuffer.wrap(out.array);
            Hasher h = new Hasher();
            codec.fold(page, 3, out.length - 3, depth, h);
            assertEquals(expected.get(i), h.finish(), "line " + (i + 1));
            assertTrue(model.same(object, codec.decode(page, 3, out.length - 3)),
                "line " + (i + 1) + " decodes to an equal value");
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cells")
    void pagedFilesReadBackTheSetChecksum(String method, String model, Depth depth,
            @TempDir Path dir) throws Exception {
        paged(Registry.method(method), ModelType.byId(model), depth, dir.resolve("f"));
    }

    private <T> void paged(MethodSpec method, ModelType<T> model, Depth depth, Path base)
            throws Exception {
        List<T> objects = Json.load(Vectors.jsonl(model.id), model);
        Codec<T> codec = method.codec(model);
        Tasks.writeFile(codec, method, model, objects, base, 64, Index.noRun(), new IoTimer());
        Reads.Outcome o = Reads.read(codec, method, model, base,
            new Reads.Selection(0, objects.size(), null), depth, 64,
            new PageReader.Buffer(method.directPages()), new IoTimer());
        var want = Vectors.setChecksum(model.id);
        assertEquals(want.get("count").asLong(), o.count());
        assertEquals(want.get("sum").asText(), Hasher.hex(o.sum()));
        assertEquals("java", o.writer());
    }
}
