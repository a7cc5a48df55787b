package serbench.methods;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import serbench.Bytes;

/** Stream adapters over the reused buffers, so stream-based libraries copy nothing extra. */
final class Streams {
    private Streams() {}

    /** Appends to the Bytes it is pointed at. */
    static final class Out extends OutputStream {
        Bytes to;

        Out on(Bytes to) {
            this.to = to;
            return this;
        }

        @Override
        public void write(int b) {
            to.reserve(1);
            to.array[to.length++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            to.append(b, off, len);
        }
    }

    /** Reads [off, off + len) of a heap page; `left()` says what a reader did not consume. */
    static final class In extends InputStream {
        private byte[] a;
        private int pos;
        private int end;

        In on(ByteBuffer page, int off, int len) {
            return on(page.array(), off, len);
        }

        In on(byte[] a, int off, int len) {
            this.a = a;
            pos = off;
            end = off + len;
            return this;
        }

        int left() {
            return end - pos;
        }

        @Override
        public int read() {
            return pos < end ? a[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (pos >= end) {
                return -1;
            }
            int n = Math.min(len, end - pos);
            System.arraycopy(a, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public long skip(long n) {
            int k = (int) Math.max(0, Math.min(n, end - pos));
            pos += k;
            return k;
        }

        @Override
        public int available() {
            return end - pos;
        }
    }
}
