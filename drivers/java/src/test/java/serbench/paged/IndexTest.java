package serbench.paged;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serbench.Failure;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.Vectors;
import serbench.methods.Handcoded;
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
            Index.noRun(), new IoTimer());
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

    /** The run stamp (PROTOCOL.md 4.2): 16 bytes at 104 from params.run_stamp, then 8 zero. */
    @Test
    void theRunStampIsWrittenAt104AndReadBack() throws Exception {
        String hex = "5e4b0102030405060708090a0b0c0d0e";
        byte[] stamp = new Params(Json.MAPPER.readTree("{\"run_stamp\": \"" + hex + "\"}"))
            .runStamp();
        assertEquals(hex, HexFormat.of().formatHex(stamp));
        Tasks.writeFile(Handcoded.SPEC.codec(part), Handcoded.SPEC, part,
            Json.load(Vectors.jsonl("part"), part), base, 128, stamp, new IoTimer());
        byte[] header = Arrays.copyOf(Files.readAllBytes(PagedFile.index(base)), 128);
        assertArrayEquals(stamp, Arrays.copyOfRange(header, 104, 120));
        assertArrayEquals(new byte[8], Arrays.copyOfRange(header, 120, 128));
        try (PageReader r = new PageReader(base, part(), new IoTimer(),
                new PageReader.Buffer(false))) {
            assertArrayEquals(stamp, r.index.runStamp);
        }
        assertArrayEquals(new byte[16], new Params(Json.MAPPER.readTree("{}")).runStamp());
        for (String bad : new String[] {"\"5E4B0102030405060708090A0B0C0D0E\"", "\"5e4b\"", "7"}) {
            Failure f = assertThrows(Failure.class, () -> new Params(
                Json.MAPPER.readTree("{\"run_stamp\": " + bad + "}")).runStamp());
            assertEquals("bad_request", f.kind);
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
