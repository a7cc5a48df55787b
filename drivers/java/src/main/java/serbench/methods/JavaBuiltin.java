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
import java.util.Map;
import java.util.Set;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.model.Models;
import serbench.wire.DecodeException;

/**
 * `java_builtin`: Java serialization of the model classes (Serializable, default field
 * serialization), one ObjectOutputStream per object so every stored object stands alone.
 * Reading goes through an ObjectInputFilter allow-list: the model classes, their arrays and
 * the JDK value classes they hold; any other class in a stream is refused before it loads.
 * What is read must be a tree (TreeCheck): a stream may share a child between two fields;
 * and every required field must hold a value (ModelType.missing).
 */
public final class JavaBuiltin<T> extends Materialized<T> {
    public static final MethodSpec SPEC = new MethodSpec("java_builtin",
        List.of(Depth.MATERIALIZE), List.of(MethodSpec.SRC + "JavaBuiltin.java",
            MethodSpec.SRC + "TreeCheck.java"), true, false, Map.of(), JavaBuiltin::new);

    /**
     * Nesting bound, in readObject calls: at most two per model level (an array, then its
     * element) for the 64 levels the other readers allow (WireIn, ExtIn, FlatIn).
     */
    static final long MAX_DEPTH = 2 * 64 + 2;
    static final Set<Class<?>> ALLOWED = allowed();

    private final Streams.Out out = new Streams.Out();
    private final Streams.In in = new Streams.In();
    private final TreeCheck tree = new TreeCheck();

    JavaBuiltin(ModelType<T> model) {
        super(model);
    }

    private static Set<Class<?>> allowed() {
        Set<Class<?>> s = new HashSet<>(Models.CLASSES);
        s.addAll(List.of(String.class, Number.class, Enum.class, Boolean.class, Byte.class,
            Short.class, Integer.class, Long.class, Double.class));
        return s;
    }

    /**
     * JEP 290's checks for one stream of `payload` bytes: the allow-list, the nesting and the
     * length of an array (checked before it is allocated: every element takes a byte of the
     * stream at least). References and stream bytes need no bound of their own: each takes
     * bytes of the payload, which ends the stream; the work they can cause after the read
     * (shared children) is TreeCheck's.
     */
    static final class Filter implements ObjectInputFilter {
        private final Set<Class<?>> allowed;
        private final int payload;
        /** Why the last refused check refused, for the error. */
        String refusal;

        Filter(Set<Class<?>> allowed, int payload) {
            this.allowed = allowed;
            this.payload = payload;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            refusal = refusal(info);
            if (refusal != null) {
                return Status.REJECTED;
            }
            return info.serialClass() == null ? Status.UNDECIDED : Status.ALLOWED;
        }

        private String refusal(FilterInfo info) {
            if (info.depth() > MAX_DEPTH) {
                return "nested deeper than " + MAX_DEPTH + " objects";
            }
            if (info.arrayLength() > payload) {
                return "an array of " + info.arrayLength() + " elements in a " + payload
                    + "-byte payload";
            }
            Class<?> c = info.serialClass();
            while (c != null && c.isArray()) {
                c = c.getComponentType();
            }
            return c == null || c.isPrimitive() || allowed.contains(c) ? null
                : "refused by the allow-list: " + c.getName();
        }
    }

    /** Reads the one object of a stream through `filter`, its refusals as decode errors. */
    static Object read(Streams.In in, Filter filter) throws Exception {
        try (ObjectInputStream o = new Input(in, filter)) {
            return o.readObject();
        } catch (InvalidClassException e) {
            throw new DecodeException(-1, filter.refusal != null ? filter.refusal
                : "refused: " + e.getMessage());
        }
    }

    /**
     * Resolves classes with the driver's loader: the default walks the stack for the latest
     * user loader on every class descriptor, which dominates reading small objects.
     */
    static final class Input extends ObjectInputStream {
        Input(InputStream in, ObjectInputFilter filter) throws IOException {
            super(in);
            setObjectInputFilter(filter);
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
        Object v = read(in.on(page, off, len), new Filter(ALLOWED, len));
        tree.check(v, len);
        T value = Materialized.checked(model, v, in);
        // a stream may hold null for any field: a required one is refused by name, as the xml
        // reader refuses an absent element (a walk of null checks, small beside the read)
        String absent = model.missing(value);
        if (absent != null) {
            throw new DecodeException(-1, "required field " + absent + " is missing (the "
                + "stream holds null for it)");
        }
        return value;
    }
}
