package serbench.methods;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import serbench.model.Models;
import serbench.wire.DecodeException;

/**
 * Bounds the work a decoded object graph can cause, for readers that follow references (Java
 * serialization). Such a stream can hand back the same child through two fields, level after
 * level: a few hundred bytes whose visit as a tree (the checksum, the sort's comparisons)
 * takes 2^levels steps. Serbench's objects are trees and its writers never share a model
 * object or an array, so one reached twice is refused; strings (immutable, which writers may
 * share) count their chars each time they are reached, at most one per payload byte (a
 * stored char takes at least one byte). The walk itself visits each object once; its set
 * and stack are kept from object to object (one TreeCheck per codec, like its buffers).
 */
final class TreeCheck {
    static final Set<Class<?>> MODEL = Set.copyOf(Models.CLASSES);

    /** The reference fields of each model class, found once. */
    static final ClassValue<Field[]> FIELDS = new ClassValue<>() {
        @Override
        protected Field[] computeValue(Class<?> c) {
            List<Field> out = new ArrayList<>();
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
                    f.setAccessible(true);
                    out.add(f);
                }
            }
            return out.toArray(new Field[0]);
        }
    };

    private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    private final ArrayDeque<Object> todo = new ArrayDeque<>();

    /** Refuses a graph under `root` that is not a tree or holds more text than `payload`. */
    void check(Object root, int payload) throws IllegalAccessException {
        seen.clear();
        todo.clear();
        long chars = 0;
        todo.push(root);
        while (!todo.isEmpty()) {
            Object v = todo.pop();
            if (v instanceof String s) {
                chars += s.length();
                if (chars > payload) {
                    throw new DecodeException(-1, "strings reached through shared references "
                        + "hold more than " + payload + " chars in a " + payload
                        + "-byte payload");
                }
            } else if (v.getClass().isArray() || MODEL.contains(v.getClass())) {
                if (!seen.add(v)) {
                    throw new DecodeException(-1, "a " + v.getClass().getSimpleName()
                        + " reached through a second reference in a " + payload + "-byte "
                        + "payload (a shared child, visited once per path; serbench writes "
                        + "trees)");
                }
                children(v);
            }
        }
    }

    /** Pushes the non-null references an array or model object holds. */
    private void children(Object v) throws IllegalAccessException {
        if (v.getClass().isArray()) {
            if (!v.getClass().getComponentType().isPrimitive()) {
                for (Object x : (Object[]) v) {
                    pushIfSet(x);
                }
            }
            return;
        }
        for (Field f : FIELDS.get(v.getClass())) {
            pushIfSet(f.get(v));
        }
    }

    private void pushIfSet(Object v) {
        if (v != null) {
            todo.push(v);
        }
    }
}
