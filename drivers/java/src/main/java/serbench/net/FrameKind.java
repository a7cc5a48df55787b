package serbench.net;

/** What a frame carries (PROTOCOL.md 10.2); any other kind byte is garbage on the socket. */
public enum FrameKind {
    /** `SERBNET1` then a JSON object: who is speaking and what it speaks. */
    HELLO(1),
    /** A JSON object: the harness's control messages and the nodes' answers. */
    CONTROL(2),
    /** A network page: entries and whole storage pages (10.3). */
    PAGES(3),
    /** The end of one stream: a JSON summary. */
    END(4),
    /** A request for one stream: a JSON object. */
    REQUEST(5),
    /** The sender failed: `{"kind", "message"}`. */
    ERROR(6);

    public final byte id;

    FrameKind(int id) {
        this.id = (byte) id;
    }

    /** The kind of a header's kind byte, or null for a byte no frame has. */
    static FrameKind of(byte b) {
        for (FrameKind k : values()) {
            if (k.id == b) {
                return k;
            }
        }
        return null;
    }
}
