package serbench.methods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import serbench.Bytes;
import serbench.ModelType;
import serbench.Registry;
import serbench.Vectors;
import serbench.model.Tweet;
import serbench.tasks.Json;
import serbench.wire.DecodeException;

/**
 * PROTOCOL.md 2.1 in the readers whose library has no bound of its own at 64 levels, xml
 * (XStream recurses until its stack guard, near 100,000) and msgpack (Jackson's msgpack
 * parser, until the stack overflows): a tweet nested 64 levels deep reads back, one level
 * more is refused with the reason.
 */
class NestingTest {
    @SuppressWarnings("unchecked")
    private static final ModelType<Tweet> TWEET = (ModelType<Tweet>) ModelType.byId("tweet");

    /**
     * Innermost golden tweet 0 ends in an empty list (`entities.hashtags`), which XML writes
     * as an empty element no deeper than the list itself; tweet 1 ends in values.
     */
    static Stream<Arguments> readers() {
        return Stream.of("xml", "msgpack").flatMap(method ->
            Stream.of(Arguments.of(method, 0), Arguments.of(method, 1)));
    }

    @ParameterizedTest(name = "{0}, innermost golden tweet {1}")
    @MethodSource("readers")
    void sixtyFourLevelsReadBackAndSixtyFiveAreRefused(String method, int innermost)
            throws Exception {
        Codec<Tweet> codec = Registry.method(method).codec(TWEET);
        Tweet deepest = nested(innermost, Nesting.MAX);
        assertTrue(TWEET.same(deepest, roundTrip(codec, deepest)));
        Tweet deeper = nested(innermost, Nesting.MAX + 1);
        DecodeException e = assertThrows(DecodeException.class, () -> roundTrip(codec, deeper));
        assertTrue(e.getMessage().endsWith("nested deeper than 64 levels (PROTOCOL.md 2.1)"),
            e.getMessage());
    }

    /** Golden tweet `innermost` retweeted by golden tweet 0 until it nests `levels` deep. */
    static Tweet nested(int innermost, int levels) throws Exception {
        Tweet t = Json.load(Vectors.jsonl("tweet"), TWEET).get(innermost);
        while (Nesting.of(t) < levels) {
            Tweet retweet = Json.load(Vectors.jsonl("tweet"), TWEET).get(0);
            retweet.retweetedStatus = t;
            t = retweet;
        }
        assertEquals(levels, Nesting.of(t));
        return t;
    }

    static Tweet roundTrip(Codec<Tweet> codec, Tweet value) throws Exception {
        Bytes bytes = new Bytes(1024);
        codec.encode(value, bytes);
        return codec.decode(ByteBuffer.wrap(bytes.array, 0, bytes.length), 0, bytes.length);
    }
}
