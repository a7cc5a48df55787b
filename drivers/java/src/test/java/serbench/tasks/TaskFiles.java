package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Vectors;
import serbench.methods.MethodSpec;
import serbench.paged.Index;

/** Small paged files for the task tests, written by the Java writer from the vectors. */
final class TaskFiles {
    private TaskFiles() {}

    /** `count` objects cycling through the model's vectors, written as `base`. */
    static <T> List<T> write(MethodSpec method, ModelType<T> model, int count, Path base,
            int pageSize) throws Exception {
        List<T> vectors = Json.load(Vectors.jsonl(model.id), model);
        List<T> objects = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            objects.add(vectors.get(i % vectors.size()));
        }
        Tasks.writeFile(method.codec(model), method, model, objects, base, pageSize,
            Index.noRun(), new IoTimer());
        return objects;
    }

    /** The set checksum of the objects by the Java fold. */
    static <T> Checksum setChecksum(ModelType<T> model, List<T> objects) {
        Checksum c = new Checksum();
        objects.forEach(o -> c.add(model.hash(o)));
        return c;
    }

    static ObjectNode params(int warmups, int repetitions) {
        ObjectNode p = Json.MAPPER.createObjectNode();
        p.put("cold", false);
        p.put("warmups", warmups);
        p.put("repetitions", repetitions);
        return p;
    }
}
