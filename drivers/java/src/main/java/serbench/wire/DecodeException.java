package serbench.wire;

/** A stored object that cannot be decoded: what is wrong and at which byte (-1: unknown). */
public final class DecodeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    public final int at;

    public DecodeException(int at, String message) {
        super(message);
        this.at = at;
    }

    @Override
    public String getMessage() {
        return at >= 0 ? "byte " + at + ": " + super.getMessage() : super.getMessage();
    }
}
