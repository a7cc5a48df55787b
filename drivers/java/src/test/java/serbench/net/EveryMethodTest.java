package serbench.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Registry;
import serbench.Vectors;
import serbench.methods.MethodSpec;
import serbench.model.Models;
import serbench.model.TotalOrder;
import serbench.paged.Index;
import serbench.tasks.Checksum;
import serbench.tasks.Json;
import serbench.tasks.Tasks;

/**
 * Every method the registry lists that encodes, on every model, through real nodes: a
 * three-node sort-merge (objects decoded at setup, encoded into network pages, decoded again
 * a page at a time, written at the root); on tweets also a fetch whose client decodes the
 * shipped pages at every depth the method offers. The network code names no method: a method added to the registry runs here.
 */
class EveryMethodTest {
    private static final int P = 512;
    private static final int N = 5;

    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        for (MethodSpec m : Registry.METHODS) {
            for (ModelType<?> model : m.writes() ? Models.ALL : List.<ModelType<?>>of()) {
                out.add(Arguments.of(m.id(), model.id));
            }
        }
        return out.stream();
    }

    private static ObjectNode params() {
        return Json.MAPPER.createObjectNode().put("net_page_bytes", 4096)
            .put("peer_timeout_ms", 10_000);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cells")
    @SuppressWarnings("unchecked")
    void sortsAndFetchesThroughNodes(String id, String modelId, @TempDir Path dir)
            throws Exception {
        MethodSpec method = Registry.method(id);
        ModelType<Object> model = (ModelType<Object>) ModelType.byId(modelId);
        List<Object> vectors = Json.load(Vectors.jsonl(modelId), model);
        List<Object> objects = new ArrayList<>();
        for (int i = 0; i < 3 * N; i++) {
            objects.add(vectors.get((i * 7) % vectors.size()));
        }
        Path input = dir.resolve("in");
        Tasks.writeFile(method.codec(model), method, model, objects, input, P, Index.noRun(),
            new IoTimer());
        Path output = Files.createDirectory(dir.resolve("out"));
        List<Object> sorted = new ArrayList<>(objects);
        sorted.sort((Comparator<Object>) TotalOrder.of(modelId));
        Hasher sequence = new Hasher();
        Checksum set = new Checksum();
        for (Object o : sorted) {
            sequence.word(model.hash(o));
            set.add(model.hash(o));
        }
        try (LoopbackCell cell = new LoopbackCell("net_sort_merge", id, modelId, "")) {
            String[] names = {"root0", "leaf1", "leaf2"};
            for (int i = 0; i < 3; i++) {
                ObjectNode p = params().put("input", input.toString()).put("start", N * i)
                    .put("n", N);
                if (i == 0) {
                    p.put("output", output.toString());
                }
                cell.add(new LoopbackCell.Spec(names[i], "tree", p,
                    i == 0 ? List.of() : List.of("root0"), i == 0 ? 2 : 0));
            }
            cell.wire();
            ObjectNode root = cell.go(0).get("root0");
            assertEquals(Hasher.hex(sequence.finish()), root.get("sequence").asText(),
                root.toString());
            assertEquals(set.json().toString(), root.get("checksum").toString());
            cell.shutdown();
        }
        if (modelId.equals("tweet")) {
            for (serbench.Depth depth : method.depths()) {
                fetchDecoding(method, modelId, depth, input, output, set);
            }
        }
    }

    /** A fetch whose client decodes every object at `depth`: the set checksum of them all. */
    private static void fetchDecoding(MethodSpec method, String modelId, serbench.Depth depth,
            Path input, Path output, Checksum set) throws Exception {
        String id = method.id();
        try (LoopbackCell cell = new LoopbackCell("net_fetch", id, modelId, "decode")) {
            cell.add(new LoopbackCell.Spec("server0", "server", params()
                .put("input", input.toString()).put("start", 0).put("n", 3 * N), List.of(), 1));
            cell.add(new LoopbackCell.Spec("client", "client", params()
                .put("output", output.toString()).put("page_size", P), List.of("server0"), 0));
            ObjectNode setup = Json.MAPPER.createObjectNode().put("op", "setup")
                .put("task", "net_fetch").put("method", id).put("model", modelId)
                .put("variant", "decode").put("depth", depth.id);
            cell.wire(Map.of("server0", setup, "client", setup));
            ObjectNode client = cell.go(0).get("client");
            assertEquals(set.json().toString(), client.get("checksum").toString(),
                depth.id + ": " + client);
            cell.shutdown();
        }
    }
}
