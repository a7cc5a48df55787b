package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;
import serbench.ModelType;
import serbench.Registry;
import serbench.Vectors;
import serbench.model.Models;
import serbench.model.Org;
import serbench.model.Trade;
import serbench.model.Tweet;
import serbench.tasks.Json;
import serbench.wire.DecodeException;

/**
 * The schema methods (protobuf, flatbuffers, avro) on bytes they did not write: garbage,
 * another method's encoding, lengths far beyond the buffer, a missing required table or
 * message. Each is refused with a decode error naming the format, never another exception.
 */
class SchemaFormatsTest {
    static final List<String> METHODS = List.of("protobuf", "flatbuffers", "avro");

    static Stream<Arguments> cells() {
        return METHODS.stream().flatMap(m -> Models.ALL.stream().flatMap(model ->
            Registry.method(m).depths().stream().map(d -> Arguments.of(m, model.id, d))));
    }

    static <T> byte[] encode(String method, ModelType<T> model, T value) throws Exception {
        Bytes out = new Bytes(16);
        Registry.method(method).codec(model).encode(value, out);
        return Arrays.copyOf(out.array, out.length);
    }

    /** Reads `bytes`; returns the object hash, or null when refused with a decode error. */
    static Long read(String method, ModelType<?> model, Depth depth, byte[] bytes) {
        Hasher h = new Hasher();
        try {
            Registry.method(method).codec(model).fold(ByteBuffer.wrap(bytes), 0, bytes.length,
                depth, h);
        } catch (DecodeException refused) {
            assertTrue(refused.getMessage().contains(method), refused.getMessage());
            return null;
        } catch (Exception e) {
            throw new AssertionError(method + " " + model.id + ": not a decode error: " + e, e);
        }
        return h.finish();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cells")
    void garbageIsRefusedOrReadsAsNoStoredObject(String method, String model, Depth depth)
            throws Exception {
        ModelType<?> m = ModelType.byId(model);
        List<Long> stored = Vectors.hashes(model);
        Random random = new Random(42);
        for (int i = 0; i < 200; i++) {
            byte[] garbage = new byte[1 + random.nextInt(300)];
            random.nextBytes(garbage);
            Long hash = read(method, m, depth, garbage);
            assertTrue(hash == null || !stored.contains(hash), method + " garbage " + i);
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cells")
    void anotherMethodsBytesAreRefused(String method, String model, Depth depth)
            throws Exception {
        foreign(method, ModelType.byId(model), depth);
    }

    private static <T> void foreign(String method, ModelType<T> model, Depth depth)
            throws Exception {
        for (T object : Json.load(Vectors.jsonl(model.id), model)) {
            for (String other : List.of("json", "kryo")) {
                Long hash = read(method, model, depth, encode(other, model, object));
                assertTrue(hash == null || hash != model.hash(object), other + " as " + method);
            }
        }
    }

    /** Lengths claiming nearly 2 GiB must be refused before anything is allocated for them. */
    @Test
    void hugeClaimedLengthsAreRefused() {
        ModelType<?> arrays = ModelType.byId("arrays");
        // protobuf: field 1 (strings), length 2^31 - 1
        byte[] pb = {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 'x'};
        // avro: array block of 2^30 strings, then a string of length 2^30 (zigzag varints)
        byte[] av = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08,
            (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08, 'x'};
        // flatbuffers: root at 4, vtable at 4 - (-8) = 12 gives field 0 at +4 -> vector at 12,
        // whose length word claims 2^31 - 1 offsets
        byte[] fb = {4, 0, 0, 0, -8, -1, -1, -1, 4, 0, 0, 0, 6, 0, 8, 0, 4, 0, 0, 0,
            (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f};
        for (Depth d : List.of(Depth.MATERIALIZE, Depth.ACCESS)) {
            assertEquals(null, read("protobuf", arrays, d, pb));
            assertEquals(null, read("avro", arrays, d, av));
            assertEquals(null, read("flatbuffers", arrays, d, fb));
        }
    }

    @Test
    void aTweetWithoutItsUserIsRefusedNamingTheField() throws Exception {
        ModelType<Tweet> tweets = Models.ALL.stream().filter(m -> m.type == Tweet.class)
            .map(m -> (ModelType<Tweet>) (ModelType<?>) m).findFirst().orElseThrow();
        Tweet t = Json.load(Vectors.jsonl("tweet"), tweets).get(0);
        byte[] pb = serbench.methods.convert.ProtoConvert.put(t).toBuilder().clearUser().build()
            .toByteArray();
        com.google.flatbuffers.FlatBufferBuilder b = new com.google.flatbuffers.FlatBufferBuilder();
        serbench.fb.Tweet.startTweet(b);
        serbench.fb.Tweet.addId(b, 7);
        b.finish(serbench.fb.Tweet.endTweet(b));
        byte[] fb = b.sizedByteArray();
        for (Depth d : List.of(Depth.MATERIALIZE, Depth.ACCESS)) {
            for (var c : List.of(new Object[] {"protobuf", pb}, new Object[] {"flatbuffers", fb})) {
                byte[] bytes = (byte[]) c[1];
                DecodeException e = assertThrows(DecodeException.class, () -> Registry
                    .method((String) c[0]).codec(tweets).fold(ByteBuffer.wrap(bytes), 0,
                        bytes.length, d, new Hasher()));
                assertTrue(e.getMessage().contains("Tweet.user"), e.getMessage());
            }
        }
    }

    @Test
    void anAllDefaultProtobufMessageIsStoredAsOneExplicitDefault() throws Exception {
        ModelType<Trade> trades = Models.ALL.stream().filter(m -> m.type == Trade.class)
            .map(m -> (ModelType<Trade>) (ModelType<?>) m).findFirst().orElseThrow();
        Trade zero = new Trade();
        zero.prices = new double[0];
        zero.quantities = new long[0];
        byte[] bytes = encode("protobuf", trades, zero);
        assertArrayEquals(new byte[] {0x08, 0x00}, bytes);
        assertTrue(trades.same(zero, Registry.method("protobuf").codec(trades)
            .decode(ByteBuffer.wrap(bytes), 0, bytes.length)));
    }

    @Test
    void negativeZeroAndPresentZeroOptionalsSurviveFlatbuffers() throws Exception {
        ModelType<Tweet> tweets = Models.ALL.stream().filter(m -> m.type == Tweet.class)
            .map(m -> (ModelType<Tweet>) (ModelType<?>) m).findFirst().orElseThrow();
        Tweet t = Json.load(Vectors.jsonl("tweet"), tweets).get(0);
        t.quoteCount = 0;
        t.inReplyToStatusId = 0L;
        t.possiblySensitive = false;
        Codec<Tweet> codec = Registry.method("flatbuffers").codec(tweets);
        byte[] bytes = encode("flatbuffers", tweets, t);
        assertTrue(tweets.same(t, codec.decode(ByteBuffer.wrap(bytes), 0, bytes.length)));

        ModelType<Org> orgs = Models.ALL.stream().filter(m -> m.type == Org.class)
            .map(m -> (ModelType<Org>) (ModelType<?>) m).findFirst().orElseThrow();
        Org o = Json.load(Vectors.jsonl("org"), orgs).stream()
            .filter(x -> x.attributes.length > 0).findFirst().orElseThrow();
        o.attributes[0].percent = -0.0;
        byte[] org = encode("flatbuffers", orgs, o);
        Org back = Registry.method("flatbuffers").codec(orgs).decode(ByteBuffer.wrap(org), 0,
            org.length);
        assertEquals(Long.MIN_VALUE, Double.doubleToRawLongBits(back.attributes[0].percent));
    }
}
