package serbench.wire;

import java.lang.reflect.Field;
import java.nio.ByteOrder;
import sun.misc.Unsafe;

/** The sun.misc.Unsafe instance of `handcoded_unsafe`; its native order is the shared one. */
final class UnsafeAccess {
    private UnsafeAccess() {}

    static final Unsafe U = find();
    static final long BYTES = Unsafe.ARRAY_BYTE_BASE_OFFSET;

    private static Unsafe find() {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalStateException("handcoded_unsafe needs a little-endian machine");
        }
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("sun.misc.Unsafe is not accessible", e);
        }
    }
}
