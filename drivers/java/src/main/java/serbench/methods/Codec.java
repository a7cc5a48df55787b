package serbench.methods;

import java.nio.ByteBuffer;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;

/** One method applied to one model: the only interface tasks and ops know. */
public interface Codec<T> {
    /** Appends the encoding of `value` to `out`, which may already hold other objects. */
    void encode(T value, Bytes out) throws Exception;

    /** Decodes the object at [off, off + len) of the page into a native value. */
    T decode(ByteBuffer page, int off, int len) throws Exception;

    /**
     * The read step of every task: folds the checksum words of one stored object into `h` at
     * `depth` (one the method offers), visiting every field.
     */
    void fold(ByteBuffer page, int off, int len, Depth depth, Hasher h) throws Exception;
}
