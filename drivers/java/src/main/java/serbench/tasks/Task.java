package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import serbench.Depth;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;

/**
 * One task of the task axis (PROTOCOL.md section 5): one class per task, written only against
 * Codec and generic over the model; Registry.TASKS finds it by id.
 */
public interface Task {
    /** The protocol's id of the task. */
    String id();

    /** Whether the request reads at a depth; write's names none (its depth is ""). */
    default boolean reads() {
        return true;
    }

    /** Whether the task encodes with the cell's method, which a read-only method (raw) can't. */
    default boolean writes() {
        return false;
    }

    /** Runs the task's warm-ups and repetitions; the result object of PROTOCOL.md section 5. */
    <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model, Depth depth,
        Params params) throws Exception;
}
