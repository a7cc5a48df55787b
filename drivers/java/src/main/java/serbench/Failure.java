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
        return new Failure(missing ? "not_found" : "internal", path + ": " + reason(e));
    }

    /**
     * What went wrong, without the path: the JDK's file exceptions put it in their message
     * ("/x/a.pages", "/x/a.pages (No such file or directory)") and often no reason at all.
     */
    static String reason(java.io.IOException e) {
        if (e instanceof java.nio.file.FileSystemException f) {
            return f.getReason() != null ? f.getReason() : withoutReason(f);
        }
        String message = e.getMessage() == null ? "" : e.getMessage();
        int open = message.lastIndexOf(" (");
        if (e instanceof java.io.FileNotFoundException) {
            return open >= 0 && message.endsWith(")")
                ? message.substring(open + 2, message.length() - 1) : "no such file or directory";
        }
        return message.isEmpty() ? e.getClass().getSimpleName() : message;
    }

    private static String withoutReason(java.nio.file.FileSystemException f) {
        if (f instanceof java.nio.file.NoSuchFileException) {
            return "no such file or directory";
        }
        if (f instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (f instanceof java.nio.file.NotDirectoryException) {
            return "not a directory";
        }
        return f.getClass().getSimpleName();
    }
}
