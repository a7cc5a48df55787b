package serbench.model;

import java.util.function.BiPredicate;

/** Element-wise equality of struct lists (used by the generated `same`). */
final class Same {
    private Same() {}

    static <T> boolean all(T[] a, T[] b, BiPredicate<T, T> same) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (!same.test(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }
}
