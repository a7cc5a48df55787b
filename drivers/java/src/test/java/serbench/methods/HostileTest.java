package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import serbench.Bytes;
import serbench.ModelType;
import serbench.Registry;
import serbench.Vectors;
import serbench.tasks.Json;

/**
 * Hostile and damaged bytes: the Java-serialization methods refuse classes outside their
 * allow-lists before loading them, and every method refuses truncated or trailing bytes with
 * an exception (never a crash), which the read tasks turn into corrupt_input.
 */
class HostileTest {
    /** A class no allow-list names; reading it must never run its readObject. */
    static final class Gadget implements Serializable {
        private static final long serialVersionUID = 1L;
        static boolean ran;

        private void readObject(java.io.ObjectInputStream in) throws Exception {
            in.defaultReadObject();
            ran = true;
        }
    }

    static Stream<Arguments> hostile() {
        HashMap<String, Object> map = new HashMap<>();
        map.put("k", new Gadget());
        return Stream.of("java_builtin", "java_externalizable").flatMap(m ->
            Stream.of(Arguments.of(m, new Gadget()), Arguments.of(m, map),
                Arguments.of(m, new ArrayList<>(List.of("x")))));
    }

    @ParameterizedTest(name = "{0} refuses {1}")
    @MethodSource("hostile")
    void classesOutsideTheAllowListAreRefused(String method, Object payload) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(b)) {
            o.writeObject(payload);
        }
        byte[] bytes = b.toByteArray();
        Codec<?> codec = Registry.method(method).codec(ModelType.byId("trade"));
        Gadget.ran = false;
        Exception e = assertThrows(Exception.class,
            () -> codec.decode(ByteBuffer.wrap(bytes), 0, bytes.length));
        assertTrue(e.getMessage().contains("allow-list"), e.getMessage());
        assertFalse(Gadget.ran);
    }

    /** XStream names classes in element names: a class outside the allow-list is refused. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {
        "<java.util.HashMap><entry><string>k</string><int>1</int></entry></java.util.HashMap>",
        "<serbench.methods.HostileTest_-Gadget/>",
        "<java.lang.ProcessBuilder><command><string>true</string></command></java.lang.ProcessBuilder>"})
    void xmlRefusesClassesOutsideTheAllowList(String xml) {
        byte[] bytes = xml.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Codec<?> codec = Registry.method("xml").codec(ModelType.byId("trade"));
        Exception e = assertThrows(Exception.class,
            () -> codec.decode(ByteBuffer.wrap(bytes), 0, bytes.length));
        assertTrue(e.getMessage().contains("allow-list"), e.getMessage());
    }

    /** A class Fory's reader never registered; reading it must never construct it. */
    public static final class ForyGadget {
        static int made;
        public String command = "true";

        public ForyGadget() {
            made++;
        }
    }

    /**
     * Fory names an unregistered class in its bytes: the reader refuses it by name. (Fory's
     * compatible mode would read it as a placeholder struct by default, logging "not
     * registered, take it as Struct type"; only our check of the root's type refused that.)
     */
    @org.junit.jupiter.api.Test
    void foryRefusesClassesItDidNotRegister() {
        org.apache.fory.Fory open = org.apache.fory.Fory.builder()
            .withLanguage(org.apache.fory.config.Language.JAVA)
            .requireClassRegistration(false).withRefTracking(false).build();
        byte[] bytes = open.serialize(new ForyGadget());
        Codec<?> codec = Registry.method("fory").codec(ModelType.byId("trade"));
        ForyGadget.made = 0;
        Exception e = assertThrows(Exception.class,
            () -> codec.decode(ByteBuffer.wrap(bytes), 0, bytes.length));
        assertEquals("Class " + ForyGadget.class.getName() + " is not registered.",
            e.getMessage());
        assertEquals(0, ForyGadget.made);
    }

    static Stream<Arguments> writers() {
        return Registry.METHODS.stream().filter(MethodSpec::writes).flatMap(m ->
            Stream.of("trade", "tweet", "org").map(model -> Arguments.of(m.id(), model)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("writers")
    void truncatedAndTrailingBytesAreRefused(String method, String model) throws Exception {
        damaged(Registry.method(method), ModelType.byId(model));
    }

    /**
     * Every four bytes of an encoding overwritten in turn by 2^31 - 1 (either byte order), as
     * a hostile length or count would be: each read is an object or an exception, never an
     * Error (no allocation sized by the claim: bson's string buffers and the Externalizable
     * list counts were found by fuzzing to allocate gigabytes).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("lengthWriters")
    void hugeLengthsAreRefusedBeforeAllocating(String method) throws Exception {
        hugeLengths(Registry.method(method), ModelType.byId("customer"));
    }

    static Stream<String> lengthWriters() {
        return Registry.METHODS.stream().filter(MethodSpec::writes).map(MethodSpec::id);
    }

    private static <T> void hugeLengths(MethodSpec method, ModelType<T> model) throws Exception {
        Codec<T> codec = method.codec(model);
        Bytes out = new Bytes(16);
        codec.encode(Json.load(Vectors.jsonl(model.id), model).get(0), out);
        for (java.nio.ByteOrder order : List.of(java.nio.ByteOrder.BIG_ENDIAN,
                java.nio.ByteOrder.LITTLE_ENDIAN)) {
            for (int at = 0; at + 4 <= out.length; at++) {
                byte[] bytes = java.util.Arrays.copyOf(out.array, out.length);
                ByteBuffer.wrap(bytes).order(order).putInt(at, Integer.MAX_VALUE);
                try {
                    codec.fold(pageOf(method, bytes), 0, bytes.length, method.depths().get(0),
                        new serbench.Hasher());
                } catch (Exception refused) {
                    // the expected outcome; an Error is not caught and fails the test
                }
            }
        }
    }

    /**
     * A string whose bytes are not UTF-8 (a byte 0xFF inside it, the length unchanged) is
     * refused by every method that stores text as bytes, never read as other text (a reader
     * that decodes with replacement characters would answer ok with another checksum).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("textWriters")
    void stringsThatAreNotUtf8AreRefused(String method) throws Exception {
        refusesNotUtf8(Registry.method(method), ModelType.byId("part"));
    }

    private static <T> void refusesNotUtf8(MethodSpec spec, ModelType<T> part) throws Exception {
        String method = spec.id();
        String line = "{\"partkey\":1,\"name\":\"MARKERMARKER\",\"mfgr\":\"\",\"brand\":\"\","
            + "\"type\":\"\",\"size\":0,\"container\":\"\",\"retailprice\":0.0,\"comment\":\"\"}";
        java.nio.file.Path file = java.nio.file.Files.createTempFile("utf8", ".jsonl");
        // a genuine U+FFFD is text like any other (the msgpack reader's slow path)
        java.nio.file.Files.writeString(file, line + "\n" + line.replace("MARKERMARKER",
            "genuine \\ufffd") + "\n");
        List<T> objects = Json.load(file, part);
        T object = objects.get(0);
        Codec<T> codec = spec.codec(part);
        Bytes genuine = new Bytes(16);
        codec.encode(objects.get(1), genuine);
        for (serbench.Depth depth : spec.depths()) {
            serbench.Hasher h = new serbench.Hasher();
            codec.fold(pageOf(spec, java.util.Arrays.copyOf(genuine.array, genuine.length)), 0,
                genuine.length, depth, h);
            assertEquals(part.hash(objects.get(1)), h.finish(), method + " " + depth);
        }
        Bytes out = new Bytes(16);
        codec.encode(object, out);
        byte[] bytes = java.util.Arrays.copyOf(out.array, out.length);
        int at = indexOf(bytes, "MARKERMARKER".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertTrue(at >= 0, method + " stores the marker as its bytes");
        bytes[at + 3] = (byte) 0xFF;
        ByteBuffer page = pageOf(spec, bytes);
        for (serbench.Depth depth : spec.depths()) {
            assertThrows(Exception.class, () -> codec.fold(page, 0, bytes.length, depth,
                new serbench.Hasher()), method + " " + depth + " read 0xFF inside a string");
        }
    }

    /** Methods that store this text as its UTF-8 bytes: not the compressed ones, not kryo
     *  (ASCII with a high bit marking the last char) or fory (Latin-1 where it fits), whose
     *  encodings of it are not UTF-8 (a byte of them changed is other valid text there). */
    static Stream<String> textWriters() {
        return Registry.METHODS.stream().filter(MethodSpec::writes).map(MethodSpec::id)
            .filter(id -> !id.endsWith("gzip") && !id.equals("kryo") && !id.equals("fory"));
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static ByteBuffer pageOf(MethodSpec method, byte[] bytes) {
        return method.directPages()
            ? ByteBuffer.allocateDirect(bytes.length).put(0, bytes)
                .order(java.nio.ByteOrder.nativeOrder())
            : ByteBuffer.wrap(bytes);
    }

    private static <T> void damaged(MethodSpec method, ModelType<T> model) throws Exception {
        Codec<T> codec = method.codec(model);
        for (T object : Json.load(Vectors.jsonl(model.id), model)) {
            Bytes out = new Bytes(16);
            codec.encode(object, out);
            for (int len : new int[] {out.length / 2, out.length - 1, out.length + 1}) {
                ByteBuffer page = page(method, out, len);
                String what = method.id() + " " + model.id + " " + len + " of " + out.length
                    + " bytes";
                if (method.id().equals("flatbuffers")) {
                    sameOrRefused(codec, method, model.hash(object), page, len, what);
                    continue;
                }
                assertThrows(Exception.class, () -> codec.fold(page, 0, len,
                    method.depths().get(0), new serbench.Hasher()), what);
            }
        }
    }

    /**
     * A flatbuffer has no length of its own: cut in its trailing padding or followed by more
     * bytes it is the same object. Anything else must be refused, never read as another one.
     */
    private static <T> void sameOrRefused(Codec<T> codec, MethodSpec method, long hash,
            ByteBuffer page, int len, String what) {
        for (serbench.Depth depth : method.depths()) {
            serbench.Hasher h = new serbench.Hasher();
            try {
                codec.fold(page, 0, len, depth, h);
            } catch (serbench.wire.DecodeException refused) {
                continue;
            } catch (Exception e) {
                throw new AssertionError(what + ": " + e);
            }
            assertEquals(hash, h.finish(), what + " reads as another object");
        }
    }

    private static ByteBuffer page(MethodSpec method, Bytes out, int len) {
        byte[] a = java.util.Arrays.copyOf(out.array, len);
        return method.directPages()
            ? ByteBuffer.allocateDirect(len).put(0, a).order(java.nio.ByteOrder.nativeOrder())
            : ByteBuffer.wrap(a);
    }
}
