package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import serbench.Bytes;
import serbench.ModelType;
import serbench.Registry;
import serbench.model.Trade;

/** PROTOCOL.md sections 8.2, 8.2.1 and 8.3, byte for byte on one small trade. */
class BinaryFormatsTest {
    private static Trade trade() {
        Trade t = new Trade();
        t.sourceId = 1;
        t.special = true;
        t.orderCode = -1;
        t.priority = 300;
        t.prices = new double[] {1.5};
        t.quantities = new long[] {5};
        return t;
    }

    /**
     * msgpack: fixmap, fixstr keys, smallest ints (fixint, negative fixint, uint 16), float 64.
     * msgpack_arrays: the same values in a fixarray, in field order.
     * bson: i64 always int64, i32 int32, bool, arrays as documents keyed "0", "1", ...
     */
    @ParameterizedTest
    @CsvSource({
        "msgpack, 86a9736f757263655f696401a77370656369616cc3aa6f726465725f636f6465ffa87072696f"
            + "72697479cd012ca670726963657391cb3ff8000000000000aa7175616e7469746965739105",
        "msgpack_arrays, 9601c3ffcd012c91cb3ff80000000000009105",
        "bson, 7400000012736f757263655f6964000100000000000000087370656369616c0001106f72646572"
            + "5f636f646500ffffffff107072696f72697479002c010000047072696365730010000000013000000"
            + "000000000f83f00047175616e746974696573001000000012300005000000000000000000"})
    void theTradeIsTheContractsBytes(String method, String hex) throws Exception {
        @SuppressWarnings("unchecked")
        ModelType<Trade> model = (ModelType<Trade>) ModelType.byId("trade");
        Codec<Trade> codec = Registry.method(method).codec(model);
        Bytes out = new Bytes(16);
        codec.encode(trade(), out);
        byte[] bytes = java.util.Arrays.copyOf(out.array, out.length);
        assertEquals(hex, HexFormat.of().formatHex(bytes));
        assertEquals(model.hash(trade()), model.hash(codec.decode(ByteBuffer.wrap(bytes), 0,
            bytes.length)));
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(Exception.class, () -> codec.decode(ByteBuffer.wrap(longer), 0,
            longer.length));
    }

    /**
     * msgpack_arrays reads an `arrays` object (strings, ints) only as an array of exactly two
     * fields holding what the model declares.
     */
    @ParameterizedTest
    @CsvSource({
        "9190, expected Arrays array of 2 fields, got 1",
        "93909090, expected Arrays array of 2 fields, got 3",
        "92c090, Nil",
        "82a7737472696e677390a4696e747390, expected Arrays array, got FIXMAP",
        "929091ce80000000, 2147483648",
        "929091cb3ff0000000000000, Float",
        "9291a1ff90, not UTF-8",
        "9290, ends inside a value",
        "929090c0, 1 trailing bytes"})
    void msgpackArraysRefusesWhatTheModelDoesNotHold(String hex, String why) throws Exception {
        @SuppressWarnings("unchecked")
        ModelType<serbench.model.Arrays> model =
            (ModelType<serbench.model.Arrays>) ModelType.byId("arrays");
        Codec<serbench.model.Arrays> codec = Registry.method("msgpack_arrays").codec(model);
        assertEquals(0, codec.decode(ByteBuffer.wrap(HexFormat.of().parseHex("929090")), 0, 3)
            .ints.length);
        byte[] bad = HexFormat.of().parseHex(hex);
        Exception e = assertThrows(Exception.class, () -> codec.decode(ByteBuffer.wrap(bad), 0,
            bad.length));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }
}
