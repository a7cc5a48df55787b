package serbench.wire;

import java.lang.reflect.Field;
import java.nio.ByteOrder;
import sun.misc.Unsafe;

/**
 * The sun.misc.Unsafe instance of `handcoded_unsafe`; its native order is the shared one. The
 * one class that names sun.misc: javac's warning that it is internal API is silenced for the
 * module (drivers/java/pom.xml), and tests/test_java_codegen.py keeps every other class off it.
 */
final class UnsafeAccess {
    private UnsafeAccess() {}

    static final Unsafe U = find();
    static final long BYTES = Unsafe.ARRAY_BYTE_BASE_OFFSET;
    static final long INTS = Unsafe.ARRAY_INT_BASE_OFFSET;
    static final long LONGS = Unsafe.ARRAY_LONG_BASE_OFFSET;
    static final long DOUBLES = Unsafe.ARRAY_DOUBLE_BASE_OFFSET;

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
