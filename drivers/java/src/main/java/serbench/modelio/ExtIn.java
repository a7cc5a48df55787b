package serbench.modelio;

import java.io.DataInput;
import java.io.IOException;
import serbench.wire.DecodeException;

/**
 * Checks of the Externalizable field stream: counts bounded by the object's length (so a
 * corrupted count cannot allocate gigabytes), ordinals in range, bounded nesting.
 */
public final class ExtIn {
    private ExtIn() {}

    private static final int MAX_NESTING = 64;

    /** Per decoding thread (read_par decodes on several): the object's bytes, its depth. */
    private static final class State {
        int limit = Integer.MAX_VALUE;
        int nesting;
    }

    private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

    /**
     * Called by the codec before each object: no list can hold more elements than its bytes,
     * and a previous object's failure leaves no depth behind.
     */
    public static void begin(int objectBytes) {
        State s = STATE.get();
        s.limit = objectBytes;
        s.nesting = 0;
    }

    public static int count(DataInput i) throws IOException {
        int n = i.readInt();
        int limit = STATE.get().limit;
        if (n < 0 || n > limit) {
            throw new DecodeException(-1, "list count " + n + " exceeds the object's " + limit
                + " bytes");
        }
        return n;
    }

    public static int ordinal(DataInput i, int symbols) throws IOException {
        int b = i.readUnsignedByte();
        if (b >= symbols) {
            throw new DecodeException(-1, "enum ordinal " + b + " of " + symbols + " symbols");
        }
        return b;
    }

    public static void enter() {
        if (++STATE.get().nesting > MAX_NESTING) {
            throw new DecodeException(-1, "nested deeper than " + MAX_NESTING + " levels");
        }
    }

    public static void exit() {
        STATE.get().nesting--;
    }
}
