package serbench.methods;

import java.lang.reflect.Field;
import java.util.ArrayDeque;

/**
 * PROTOCOL.md 2.1: a canonical object nests at most 64 levels, each object and each list one
 * level. For readers whose library has no bound of its own at that depth (XStream, msgpack's
 * Jackson parser), which refuse deeper input themselves.
 */
final class Nesting {
    static final int MAX = 64;
    static final String TOO_DEEP = "nested deeper than " + MAX + " levels (PROTOCOL.md 2.1)";

    private Nesting() {}

    /** How deep a decoded model object nests as canonical JSON (iterative). */
    static int of(Object root) throws IllegalAccessException {
        int deepest = 0;
        ArrayDeque<Object> values = new ArrayDeque<>();
        ArrayDeque<Integer> levels = new ArrayDeque<>();
        values.push(root);
        levels.push(1);
        while (!values.isEmpty()) {
            Object v = values.pop();
            int level = levels.pop();
            deepest = Math.max(deepest, level);
            for (Object child : children(v)) {
                if (child != null && (child.getClass().isArray()
                        || TreeCheck.MODEL.contains(child.getClass()))) {
                    values.push(child);
                    levels.push(level + 1);
                }
            }
        }
        return deepest;
    }

    /** The values a model object's fields or an array's elements hold. */
    private static Object[] children(Object v) throws IllegalAccessException {
        if (v.getClass().isArray()) {
            return v.getClass().getComponentType().isPrimitive() ? new Object[0] : (Object[]) v;
        }
        Field[] fields = TreeCheck.FIELDS.get(v.getClass());
        Object[] out = new Object[fields.length];
        for (int k = 0; k < fields.length; k++) {
            out[k] = fields[k].get(v);
        }
        return out;
    }
}
