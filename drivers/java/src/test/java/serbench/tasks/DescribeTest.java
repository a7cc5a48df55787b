package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.UTFDataFormatException;
import java.nio.charset.MalformedInputException;
import org.junit.jupiter.api.Test;
import serbench.wire.DecodeException;

/** Errors say what is wrong with the bytes even when the library's exception does not. */
class DescribeTest {
    @Test
    void bareLibraryExceptionsSayWhatTheyMeanForTheBytes() {
        assertEquals("a string that is not (modified) UTF-8 (UTFDataFormatException)",
            Reads.describe(new UTFDataFormatException()));
        assertEquals("text that is not UTF-8 (MalformedInputException: Input length = 1)",
            Reads.describe(new MalformedInputException(1)));
        assertEquals("a field the object needs is missing (IllegalStateException: reading "
            + "part; caused by NullPointerException: name is null)",
            Reads.describe(new IllegalStateException("reading part",
                new NullPointerException("name is null"))));
    }

    @Test
    void ourOwnMessagesAndPlainOnesAreKept() {
        assertEquals("byte 5: a vector of negative length -1",
            Reads.describe(new DecodeException(5, "a vector of negative length -1")));
        assertEquals("IllegalArgumentException: bad tag 7\nsecond line".lines().findFirst()
            .orElseThrow(), Reads.describe(new IllegalArgumentException("bad tag 7\nsecond line")));
        assertEquals("IllegalArgumentException", Reads.describe(new IllegalArgumentException()));
    }
}
