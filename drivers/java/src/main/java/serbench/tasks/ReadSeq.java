package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import serbench.Depth;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;

/** read_seq: objects start .. start + n in file order. */
public final class ReadSeq implements Task {
    @Override
    public String id() {
        return "read_seq";
    }

    @Override
    public <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params) throws Exception {
        Repetitions reps = new Repetitions(params);
        Path base = params.path("input");
        Reads.Selection sel = new Reads.Selection(params.u64("start"), params.u64("n"), null);
        return Tasks.read(codec, method, model, depth, params, reps, base, sel);
    }
}
