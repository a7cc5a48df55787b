package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.flatbuffers.FlatBufferBuilder;
import com.thoughtworks.xstream.XStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Ops;
import serbench.Registry;
import serbench.Vectors;
import serbench.methods.convert.FlatConvert;
import serbench.model.Hashtag;
import serbench.model.Models;
import serbench.model.Tweet;
import serbench.paged.Index;
import serbench.paged.PageWriter;
import serbench.tasks.Json;

/**
 * Payloads whose references (or flatbuffers offsets) share one child through two fields,
 * level after level: read naively they are trees of 2^LEVELS tweets. Every reader must refuse
 * them at once, naming the bound, never spend the exponential work.
 */
class ReferenceBombTest {
    private static final int LEVELS = 48;
    private static final Duration QUICKLY = Duration.ofSeconds(3);
    @SuppressWarnings("unchecked")
    private static final ModelType<Tweet> TWEET = (ModelType<Tweet>) ModelType.byId("tweet");

    /** A golden tweet with no nested statuses of its own. */
    private static Tweet plainTweet() throws Exception {
        Tweet t = Json.load(Vectors.jsonl("tweet"), TWEET).get(0);
        t.quotedStatus = null;
        t.retweetedStatus = null;
        return t;
    }

    /** LEVELS tweets, each quoting and retweeting the same next one. */
    private static Tweet bomb() throws Exception {
        byte[] plain = javaSerialized(plainTweet());
        Tweet top = null;
        for (int i = 0; i < LEVELS; i++) {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(plain))) {
                Tweet t = (Tweet) in.readObject();
                t.quotedStatus = top;
                t.retweetedStatus = top;
                top = t;
            }
        }
        return top;
    }

    private static byte[] javaSerialized(Object v) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(b)) {
            o.writeObject(v);
        }
        return b.toByteArray();
    }

    /** `method` refuses `bytes` within QUICKLY at every depth, its message holding `why`. */
    private static void refusedQuickly(String method, byte[] bytes, String why) {
        MethodSpec spec = Registry.method(method);
        Codec<Tweet> codec = spec.codec(TWEET);
        for (Depth depth : spec.depths()) {
            ByteBuffer page = spec.directPages()
                ? ByteBuffer.allocateDirect(bytes.length).put(0, bytes)
                    .order(java.nio.ByteOrder.nativeOrder())
                : ByteBuffer.wrap(bytes);
            Exception e = assertTimeoutPreemptively(QUICKLY, () -> assertThrows(Exception.class,
                () -> codec.fold(page, 0, bytes.length, depth, new Hasher())));
            String message = serbench.tasks.Reads.describe(e);
            assertTrue(message.contains(why), method + " " + depth + ": " + message);
        }
    }

    @Test
    void javaBuiltinRefusesASharedChild() throws Exception {
        refusedQuickly("java_builtin", javaSerialized(bomb()),
            "reached through a second reference");
    }

    /** Through the protocol: a file holding the payload is corrupt_input naming the object. */
    @Test
    void aScanAnswersCorruptInputNamingTheObjectAndTheBound(@TempDir Path dir)
            throws Exception {
        byte[] bytes = javaSerialized(bomb());
        Path base = dir.resolve("bomb");
        try (PageWriter w = new PageWriter(base, 1 << 16, new IoTimer())) {
            w.push(out -> out.append(bytes, 0, bytes.length));
            w.finish("tweet", "java_builtin", "java", Index.noRun());
        }
        JsonNode scan = new ObjectMapper().readTree("{\"id\":1,\"op\":\"scan\","
            + "\"model\":\"tweet\",\"method\":\"java_builtin\",\"depth\":\"materialize\","
            + "\"variant\":\"\",\"params\":{\"input\":\"" + base + "\"}}");
        Failure f = assertTimeoutPreemptively(QUICKLY, () -> assertThrows(Failure.class,
            () -> Ops.answer(scan)));
        assertEquals("corrupt_input", f.kind);
        assertTrue(f.getMessage().contains("page 0, object 0")
            && f.getMessage().contains("second reference"), f.getMessage());
    }

    /** Strings may be shared, but no more chars reached than the payload has bytes. */
    @Test
    void javaBuiltinRefusesAStringSharedTooOften() throws Exception {
        Tweet t = plainTweet();
        String text = "x".repeat(2000);
        t.entities.hashtags = new Hashtag[200];
        for (int i = 0; i < t.entities.hashtags.length; i++) {
            t.entities.hashtags[i] = new Hashtag();
            t.entities.hashtags[i].text = text;
            t.entities.hashtags[i].indices = new int[] {0, 1};
        }
        refusedQuickly("java_builtin", javaSerialized(t), "chars in a");
    }

    /** An array claiming 2^31 - 16 elements is refused before it is allocated. */
    @Test
    void javaBuiltinRefusesAnArrayLongerThanItsPayload() throws Exception {
        byte[] bytes = javaSerialized(new int[] {7, 7, 7});
        int at = bytes.length - 3 * 4 - 4;  // the length, before the three elements
        assertTrue(bytes[at + 3] == 3, "the array's length word");
        bytes[at] = 0x7f;
        bytes[at + 1] = (byte) 0xff;
        bytes[at + 2] = (byte) 0xff;
        bytes[at + 3] = (byte) 0xf0;
        refusedQuickly("java_builtin", bytes, "an array of 2147483632 elements in a "
            + bytes.length + "-byte payload");
    }

    /** XStream's reference modes: the relative XPath (its default) and the id. */
    @ParameterizedTest
    @ValueSource(ints = {XStream.XPATH_RELATIVE_REFERENCES, XStream.ID_REFERENCES})
    void xmlRefusesReferences(int mode) throws Exception {
        XStream x = new XStream();
        x.setMode(mode);
        byte[] xml = x.toXML(bomb()).getBytes(StandardCharsets.UTF_8);
        refusedQuickly("xml", xml, "serbench's writer never writes");
    }

    /** Entities that expand to each other (billion laughs) are refused, not expanded. */
    @Test
    void xmlRefusesEntityExpansion() {
        StringBuilder doc = new StringBuilder(
            "<?xml version=\"1.0\"?><!DOCTYPE t [<!ENTITY e0 \"ha\">");
        for (int i = 1; i < 30; i++) {
            doc.append("<!ENTITY e").append(i).append(" \"&e").append(i - 1).append(";&e")
                .append(i - 1).append(";\">");
        }
        doc.append("]><serbench.model.Tweet><text>&e29;</text></serbench.model.Tweet>");
        refusedQuickly("xml", doc.toString().getBytes(StandardCharsets.UTF_8), "");
    }

    /** Kryo's back-references (the reader runs with references off) are not followed. */
    @Test
    void kryoRefusesBackReferences() throws Exception {
        Kryo kryo = KryoMethod.registered(true);
        Output out = new Output(1 << 16, -1);
        kryo.writeObject(out, bomb());
        refusedQuickly("kryo", out.toBytes(), "claimed with");
    }

    /** A string claiming a million chars in a payload of a few hundred bytes. */
    @Test
    void kryoRefusesAStringLongerThanItsBytes() throws Exception {
        Tweet t = plainTweet();
        t.text = "\u00e9\u00e9\u00e9";
        Codec<Tweet> codec = Registry.method("kryo").codec(TWEET);
        serbench.Bytes out = new serbench.Bytes(16);
        codec.encode(t, out);
        byte[] bytes = Arrays.copyOf(out.array, out.length);
        byte[] text = {(byte) 0x84, (byte) 0xc3, (byte) 0xa9};  // 3 chars + 1, UTF-8 flag
        int at = indexOf(bytes, text);
        assertTrue(at >= 0, "the text's length");
        byte[] claim = {(byte) 0xff, (byte) 0xff, 0x7f};  // 6 + 7 + 7 bits: ~2^20 chars
        byte[] hostile = new byte[bytes.length + 2];
        System.arraycopy(bytes, 0, hostile, 0, at);
        System.arraycopy(claim, 0, hostile, at, claim.length);
        System.arraycopy(bytes, at + 1, hostile, at + claim.length, bytes.length - at - 1);
        refusedQuickly("kryo", hostile, "chars in a string claimed with");
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        for (int i = 0; i + needle.length <= hay.length; i++) {
            if (Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Fory's reference flags (the reader runs without reference tracking) are not followed.
     * The writer interprets (no generated serializers, a second of compiling saved): the
     * bytes are the same.
     */
    @Test
    void foryRefusesBackReferences() throws Exception {
        Fory fory = Fory.builder().withLanguage(Language.JAVA).requireClassRegistration(true)
            .withRefTracking(true).withCodegen(false).build();
        Models.CLASSES.forEach(fory::register);
        refusedQuickly("fory", fory.serialize(bomb()), "");
    }

    /** Tables whose two offsets point at the same child, level after level. */
    @Test
    void flatbuffersRefusesSharedOffsets() throws Exception {
        Tweet plain = plainTweet();
        FlatBufferBuilder b = new FlatBufferBuilder(1024);
        int user = FlatConvert.put(b, plain.user);
        int entities = FlatConvert.put(b, plain.entities);
        int child = 0;
        for (int i = 0; i < LEVELS; i++) {
            serbench.fb.Tweet.startTweet(b);
            serbench.fb.Tweet.addUser(b, user);
            serbench.fb.Tweet.addEntities(b, entities);
            if (child != 0) {
                serbench.fb.Tweet.addQuotedStatus(b, child);
                serbench.fb.Tweet.addRetweetedStatus(b, child);
            }
            child = serbench.fb.Tweet.endTweet(b);
        }
        b.finish(child);
        refusedQuickly("flatbuffers", b.sizedByteArray(), "offsets reach more data");
    }

    /** The same tweet without sharing still reads (the bound leaves real objects alone). */
    @Test
    void aDeepTreeOfDistinctTweetsStillReads() throws Exception {
        Tweet top = plainTweet();
        for (int i = 0; i < 8; i++) {
            Tweet t = plainTweet();
            t.quotedStatus = top;
            t.retweetedStatus = plainTweet();
            top = t;
        }
        for (String method : Arrays.asList("java_builtin", "xml")) {
            Codec<Tweet> codec = Registry.method(method).codec(TWEET);
            serbench.Bytes out = new serbench.Bytes(16);
            codec.encode(top, out);
            Hasher h = new Hasher();
            codec.fold(ByteBuffer.wrap(Arrays.copyOf(out.array, out.length)), 0, out.length,
                Depth.MATERIALIZE, h);
            assertEquals(TWEET.hash(top), h.finish(), method);
        }
    }
}
