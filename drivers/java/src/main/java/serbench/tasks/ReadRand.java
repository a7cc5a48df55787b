package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import serbench.Depth;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;

/** read_rand: the objects named by the first n ids of the harness's id file. */
public final class ReadRand implements Task {
    @Override
    public String id() {
        return "read_rand";
    }

    @Override
    public <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params) throws Exception {
        Repetitions reps = new Repetitions(params);
        Path base = params.path("input");
        long[] ids = Tasks.readIds(params.path("ids"), params.u64("n"));
        return Tasks.read(codec, method, model, depth, params, reps, base,
            new Reads.Selection(0, 0, ids));
    }
}
