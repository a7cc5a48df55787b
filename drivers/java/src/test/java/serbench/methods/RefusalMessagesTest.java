package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serbench.Bytes;
import serbench.Failure;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Ops;
import serbench.Registry;
import serbench.Vectors;
import serbench.paged.Index;
import serbench.paged.PageWriter;
import serbench.tasks.Json;

/**
 * A refused object is named by file, page and object, with what is wrong in words: the xml
 * reader names a required field whose element is absent (it said only "a field the object
 * needs is missing (NullPointerException)"), the msgpack reader a value cut short or a length
 * past the object's bytes (it said only MessageInsufficientBufferException or
 * MessageSizeException), and a missing file is named once, with the reason.
 */
class RefusalMessagesTest {
    @TempDir
    Path dir;

    /** `bytes` as the one object of a paged file of `model` by `method`, then scanned. */
    private Failure scanOf(String model, String method, byte[] bytes) throws Exception {
        Path base = dir.resolve(method);
        try (PageWriter w = new PageWriter(base, 1 << 16, new IoTimer())) {
            w.push(out -> out.append(bytes, 0, bytes.length));
            w.finish(model, method, "java", Index.noRun());
        }
        return assertThrows(Failure.class, () -> Ops.answer(scan(model, method, base)));
    }

    private static JsonNode scan(String model, String method, Path base) throws Exception {
        return Json.MAPPER.readTree("{\"id\":1,\"op\":\"scan\",\"model\":\"" + model
            + "\",\"method\":\"" + method + "\",\"depth\":\"materialize\",\"variant\":\"\","
            + "\"params\":{\"input\":\"" + base + "\"}}");
    }

    /** The first golden object of `model` as `method` writes it. */
    private static <T> byte[] encoded(String method, String model) throws Exception {
        @SuppressWarnings("unchecked")
        ModelType<T> type = (ModelType<T>) ModelType.byId(model);
        Bytes out = new Bytes(1024);
        Registry.method(method).codec(type).encode(Json.load(Vectors.jsonl(model), type).get(0),
            out);
        return Arrays.copyOf(out.array, out.length);
    }

    private void refused(Failure f, String method, String why) {
        assertEquals("corrupt_input", f.kind);
        assertEquals(dir.resolve(method) + ".pages: page 0, object 0 at offset 0: " + why,
            f.getMessage());
    }

    @Test
    void xmlNamesTheRequiredFieldWhoseElementIsAbsent() throws Exception {
        String part = new String(encoded("xml", "part"), StandardCharsets.UTF_8);
        String withoutName = part.replaceFirst("<name>[^<]*</name>", "");
        refused(scanOf("part", "xml", withoutName.getBytes(StandardCharsets.UTF_8)), "xml",
            "required field name is missing (the document has no element for it)");
        String tweet = new String(encoded("xml", "tweet"), StandardCharsets.UTF_8);
        String withoutScreenName = tweet.replaceFirst("<screenName>[^<]*</screenName>", "");
        refused(scanOf("tweet", "xml", withoutScreenName.getBytes(StandardCharsets.UTF_8)),
            "xml", "required field user.screen_name is missing (the document has no element "
                + "for it)");
    }

    @Test
    void javaBuiltinNamesTheRequiredFieldItsStreamHoldsNullFor() throws Exception {
        @SuppressWarnings("unchecked")
        ModelType<serbench.model.Tweet> tweet =
            (ModelType<serbench.model.Tweet>) ModelType.byId("tweet");
        serbench.model.Tweet value = Json.load(Vectors.jsonl("tweet"), tweet).get(0);
        value.user.screenName = null;
        Bytes out = new Bytes(1024);
        Registry.method("java_builtin").codec(tweet).encode(value, out);
        refused(scanOf("tweet", "java_builtin", Arrays.copyOf(out.array, out.length)),
            "java_builtin", "required field user.screen_name is missing (the stream holds "
                + "null for it)");
    }

    @Test
    void msgpackSaysAValueIsCutShort() throws Exception {
        byte[] part = encoded("msgpack", "part");
        byte[] cut = Arrays.copyOf(part, part.length - 5);  // inside the comment's text
        refused(scanOf("part", "msgpack", cut), "msgpack", "byte " + cut.length
            + ": the object's bytes end inside a value: a map, array or string announces more "
            + "than the " + cut.length + " bytes hold");
    }

    @Test
    void msgpackSaysALengthIsPastTheObjectsBytes() throws Exception {
        // a map of one entry whose key is a str 32 of 2^32 - 1 bytes
        byte[] huge = {(byte) 0x81, (byte) 0xDB, -1, -1, -1, -1, 'x'};
        refused(scanOf("part", "msgpack", huge), "msgpack",
            "a length of 4294967295 bytes, more than the object's 7 bytes hold");
    }

    @Test
    void aMissingFileIsNamedOnceWithTheReason() {
        Path base = dir.resolve("absent");
        Failure f = assertThrows(Failure.class, () -> Ops.answer(scan("part", "msgpack", base)));
        assertEquals("not_found", f.kind);
        assertEquals(base + ".index: no such file or directory", f.getMessage());
    }
}
