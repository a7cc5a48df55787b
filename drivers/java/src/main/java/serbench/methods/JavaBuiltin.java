package serbench.methods;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import serbench.Bytes;
import serbench.Depth;
import serbench.model.ModelType;
import serbench.model.Models;
import serbench.wire.DecodeException;

/**
 * `java_builtin`: Java serialization of the model classes (Serializable, default field
 * serialization), one ObjectOutputStream per object so every stored object stands alone.
 * Reading goes through an ObjectInputFilter allow-list: the model classes, their arrays and
 * the JDK value classes they hold; any other class in a stream is refused before it loads.
 */
public final class JavaBuiltin<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("java_builtin", List.of(Depth.MATERIALIZE),
        "JavaBuiltin.java", JavaBuiltin::new);

    /** Nesting bound against hostile streams (tweets nest a few levels). */
    static final long MAX_DEPTH = 256;
    static final Set<Class<?>> ALLOWED = allowed();

    private final Streams.Out out = new Streams.Out();
    private final Streams.In in = new Streams.In();

    JavaBuiltin(ModelType<T> model) {
        super(model);
    }

    private static Set<Class<?>> allowed() {
        Set<Class<?>> s = new HashSet<>(Models.CLASSES);
        s.addAll(List.of(String.class, Number.class, Enum.class, Boolean.class, Byte.class,
            Short.class, Integer.class, Long.class, Double.class));
        return s;
    }

    /** The allow-list: a class outside it (or an array of one) is rejected. */
    static ObjectInputFilter.Status check(ObjectInputFilter.FilterInfo info, Set<Class<?>> ok) {
        if (info.depth() > MAX_DEPTH) {
            return ObjectInputFilter.Status.REJECTED;
        }
        Class<?> c = info.serialClass();
        if (c == null) {
            return ObjectInputFilter.Status.UNDECIDED;
        }
        while (c.isArray()) {
            c = c.getComponentType();
        }
        return c.isPrimitive() || ok.contains(c) ? ObjectInputFilter.Status.ALLOWED
            : ObjectInputFilter.Status.REJECTED;
    }

    /**
     * Resolves classes with the driver's loader: the default walks the stack for the latest
     * user loader on every class descriptor, which dominates reading small objects.
     */
    static final class Input extends ObjectInputStream {
        Input(InputStream in, Set<Class<?>> allowed) throws IOException {
            super(in);
            setObjectInputFilter(info -> check(info, allowed));
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException,
                ClassNotFoundException {
            try {
                return Class.forName(desc.getName(), false, JavaBuiltin.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                return super.resolveClass(desc);
            }
        }
    }

    @Override
    public void encode(T value, Bytes bytes) throws Exception {
        try (ObjectOutputStream o = new ObjectOutputStream(out.on(bytes))) {
            o.writeObject(value);
        }
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws Exception {
        in.on(page, off, len);
        Object v;
        try (ObjectInputStream o = new Input(in, ALLOWED)) {
            v = o.readObject();
        } catch (InvalidClassException e) {
            throw new DecodeException(-1, "refused by the allow-list: " + e.getMessage());
        }
        return Materialized.checked(model, v, in);
    }
}
