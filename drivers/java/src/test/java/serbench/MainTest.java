package serbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serbench.paged.PagedFile;

/** The serve loop answers every request, bad ones with a clear error, and never dies. */
class MainTest {
    private static JsonNode respond(String line) {
        return Main.respond(line).response();
    }

    @Test
    void malformedAndUnknownRequestsAreBadRequests() {
        assertEquals("bad_request", respond("{nope").at("/error/kind").asText());
        assertEquals("bad_request", respond("{\"id\":1,\"op\":\"fly\"}").at("/error/kind")
            .asText());
        JsonNode r = respond("{\"id\":2,\"op\":\"scan\",\"model\":\"part\",\"method\":\"nope\","
            + "\"depth\":\"access\",\"variant\":\"\",\"params\":{}}");
        assertEquals(2, r.get("id").asInt());
        assertTrue(r.at("/error/message").asText().contains("known methods"));
        assertEquals("unsupported", respond("{\"id\":3,\"op\":\"run\",\"task\":\"sizes\"}")
            .get("status").asText());
    }

    @Test
    void corruptObjectBytesGiveCorruptInputNamingPageAndObject(@TempDir Path dir)
            throws Exception {
        String base = dir.resolve("t").toString();
        String encode = "{\"id\":1,\"op\":\"encode\",\"model\":\"trade\",\"method\":\"handcoded\","
            + "\"depth\":\"\",\"variant\":\"\",\"params\":{\"input\":\"" + Vectors.jsonl("trade")
            + "\",\"output\":\"" + base + "\",\"page_size\":4096}}";
        assertEquals("ok", respond(encode).get("status").asText());
        try (RandomAccessFile f = new RandomAccessFile(PagedFile.data(Path.of(base)).toFile(),
                "rw")) {
            f.seek(8); // the first object's `special` bool
            f.write(7);
        }
        String scan = "{\"id\":2,\"op\":\"scan\",\"model\":\"trade\",\"method\":\"handcoded\","
            + "\"depth\":\"access\",\"variant\":\"\",\"params\":{\"input\":\"" + base + "\"}}";
        JsonNode r = respond(scan);
        assertEquals("corrupt_input", r.at("/error/kind").asText());
        assertTrue(r.at("/error/message").asText().contains("page 0, object 0"),
            r.at("/error/message").asText());
        assertTrue(r.at("/error/message").asText().contains("not 0 or 1"));
    }

    @Test
    void infoListsTheJvmAndEveryMethod() {
        JsonNode info = respond("{\"id\":1,\"op\":\"info\"}").get("result");
        assertEquals("java", info.get("language").asText());
        assertTrue(info.at("/toolchain/gc").size() > 0);
        for (var m : Registry.METHODS) {
            assertTrue(info.get("methods").has(m.id()), m.id());
        }
    }
}
