package serbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serbench.paged.PagedFile;

/** The write floor: another method's file written again from its bytes, byte for byte. */
class WriteFloorTest {
    private static JsonNode respond(String line) {
        return Main.respond(line).response();
    }

    private static String request(int id, String op, String task, String method,
            String params) {
        return "{\"id\":" + id + ",\"op\":\"" + op + "\",\"task\":\"" + task
            + "\",\"model\":\"tweet\",\"method\":\"" + method
            + "\",\"depth\":\"\",\"variant\":\"\",\"params\":{" + params + "}}";
    }

    @Test
    void theFloorCopiesTheFileItIsGivenByteForByte(@TempDir Path dir) throws Exception {
        Path source = dir.resolve("handcoded");
        Path copy = dir.resolve("floor");
        String reps = "\"cold\":false,\"warmups\":0,\"repetitions\":2";
        // 128-byte pages: the golden tweets span pages and move to the next one
        assertEquals("ok", respond(request(1, "encode", "", "handcoded", "\"input\":\""
            + Vectors.jsonl("tweet") + "\",\"output\":\"" + source + "\",\"page_size\":128"))
            .get("status").asText());
        JsonNode floor = respond(request(2, "run", "write", "raw", "\"input\":\"" + source
            + "\",\"output\":\"" + copy + "\",\"page_size\":128," + reps));
        assertEquals("ok", floor.get("status").asText(), floor.toString());
        assertEquals(2, floor.at("/result/samples").size());
        assertArrayEquals(Files.readAllBytes(PagedFile.data(source)),
            Files.readAllBytes(PagedFile.data(copy)));
        byte[] index = Files.readAllBytes(PagedFile.index(source));
        assertArrayEquals(index, Files.readAllBytes(PagedFile.index(copy)));
        JsonNode raw = respond(request(3, "run", "read_seq", "raw", "\"input\":\"" + source
            + "\",\"start\":0,\"n\":4," + reps));
        assertEquals(raw.at("/result/checksum"), floor.at("/result/checksum"));
        assertEquals(4, floor.at("/result/checksum/count").asInt());
    }

    @Test
    void aMissingFileIsNotFound(@TempDir Path dir) {
        JsonNode r = respond(request(1, "run", "write", "raw", "\"input\":\""
            + dir.resolve("none") + "\",\"output\":\"" + dir.resolve("out")
            + "\",\"cold\":false,\"warmups\":0,\"repetitions\":1"));
        assertEquals("not_found", r.at("/error/kind").asText(), r.toString());
    }
}
