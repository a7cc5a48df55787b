package serbench.paged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serbench.Failure;
import serbench.IoTimer;
import serbench.Vectors;
import serbench.methods.Handcoded;
import serbench.model.ModelType;
import serbench.model.Part;
import serbench.tasks.Json;
import serbench.tasks.Tasks;

/** The paged file's layout and every check a reader makes before trusting an index. */
class IndexTest {
    @TempDir
    Path dir;
    Path base;
    @SuppressWarnings("unchecked")
    final ModelType<Part> part = (ModelType<Part>) ModelType.byId("part");

    @BeforeEach
    void write() throws Exception {
        base = dir.resolve("part");
        List<Part> objects = Json.load(Vectors.jsonl("part"), part);
        Tasks.writeFile(Handcoded.SPEC.codec(part), Handcoded.SPEC, part, objects, base, 128,
            new IoTimer());
    }

    private Failure open(Index.Expect expect) {
        return assertThrows(Failure.class, () -> new PageReader(base, expect, new IoTimer(),
            new PageReader.Buffer(false)).close());
    }

    private Index.Expect part() {
        return new Index.Expect("part", "handcoded", null);
    }

    @Test
    void layoutFollowsTheProtocol() throws Exception {
        try (PageReader r = new PageReader(base, part(), new IoTimer(),
                new PageReader.Buffer(false))) {
            Index ix = r.index;
            assertEquals(128, ix.pageSize);
            assertEquals("java", ix.writer);
            long len = Files.size(PagedFile.data(base));
            assertEquals(len, ix.dataLen);
            assertEquals((len + 127) / 128, ix.pageCount);
            for (long n = 0; n < ix.count; n++) {
                assertTrue(ix.offset(n) + ix.length(n) <= 128 || ix.offset(n) == 0);
            }
        }
    }

    @Test
    void wrongModelMethodOrPageSizeIsWrongFile() {
        assertEquals("wrong_file", open(new Index.Expect("trade", "handcoded", null)).kind);
        assertEquals("wrong_file", open(new Index.Expect("part", "kryo", null)).kind);
        assertEquals("wrong_file", open(new Index.Expect("part", "handcoded", 256)).kind);
    }

    @Test
    void truncatedDataFileIsCorrupt() throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(PagedFile.data(base).toFile(), "rw")) {
            f.setLength(f.length() - 1);
        }
        Failure f = open(part());
        assertEquals("corrupt_input", f.kind);
        assertTrue(f.getMessage().contains("truncated"), f.getMessage());
    }

    @Test
    void damagedEntryIsCorruptAndNamed() throws Exception {
        byte[] ix = Files.readAllBytes(PagedFile.index(base));
        ix[Index.HEADER_BYTES + Index.ENTRY_BYTES + 12] ^= 0x40; // entry 1's length
        Files.write(PagedFile.index(base), ix);
        Failure f = open(part());
        assertEquals("corrupt_input", f.kind);
        assertTrue(f.getMessage().contains("entry 1") || f.getMessage().contains("entries hash"),
            f.getMessage());
    }

    @Test
    void badMagicAndMissingFiles() throws Exception {
        byte[] ix = Files.readAllBytes(PagedFile.index(base));
        ix[0] = 'X';
        Files.write(PagedFile.index(base), ix);
        assertEquals("corrupt_input", open(part()).kind);
        Files.delete(PagedFile.index(base));
        assertEquals("not_found", open(part()).kind);
    }
}
