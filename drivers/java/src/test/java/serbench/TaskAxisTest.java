package serbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serbench.tasks.Json;
import serbench.tasks.Task;

/**
 * The task axis through the serve loop: `run` finds its task in the registry by id, and an id
 * the registry lacks is an error, never another task run in its place.
 */
class TaskAxisTest {
    private static final String MODEL = "part";

    private static JsonNode respond(ObjectNode request) {
        return Main.respond(request.toString()).response();
    }

    /** A run request of a materializing handcoded cell on `part` with the task's params. */
    private static ObjectNode run(String task, ObjectNode params) {
        ObjectNode req = Json.MAPPER.createObjectNode();
        req.put("id", 1);
        req.put("op", "run");
        req.put("task", task);
        req.put("model", MODEL);
        req.put("method", "handcoded");
        req.put("depth", task.equals("write") ? "" : "materialize");
        req.put("variant", "");
        params.put("cold", false);
        params.put("warmups", 0);
        params.put("repetitions", 1);
        req.set("params", params);
        return req;
    }

    /** The part vectors written as `base` by the encode op. */
    private static void encode(Path base) {
        ObjectNode req = Json.MAPPER.createObjectNode();
        req.put("id", 1);
        req.put("op", "encode");
        req.put("model", MODEL);
        req.put("method", "handcoded");
        req.put("depth", "");
        req.put("variant", "");
        ObjectNode p = req.putObject("params");
        p.put("input", Vectors.jsonl(MODEL).toString());
        p.put("output", base.toString());
        p.put("page_size", 4096);
        assertEquals("ok", respond(req).get("status").asText());
    }

    private static Path ids(Path dir, long... ids) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(8 * ids.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long id : ids) {
            b.putLong(id);
        }
        Path path = dir.resolve("ids");
        Files.write(path, b.array());
        return path;
    }

    /** The set checksum of the vectors at `positions`, as the protocol writes it. */
    private static JsonNode checksumOf(int... positions) throws Exception {
        List<Long> hashes = Vectors.hashes(MODEL);
        long sum = 0;
        for (int p : positions) {
            sum += hashes.get(p);
        }
        ObjectNode c = Json.MAPPER.createObjectNode();
        c.put("count", (long) positions.length);
        c.put("sum", Hasher.hex(sum));
        return c;
    }

    private static ObjectNode paramsOf(Map<String, ObjectNode> all, String task) {
        return all.computeIfAbsent(task, k -> Json.MAPPER.createObjectNode());
    }

    @Test
    void anIdTheRegistryLacksIsAnErrorNeverAnotherTask(@TempDir Path dir) throws Exception {
        Path base = dir.resolve("f");
        encode(base);
        // a request every reading task could run: only its id may decide what happens
        ObjectNode p = Json.MAPPER.createObjectNode();
        p.put("input", base.toString());
        p.put("ids", ids(dir, 0).toString());
        p.put("start", 0);
        p.put("n", 1);
        JsonNode r = respond(run("read_random", p));
        assertEquals("error", r.get("status").asText(), r.toString());
        assertEquals("bad_request", r.at("/error/kind").asText());
        assertTrue(r.at("/error/message").asText().contains("'read_random'"), r.toString());
        assertFalse(r.has("result"));
        for (String id : Registry.PROTOCOL_TASKS) {
            if (!Registry.TASKS.containsKey(id)) {
                JsonNode u = respond(run(id, p.deepCopy()));
                assertEquals(Failure.UNSUPPORTED, u.get("status").asText(), id);
                assertTrue(u.get("message").asText().contains(id), u.toString());
            }
        }
    }

    @Test
    void everyRegisteredTaskRunsItself(@TempDir Path dir) throws Exception {
        Path base = dir.resolve("f");
        encode(base);
        String input = base.toString();
        String ids = ids(dir, 3, 2).toString();
        // per task: its params, and what only that task answers; read_seq and read_rand are
        // told apart by selections with no object in common
        Map<String, ObjectNode> params = new LinkedHashMap<>();
        Map<String, Consumer<JsonNode>> shows = new LinkedHashMap<>();
        ObjectNode p = paramsOf(params, "write");
        p.put("input", Vectors.jsonl(MODEL).toString());
        p.put("output", dir.resolve("written").toString());
        shows.put("write", r -> {
            assertTrue(r.at("/counters/avg_object_bytes").isNumber(), r.toString());
            assertTrue(Files.exists(dir.resolve("written.pages")), "write wrote its file");
        });
        p = paramsOf(params, "read_seq");
        p.put("input", input).put("ids", ids).put("start", 0).put("n", 2);
        JsonNode firstTwo = checksumOf(0, 1);
        shows.put("read_seq", r -> assertEquals(firstTwo, r.get("checksum"), r.toString()));
        p = paramsOf(params, "read_rand");
        p.put("input", input).put("ids", ids).put("start", 0).put("n", 2);
        JsonNode byIds = checksumOf(3, 2);
        assertNotEquals(firstTwo, byIds);
        shows.put("read_rand", r -> assertEquals(byIds, r.get("checksum"), r.toString()));
        p = paramsOf(params, "read_par");
        p.put("input", input).put("ids", ids).put("n", 2).put("threads", 2).put("mode", "rand");
        shows.put("read_par", r -> {
            assertEquals(2, r.at("/counters/threads").asLong(), r.toString());
            assertEquals(byIds, r.get("checksum"));
        });
        p = paramsOf(params, "sort_dedup");
        Path sorted = Files.createDirectory(dir.resolve("sort"));
        p.put("input", input).put("output", sorted.toString()).put("budget_bytes", 1 << 20);
        shows.put("sort_dedup", r -> {
            assertTrue(r.at("/counters/runs").isNumber(), r.toString());
            assertTrue(Files.exists(sorted.resolve("sorted.pages")), "sort_dedup wrote");
        });
        p = paramsOf(params, "memory");
        p.put("input", input).put("n", 2);
        shows.put("memory", r -> assertEquals("heap_after_gc",
            r.at("/counters/accounting").asText(), r.toString()));
        p = paramsOf(params, "micro");
        p.put("input", Vectors.jsonl(MODEL).toString()).put("n", 2).put("iterations", 3)
            .put("buffer", "reused");
        shows.put("micro", r -> assertEquals(3, r.at("/counters/iterations").asLong(),
            r.toString()));

        assertEquals(shows.keySet(), Registry.TASKS.keySet(),
            "every task of the registry has a case here");
        List<String> ran = new ArrayList<>();
        for (String id : Registry.TASKS.keySet()) {
            JsonNode r = respond(run(id, params.get(id)));
            assertEquals("ok", r.get("status").asText(), id + ": " + r);
            shows.get(id).accept(r.get("result"));
            ran.add(id);
        }
        assertEquals(List.copyOf(Registry.TASKS.keySet()), ran);
    }

    @Test
    void infoReportsExactlyTheRegistrysTasks() {
        JsonNode info = Main.respond("{\"id\":1,\"op\":\"info\"}").response().get("result");
        List<String> reported = new ArrayList<>();
        info.get("tasks").forEach(t -> reported.add(t.asText()));
        assertEquals(List.copyOf(Registry.TASKS.keySet()), reported);
        for (Map.Entry<String, Task> e : Registry.TASKS.entrySet()) {
            assertEquals(e.getKey(), e.getValue().id(), "registered under its own id");
            assertTrue(Registry.PROTOCOL_TASKS.contains(e.getKey()), e.getKey());
        }
    }
}
