package serbench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import serbench.Bytes;
import serbench.Hasher;
import serbench.ModelType;
import serbench.model.Trade;

/** The shared layout's bytes, and its decoder's refusals of corrupt bytes. */
class WireTest {
    @SuppressWarnings("unchecked")
    final ModelType<Trade> trade = (ModelType<Trade>) ModelType.byId("trade");

    private Trade reference() {
        Trade t = new Trade();
        t.sourceId = 1;
        t.special = true;
        t.orderCode = 7;
        t.priority = 3;
        t.prices = new double[] {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
        t.quantities = new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        return t;
    }

    private byte[] encode(Trade t) {
        Bytes out = new Bytes(16);
        LeOut w = new LeOut();
        w.begin(out);
        trade.put(t, w);
        return java.util.Arrays.copyOf(out.array, out.length);
    }

    private DecodeException corrupt(byte[] bytes) {
        LeIn r = new LeIn();
        r.on(ByteBuffer.wrap(bytes), 0, bytes.length);
        return assertThrows(DecodeException.class, () -> {
            trade.visit(r, new Hasher());
            r.finish();
        });
    }

    @Test
    void theReferenceTradeIs185Bytes() {
        byte[] b = encode(reference());
        assertEquals(185, b.length);
        assertEquals(1, b[0]); // source_id, little-endian
        assertEquals(1, b[8]); // special
    }

    @Test
    void corruptBytesAreRefusedWithTheirPosition() {
        byte[] b = encode(reference());
        b[8] = 2;
        assertTrue(corrupt(b).getMessage().contains("byte 8: bool byte 2"));
        byte[] full = encode(reference());
        String cut = corrupt(java.util.Arrays.copyOf(full, 100)).getMessage();
        assertTrue(cut.contains("truncated"), cut);
        assertTrue(corrupt(java.util.Arrays.copyOf(full, 186)).getMessage().contains("trailing"));
    }

    @Test
    void invalidUtf8IsRefused() {
        byte[] bad = {(byte) 0xc3, (byte) 0x28};
        assertEquals(0, Utf8.invalidAt(bad, 0, 2));
        byte[] good = "Österreich ✓".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(-1, Utf8.invalidAt(good, 0, good.length));
        byte[] truncated = {'a', (byte) 0xe2, (byte) 0x9c};
        assertEquals(1, Utf8.invalidAt(truncated, 0, 3));
    }
}
