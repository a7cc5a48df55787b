package serbench;

/** A request that did not produce a result: its protocol kind and a message naming the cause. */
public final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    public static final String UNSUPPORTED = "unsupported";

    public final String kind;

    public Failure(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    public static Failure badRequest(String message) {
        return new Failure("bad_request", message);
    }

    public static Failure unsupported(String message) {
        return new Failure(UNSUPPORTED, message);
    }

    public static Failure corrupt(String message) {
        return new Failure("corrupt_input", message);
    }

    public static Failure internal(String message) {
        return new Failure("internal", message);
    }

    /** An I/O error on `path`: a missing file is not_found, anything else internal. */
    public static Failure io(java.nio.file.Path path, java.io.IOException e) {
        boolean missing = e instanceof java.nio.file.NoSuchFileException
            || e instanceof java.io.FileNotFoundException;
        return new Failure(missing ? "not_found" : "internal", path + ": " + e.getMessage());
    }
}
