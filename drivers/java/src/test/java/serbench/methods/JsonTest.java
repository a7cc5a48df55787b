package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import serbench.Bytes;
import serbench.ModelType;
import serbench.Vectors;
import serbench.model.Models;
import serbench.modelio.JsonOut;
import serbench.tasks.Json;
import serbench.wire.DecodeException;

/** PROTOCOL.md section 8.1: the very bytes of vectors/*.jsonl, and gzip members of them. */
class JsonTest {
    static List<String> models() {
        return Models.ALL.stream().map(m -> m.id).toList();
    }

    /**
     * The vectors' text is Python's json.dumps (exponents like e-07, present optionals last),
     * so the values are compared here and the bytes by the fixed texts below.
     */
    @ParameterizedTest
    @MethodSource("models")
    void jsonHoldsTheValuesOfTheVectors(String id) throws Exception {
        ModelType<?> model = ModelType.byId(id);
        List<String> lines = Files.readAllLines(Vectors.jsonl(id), StandardCharsets.UTF_8);
        List<byte[]> encoded = encodeAll(JsonMethod.SPEC, model);
        for (int i = 0; i < lines.size(); i++) {
            assertEquals(Json.MAPPER.readTree(lines.get(i)), Json.MAPPER.readTree(encoded.get(i)),
                id + " line " + (i + 1));
        }
    }

    /** The same objects and texts as the Rust driver's json test: the contract's bytes. */
    @Test
    void floatsAndStringsAreWrittenAsSection81Says() throws Exception {
        String trade = "{\"source_id\":-1,\"special\":true,\"order_code\":0,\"priority\":7,"
            + "\"prices\":[1.0,0.00001,123456.789,1000000000000000.0,1e+16,1.5e-7,"
            + "1.7976931348623157e+308,0.0,-0.0],\"quantities\":[-9223372036854775808]}";
        assertEquals(trade, reencode("trade", trade));
        String org = "{\"name\":\"\\u0001\\b\\f\\n\\r\\t\\u001f\u007f/é\\\"\\\\ 😀\","
            + "\"category\":\"\",\"country\":\"\",\"type\":\"BAR\",\"attributes\":[]}";
        assertEquals(org, reencode("org", org));
    }

    private static <T> String reencode(String id, String text) throws Exception {
        @SuppressWarnings("unchecked")
        ModelType<T> model = (ModelType<T>) ModelType.byId(id);
        byte[] in = text.getBytes(StandardCharsets.UTF_8);
        Codec<T> codec = JsonMethod.SPEC.codec(model);
        Bytes out = new Bytes(16);
        codec.encode(codec.decode(ByteBuffer.wrap(in), 0, in.length), out);
        return new String(out.array, 0, out.length, StandardCharsets.UTF_8);
    }

    @Test
    void readersAcceptAnyKeyOrderNullsAndEscapesButNotRepeatsOrWhitespace() throws Exception {
        Codec<?> codec = JsonMethod.SPEC.codec(ModelType.byId("org"));
        byte[] ok = ("{\"attributes\":[],\"type\":\"FOO\",\"country\":\"\\u00d6\","
            + "\"category\":\"\",\"name\":\"\\ud83d\\ude00\"}").getBytes(StandardCharsets.UTF_8);
        assertEquals("😀", ((serbench.model.Org) codec.decode(ByteBuffer.wrap(ok), 0, ok.length)).name);
        Codec<?> arrays = JsonMethod.SPEC.codec(ModelType.byId("arrays"));
        for (String bad : new String[] {"{\"strings\":[],\"ints\":[]} ",
                "{\"strings\":[],\"ints\":[],\"ints\":[]}", "{\"strings\":[],\"ints\":[1.0]}"}) {
            byte[] b = bad.getBytes(StandardCharsets.UTF_8);
            assertThrows(Exception.class, () -> arrays.decode(ByteBuffer.wrap(b), 0, b.length), bad);
        }
    }

    @ParameterizedTest
    @MethodSource("models")
    void jsonGzipIsOneStandardMemberOfThatText(String id) throws Exception {
        ModelType<?> model = ModelType.byId(id);
        List<String> lines = Files.readAllLines(Vectors.jsonl(id), StandardCharsets.UTF_8);
        List<byte[]> encoded = encodeAll(JsonGzip.SPEC, model);
        for (int i = 0; i < lines.size(); i++) {
            byte[] member = encoded.get(i);
            assertEquals("1f8b08000000000000ff", hex(member, 10));
            try (GZIPInputStream z = new GZIPInputStream(new java.io.ByteArrayInputStream(member))) {
                assertEquals(Json.MAPPER.readTree(lines.get(i)), Json.MAPPER.readTree(
                    z.readAllBytes()));
            }
        }
    }

    private static <T> List<byte[]> encodeAll(MethodSpec spec, ModelType<T> model)
            throws Exception {
        Codec<T> codec = spec.codec(model);
        List<byte[]> out = new java.util.ArrayList<>();
        Bytes b = new Bytes(16);
        for (T o : Json.load(Vectors.jsonl(model.id), model)) {
            b.length = 0;
            codec.encode(o, b);
            out.add(java.util.Arrays.copyOf(b.array, b.length));
        }
        return out;
    }

    private static String hex(byte[] a, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append(String.format("%02x", a[i]));
        }
        return s.toString();
    }

    @ParameterizedTest
    @CsvSource({"1.0,1.0", "0.00001,0.00001", "123456.789,123456.789",
        "1e15,1000000000000000.0", "1e16,1e+16", "1.5e-7,1.5e-7", "0.0001234,0.0001234",
        "1.7976931348623157e308,1.7976931348623157e+308", "4.9e-324,5e-324", "-2.5,-2.5",
        "-0.0,-0.0", "0,0.0", "1e23,1e+23", "12345678.9,12345678.9", "1.0e-6,1e-6"})
    void f64IsTheShortestFormOfTheContract(double v, String text) {
        assertEquals(text, JsonOut.canonical(v));
        assertEquals(Double.doubleToRawLongBits(v), Double.doubleToRawLongBits(
            Double.parseDouble(text)));
    }

    @Test
    void aCorruptMemberIsRefusedWithWhatIsWrong() throws Exception {
        @SuppressWarnings("unchecked")
        ModelType<Object> trade = (ModelType<Object>) ModelType.byId("trade");
        byte[] member = encodeAll(JsonGzip.SPEC, trade).get(0);
        Codec<Object> codec = JsonGzip.SPEC.codec(trade);
        byte[] crc = member.clone();
        crc[crc.length - 6] ^= 1;
        assertTrue(refusal(codec, crc).contains("CRC-32"));
        byte[] trailing = java.util.Arrays.copyOf(member, member.length + 1);
        assertTrue(refusal(codec, trailing).length() > 0);
        assertTrue(refusal(codec, java.util.Arrays.copyOf(member, 12)).contains("truncated"));
        assertTrue(refusal(codec, "{}".getBytes(StandardCharsets.UTF_8)).contains("gzip"));
    }

    private static String refusal(Codec<Object> codec, byte[] bytes) {
        Exception e = assertThrows(Exception.class,
            () -> codec.decode(ByteBuffer.wrap(bytes), 0, bytes.length));
        assertTrue(e instanceof DecodeException || e instanceof java.io.IOException, e.toString());
        return e.getMessage();
    }
}
