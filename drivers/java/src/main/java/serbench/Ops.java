package serbench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.paged.PageReader;
import serbench.paged.PageWriter;
import serbench.tasks.Checksum;
import serbench.tasks.Json;
import serbench.tasks.Reads;
import serbench.tasks.Task;
import serbench.tasks.Tasks;
import serbench.tasks.Write;

/**
 * The protocol's operations: info, load, roundtrip, encode, scan, run and shutdown. Each
 * resolves and checks the request's cell (model, method, depth, variant), then runs code
 * generic over both through the registry.
 */
public final class Ops {
    private Ops() {}

    /** The result of one request (shutdown is answered by the serve loop). */
    public static ObjectNode answer(JsonNode req) throws Exception {
        String op = text(req, "op");
        if (op == null) {
            throw Failure.badRequest("the request has no op");
        }
        switch (op) {
            case "info":
                return Info.info();
            case "shutdown":
                return Json.MAPPER.createObjectNode();
            case "load":
                return load(Info.model(required(req, "model")), new Params(req.get("params")));
            case "roundtrip": {
                Cell<?> cell = Cell.reading(req);
                cell.writing();
                return cell.roundtrip(new Params(req.get("params")));
            }
            case "encode": {
                Cell<?> cell = Cell.resolve(req);
                cell.writing();
                return cell.encode(new Params(req.get("params")));
            }
            case "scan":
                return Cell.reading(req).scan(new Params(req.get("params")));
            case "run":
                return run(req);
            default:
                throw Failure.badRequest("unknown op '" + op
                    + "'; known ops: info, load, roundtrip, encode, scan, run, shutdown");
        }
    }

    static String text(JsonNode req, String key) throws Failure {
        JsonNode v = req.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw Failure.badRequest(key + " must be a string, got " + v);
        }
        return v.asText();
    }

    static String required(JsonNode req, String key) throws Failure {
        String v = text(req, key);
        if (v == null) {
            throw Failure.badRequest("the request has no " + key);
        }
        return v;
    }

    private static <T> ObjectNode load(ModelType<T> model, Params params) throws Failure {
        Checksum c = new Checksum();
        Json.each(params.path("input"), model, object -> c.add(model.hash(object)));
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.set("checksum", c.json());
        return r;
    }

    /** `run`: the registry's task of that id; no other task stands in for a missing one. */
    private static ObjectNode run(JsonNode req) throws Exception {
        String id = required(req, "task");
        if (!Registry.PROTOCOL_TASKS.contains(id)) {
            throw Failure.badRequest("unknown task '" + id + "'; known tasks: "
                + String.join(", ", Registry.PROTOCOL_TASKS));
        }
        Task task = Registry.TASKS.get(id);
        if (task == null) {
            throw Failure.unsupported("the java driver does not run task " + id + " yet");
        }
        Cell<?> cell = task.reads() ? Cell.reading(req) : Cell.resolve(req);
        // raw writes too: the write floor, which copies another method's file
        if (task.writes() && !(task instanceof Write)) {
            cell.writing();
        }
        return cell.run(task, new Params(req.get("params")));
    }

    /** What a request names: model, method and depth, checked against the registry. */
    static final class Cell<T> {
        final ModelType<T> model;
        final MethodSpec method;
        final Depth depth;

        Cell(ModelType<T> model, MethodSpec method, Depth depth) {
            this.model = model;
            this.method = method;
            this.depth = depth;
        }

        static Cell<?> resolve(JsonNode req) throws Failure {
            ModelType<?> model = Info.model(required(req, "model"));
            String id = required(req, "method");
            MethodSpec method = Registry.method(id);
            if (method == null) {
                List<String> known = Registry.METHODS.stream().map(MethodSpec::id).toList();
                throw Failure.badRequest("unknown method '" + id + "'; known methods: "
                    + String.join(", ", known));
            }
            String d = text(req, "depth");
            Depth depth = Depth.parse(d == null ? "" : d);
            String variant = text(req, "variant");
            if (variant != null && !variant.isEmpty()) {
                throw Failure.unsupported("java " + id + " has no variant '" + variant + "'");
            }
            return new Cell<>(model, method, depth);
        }

        /** A cell that reads: a depth the method offers, or "" for a method with none (raw). */
        static Cell<?> reading(JsonNode req) throws Failure {
            Cell<?> cell = resolve(req);
            String id = cell.method.id();
            boolean none = cell.method.depths().isEmpty();
            if (none && cell.depth != Depth.NONE) {
                throw Failure.unsupported("java " + id
                    + " reads bytes without decoding; it has no depth '" + cell.depth.id + "'");
            }
            if (!none && cell.depth == Depth.NONE) {
                throw Failure.badRequest("a read with " + id + " needs a depth: " + depths(cell));
            }
            if (!none && !cell.method.depths().contains(cell.depth)) {
                throw Failure.unsupported("java " + id + " does not support depth '"
                    + cell.depth.id + "' (it offers " + depths(cell) + ")");
            }
            return cell;
        }

        private static String depths(Cell<?> cell) {
            return String.join(", ", cell.method.depths().stream().map(d -> d.id).toList());
        }

        void writing() throws Failure {
            if (!method.writes()) {
                throw Failure.unsupported(method.id() + " reads other methods' files; it encodes "
                    + "nothing");
            }
        }

        Codec<T> codec() {
            return method.codec(model);
        }

        /** Every object encoded and read back in memory at the depth, one at a time. */
        ObjectNode roundtrip(Params params) throws Exception {
            Roundtrip<T> r = new Roundtrip<>(method, model, codec(), depth);
            Json.each(params.path("input"), model, r::check);
            return r.result();
        }

        /** The paged file of the input's objects, read and written one at a time. */
        ObjectNode encode(Params params) throws Exception {
            Integer p = params.pageSize();
            Path input = params.path("input");
            PageWriter.Counters c = Tasks.writeFile(codec(), method, model,
                sink -> Json.each(input, model, sink), params.path("output"),
                p == null ? Tasks.DEFAULT_PAGE_SIZE : p, params.runStamp(), new IoTimer());
            ObjectNode r = Json.MAPPER.createObjectNode();
            ObjectNode counters = r.putObject("counters");
            counters.put("objects", c.objects());
            counters.put("bytes", c.bytes());
            counters.put("pages", c.pages());
            return r;
        }

        ObjectNode scan(Params params) throws Exception {
            Path base = params.path("input");
            Reads.Outcome o = Reads.read(codec(), method, model, base, new Reads.Selection(0, -1,
                null), depth, params.pageSize(), new PageReader.Buffer(method.directPages()),
                new IoTimer());
            ObjectNode r = Json.MAPPER.createObjectNode();
            Checksum c = new Checksum();
            c.count = o.count();
            c.sum = o.sum();
            r.set("checksum", c.json());
            r.put("writer", o.writer());
            return r;
        }

        ObjectNode run(Task task, Params params) throws Exception {
            return task.run(codec(), method, model, depth, params);
        }
    }

    /** `roundtrip`'s state: objects are checked as the input is read. */
    private static final class Roundtrip<T> {
        private final MethodSpec method;
        private final ModelType<T> model;
        private final Codec<T> codec;
        private final Depth depth;
        private final serbench.Bytes buf = new serbench.Bytes(1 << 16);
        private final Checksum checksum = new Checksum();
        private long line;
        private long mismatches;
        private Long first;

        Roundtrip(MethodSpec method, ModelType<T> model, Codec<T> codec, Depth depth) {
            this.method = method;
            this.model = model;
            this.codec = codec;
            this.depth = depth;
        }

        void check(T object) throws Exception {
            line++;
            buf.length = 0;
            codec.encode(object, buf);
            ByteBuffer page = method.directPages()
                ? ByteBuffer.allocateDirect(buf.length).put(0, buf.array, 0, buf.length)
                    .order(java.nio.ByteOrder.nativeOrder())
                : ByteBuffer.wrap(buf.array);
            Hasher h = new Hasher();
            boolean same;
            try {
                codec.fold(page, 0, buf.length, depth, h);
                same = h.finish() == model.hash(object);
                if (depth == Depth.MATERIALIZE) {
                    same &= model.same(codec.decode(page, 0, buf.length), object);
                }
            } catch (Exception e) {
                throw new Failure("checksum_mismatch", "line " + line
                    + ": reading back its own encoding failed: " + Reads.describe(e));
            }
            if (!same) {
                mismatches++;
                first = first == null ? line : first;
            }
            checksum.add(h.finish());
        }

        ObjectNode result() {
            ObjectNode r = Json.MAPPER.createObjectNode();
            r.set("checksum", checksum.json());
            r.put("mismatches", mismatches);
            if (first == null) {
                r.putNull("first_mismatch");
            } else {
                r.put("first_mismatch", first);
            }
            return r;
        }
    }
}
