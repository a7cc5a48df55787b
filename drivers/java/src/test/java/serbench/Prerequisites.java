package serbench;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * The one skip policy (README, Testing): a test whose prerequisite is missing (a tmpfs, the
 * kernel's scheduler statistics) is skipped saying why, or fails under CI=true, where
 * `make test` has set everything up and a skip would hide a break.
 */
public final class Prerequisites {
    private Prerequisites() {}

    public static void require(boolean present, String reason) {
        if (present) {
            return;
        }
        if ("true".equals(System.getenv("CI"))) {
            fail("missing prerequisite under CI=true: " + reason);
        }
        Assumptions.abort(reason);
    }
}
