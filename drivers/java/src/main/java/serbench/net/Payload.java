package serbench.net;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A received frame's payload, in a buffer reused from frame to frame: heap or direct, as the
 * cell's method reads pages, so its decoder reads objects where they lie in the frame.
 */
public final class Payload {
    private final boolean direct;
    private ByteBuffer buffer;
    private int length;

    public Payload(boolean direct) {
        this.direct = direct;
    }

    /** The buffer, cleared with room for exactly `len` bytes (allocated only when larger). */
    ByteBuffer fill(int len) {
        if (buffer == null || buffer.capacity() < len) {
            // whole 4 KiB pages, so a slightly larger next frame reuses the buffer (`len` is at
            // most a link's maximum frame, 1 GiB: the rounding stays an int)
            int room = (int) ((Math.max(len, 4096L) + 4095L) & ~4095L);
            buffer = direct ? ByteBuffer.allocateDirect(room) : ByteBuffer.allocate(room);
            buffer.order(ByteOrder.nativeOrder());
        }
        length = len;
        buffer.clear().limit(len);
        return buffer;
    }

    /** The payload's bytes at [0, length()) (absolute positions; heap arrays start at 0). */
    public ByteBuffer buffer() {
        return buffer;
    }

    public int length() {
        return length;
    }

    /** A copy of the bytes (JSON frames are small). */
    public byte[] copy() {
        byte[] out = new byte[length];
        if (length > 0) {
            buffer.get(0, out);
        }
        return out;
    }
}
