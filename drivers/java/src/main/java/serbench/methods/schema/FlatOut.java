package serbench.methods.schema;

/** What the generated flatbuffers writers need beyond the builder. */
public final class FlatOut {
    private FlatOut() {}

    /** -0.0 equals the default 0.0 for the builder, so it is written with defaults forced. */
    public static boolean negativeZero(double d) {
        return Double.doubleToRawLongBits(d) == Long.MIN_VALUE;
    }
}
