package serbench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The generated total order's rules and the footprint estimate's building blocks. */
class TotalOrderTest {
    @Test
    void f64FollowsIeeeTotalOrder() {
        double[] ascending = {Double.NEGATIVE_INFINITY, -1.5, -Double.MIN_VALUE, -0.0, 0.0,
            Double.MIN_VALUE, 2.0, Double.POSITIVE_INFINITY};
        for (int i = 0; i + 1 < ascending.length; i++) {
            assertTrue(TotalOrder.f64(ascending[i], ascending[i + 1]) < 0, "at " + i);
            assertEquals(0, TotalOrder.f64(ascending[i], ascending[i]));
        }
    }

    @Test
    void stringsCompareByTheirUtf8Bytes() {
        List<String> words = List.of("", "a", "ab", "b", "\u00e9", "\uffef", "\ud83d\ude00",
            "\ud83d\ude00a", "z\u0000");
        for (String a : words) {
            for (String b : words) {
                int bytes = Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
                    b.getBytes(StandardCharsets.UTF_8));
                assertEquals(Integer.signum(bytes), Integer.signum(TotalOrder.str(a, b)),
                    a + " vs " + b);
            }
        }
    }

    @Test
    void aListPrefixComesFirstAndTheKeyBeforeEveryOtherField() {
        Trade a = trade(2, new double[] {1.0, 2.0});
        Trade b = trade(2, new double[] {1.0, 2.0, -5.0});
        Trade c = trade(3, new double[] {0.5});
        assertTrue(TotalOrder.rootTrade(a, b) < 0 && TotalOrder.rootTrade(b, c) < 0);
        assertEquals(0, TotalOrder.rootTrade(b, trade(2, new double[] {1.0, 2.0, -5.0})));
    }

    @Test
    void anAbsentOptionalComesBeforeAPresentOne() {
        Tweet a = tweet(null);
        Tweet b = tweet(-7L);
        assertTrue(TotalOrder.cmpTweet(a, b) < 0 && TotalOrder.cmpTweet(b, a) > 0);
        assertTrue(TotalOrder.cmpTweet(b, tweet(-6L)) < 0);
    }

    private static Trade trade(long source, double[] prices) {
        Trade t = new Trade();
        t.sourceId = source;
        t.prices = prices;
        t.quantities = new long[0];
        return t;
    }

    private static Tweet tweet(Long inReplyTo) {
        Tweet t = new Tweet();
        t.createdAt = "x";
        t.idStr = "1";
        t.text = "t";
        t.source = "s";
        t.inReplyToStatusId = inReplyTo;
        return t;
    }

    @Test
    void footprintCountsStringsArraysAndAlignment() {
        assertEquals(24 + 16, Footprint.str(""));
        assertEquals(24 + 24, Footprint.str("12345678"));
        assertEquals(24 + 32, Footprint.str("\u0100234567"));
        assertEquals(16 + 8 * 3, Footprint.array(3, 8));
        assertEquals(24, Footprint.array(1, 4 + 1));
    }
}
