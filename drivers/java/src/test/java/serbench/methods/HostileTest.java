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
import serbench.Registry;
import serbench.Vectors;
import serbench.model.ModelType;
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

    static Stream<Arguments> writers() {
        return Registry.METHODS.stream().filter(MethodSpec::writes).flatMap(m ->
            Stream.of("trade", "tweet", "org").map(model -> Arguments.of(m.id(), model)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("writers")
    void truncatedAndTrailingBytesAreRefused(String method, String model) throws Exception {
        damaged(Registry.method(method), ModelType.byId(model));
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
