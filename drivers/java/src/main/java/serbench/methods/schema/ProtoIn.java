package serbench.methods.schema;

import serbench.wire.DecodeException;

/** The checks protobuf cannot express: a required message is set, an enum value is known. */
public final class ProtoIn {
    private ProtoIn() {}

    public static void require(boolean present, String field) {
        if (!present) {
            throw new DecodeException(-1, "required message " + field + " is not set");
        }
    }

    public static int ordinal(int value, int count, String field) {
        if (value < 0 || value >= count) {
            throw new DecodeException(-1, field + " holds " + value + ", not an enum value 0.."
                + (count - 1));
        }
        return value;
    }
}
