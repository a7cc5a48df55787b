package serbench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import serbench.methods.MethodSpec;
import serbench.model.Models;
import serbench.tasks.Json;
import serbench.tasks.Reads;

/** `serbench-java info | serve | listen`: the driver contract of PROTOCOL.md (and `train`, below). */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
            StandardCharsets.UTF_8);
        // stdout carries responses only: anything a library prints goes to stderr
        System.setOut(System.err);
        String command = args.length >= 1 ? args[0] : "";
        switch (command + "/" + args.length) {
            case "info/1":
                out.println(Json.MAPPER.writeValueAsString(Info.info()));
                out.flush();
                return;
            case "train/2":
                train(args[1]);
                return;
            case "listen/3", "listen/4":
                listen(List.of(args).subList(1, args.length), out);
                return;
            case "serve/1":
                serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                    out);
                return;
            default:
                usage();
        }
    }

    private static void usage() {
        System.err.println("usage: serbench-java info | serve | listen --address HOST:PORT"
            + " [--allow-wildcard] | train <vectors dir>");
        System.exit(2);
    }

    /**
     * `listen --address HOST:PORT [--allow-wildcard]`, the flag before or after: one node of a
     * network cell; every failure is reported before the exit. The cell's token comes from the
     * environment, never the command line.
     */
    private static void listen(List<String> args, PrintStream out) {
        String flag = "--allow-wildcard";
        boolean allowed = args.size() == 3;
        boolean flagFirst = allowed && args.get(0).equals(flag);
        String address = args.get(flagFirst ? 2 : 1);
        List<String> expected = !allowed ? List.of("--address", address)
            : flagFirst ? List.of(flag, "--address", address) : List.of("--address", address, flag);
        if (!args.equals(expected)) {
            usage();
        }
        System.exit(serbench.net.Node.listen(address, allowed,
            System.getenv(serbench.net.Node.TOKEN_ENV), out));
    }

    /**
     * Round trips every method at each of its depths on every model's golden vectors and
     * answers nothing: the launcher runs it once per build to archive the classes this loads
     * (Class Data Sharing), so each fresh JVM starts sooner. Nothing it does is measured.
     */
    static void train(String vectors) {
        for (MethodSpec method : Registry.METHODS) {
            for (ModelType<?> model : Models.ALL) {
                for (Depth depth : method.writes() ? method.depths() : List.<Depth>of()) {
                    ObjectNode req = Json.MAPPER.createObjectNode()
                        .put("op", "roundtrip").put("model", model.id)
                        .put("method", method.id()).put("depth", depth.id).put("variant", "");
                    req.putObject("params").put("input", vectors + "/" + model.id + ".jsonl");
                    respond(req.toString());
                }
            }
        }
    }

    /** One response line per request line, until shutdown or the end of input. */
    static void serve(BufferedReader in, PrintStream out) throws Exception {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Reply reply = respond(line);
            out.println(Json.MAPPER.writeValueAsString(reply.response()));
            out.flush();
            if (reply.shutdown()) {
                return;
            }
        }
    }

    /** A response, and whether it answered a shutdown. */
    record Reply(ObjectNode response, boolean shutdown) {}

    /** The response to one request line; never throws, whatever the request or the input. */
    static Reply respond(String line) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        JsonNode req;
        try {
            req = Json.MAPPER.readTree(line);
            if (req == null || !req.isObject()) {
                throw new IllegalArgumentException("a request is one JSON object");
            }
        } catch (Exception e) {
            r.putNull("id");
            return new Reply(error(r, "bad_request", "malformed request: "
                + Reads.describe(e)), false);
        }
        r.set("id", req.has("id") ? req.get("id") : null);
        try {
            ObjectNode result = Ops.answer(req);
            r.put("status", "ok");
            r.set("result", result);
            return new Reply(r, "shutdown".equals(req.path("op").asText()));
        } catch (Failure f) {
            if (Failure.UNSUPPORTED.equals(f.kind)) {
                r.put("status", "unsupported");
                r.put("message", f.getMessage());
                return new Reply(r, false);
            }
            return new Reply(error(r, f.kind, f.getMessage()), false);
        } catch (Throwable e) {
            e.printStackTrace();
            return new Reply(error(r, "internal", e.getClass().getSimpleName() + ": "
                + Reads.describe(e)), false);
        }
    }

    private static ObjectNode error(ObjectNode r, String kind, String message) {
        r.put("status", "error");
        ObjectNode e = r.putObject("error");
        e.put("kind", kind);
        e.put("message", message);
        return r;
    }
}
