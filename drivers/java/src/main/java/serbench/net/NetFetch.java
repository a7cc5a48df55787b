package serbench.net;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.tasks.Checksum;
import serbench.tasks.Json;
import serbench.tasks.Tasks;

/**
 * net_fetch (PROTOCOL.md 10.5): S servers each hold objects `start .. start + n` of their
 * paged file; one client asks every server at once (one connection and thread per server)
 * and appends the network pages it receives to one paged file per server, fsynced. Variants:
 * `ram` (the server holds native objects and encodes them per request), `disk` (the server
 * ships the stored pages as they are) and `decode` (served as `disk`; the client also decodes
 * every object and reports the set checksum).
 */
public final class NetFetch implements NetTask {
    @Override
    public String id() {
        return "net_fetch";
    }

    @Override
    public <T> Role role(Codec<T> codec, MethodSpec method, ModelType<T> model, Setup setup)
            throws Exception {
        String variant = setup.variant();
        if (!List.of("ram", "disk", "decode").contains(variant)) {
            throw Failure.badRequest("net_fetch variant '" + variant
                + "': one of ram, disk, decode");
        }
        switch (setup.role()) {
            case "server":
                return new Server<>(codec, method, model, setup.params(), variant.equals("ram"));
            case "client":
                return new Client<>(method, model, setup, variant.equals("decode"));
            default:
                throw Failure.badRequest("net_fetch role '" + setup.role()
                    + "': server or client");
        }
    }

    /** The file a server or sorting node reads its own objects from. */
    static Index.Expect expect(MethodSpec method, ModelType<?> model) {
        return new Index.Expect(model.id, method.id(), null);
    }

    /** Objects `start .. start + n` must be in the file. */
    static void checkRange(PageReader reader, Path input, long start, long n) throws Failure {
        if (start > reader.index.count || n > reader.index.count - start) {
            throw new Failure("out_of_range", "objects " + start + ".." + start + "+" + n
                + " asked, " + input + " holds " + reader.index.count);
        }
    }

    /** Objects `start .. start + n` of a checked paged file as native objects (untimed). */
    static <T> List<T> decodeRange(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Path input, long start, long n) throws Failure {
        PageReader.Buffer page = new PageReader.Buffer(method.directPages());
        try (PageReader reader = new PageReader(input, expect(method, model), new IoTimer(),
                page)) {
            checkRange(reader, input, start, n);
            List<T> objects = new ArrayList<>((int) n);
            for (long k = start; k < start + n; k++) {
                try {
                    objects.add(codec.decode(reader.object(k), reader.index.offset(k),
                        reader.index.length(k)));
                } catch (Failure f) {
                    throw f;
                } catch (Exception | StackOverflowError e) {
                    throw Failure.corrupt(input + ": object " + k + ": "
                        + serbench.tasks.Reads.describe(e));
                }
            }
            return objects;
        }
    }

    /** A server: its objects as native ones (`ram`), or the file it ships pages of. */
    private static final class Server<T> implements Role {
        private final Codec<T> codec;
        private final MethodSpec method;
        private final ModelType<T> model;
        private final Path input;
        private final long start;
        private final long n;
        private final int pageSize;
        private final int budget;
        /** Null when serving from disk. */
        private final List<T> objects;

        Server(Codec<T> codec, MethodSpec method, ModelType<T> model, Params params,
                boolean ram) throws Exception {
            this.codec = codec;
            this.method = method;
            this.model = model;
            input = params.path("input");
            start = params.u64("start");
            n = params.u64("n");
            try (PageReader reader = new PageReader(input, expect(method, model),
                    new IoTimer(), new PageReader.Buffer(false))) {
                checkRange(reader, input, start, n);
                pageSize = reader.index.pageSize;
            }
            budget = NetPages.netPageBytes(params.u64Or("net_page_bytes",
                NetPages.DEFAULT_NET_PAGE), pageSize, Wire.netFrameBytes(params));
            // held as native objects, as a data system holds what it serves from memory
            objects = ram ? decodeRange(codec, method, model, input, start, n) : null;
        }

        @Override
        public void checkLinks(Links links) throws Failure {
            if (links.accepted.size() != 1 || !links.dialed.isEmpty()) {
                throw Failure.badRequest("a net_fetch server is dialed by one client and "
                    + "dials no one");
            }
        }

        @Override
        public Outcome repetition(Links links, IoTimer timer) throws Exception {
            Link link = links.accepted.get(0);
            link.recvJson(FrameKind.REQUEST, timer);
            Streamed streamed = stream(link, timer);
            streamed.end(link, pageSize, timer);
            return new Outcome(streamed.objects, null);
        }

        private Streamed stream(Link link, IoTimer timer) throws Exception {
            if (objects != null) {
                Packer packer = new Packer(pageSize, budget);
                for (T object : objects) {
                    packer.push(out -> codec.encode(object, out), link, timer);
                }
                return packer.finish(link, timer);
            }
            // opening and checking the index is part of serving from disk
            try (PageReader reader = new PageReader(input, expect(method, model), timer,
                    new PageReader.Buffer(false))) {
                return new Shipper(reader, budget, link, timer).ship(start, n);
            }
        }
    }

    /** What one connection's thread brings back. */
    private record Fetched(Streamed streamed, Checksum checksum, long ioNs, long ns) {}

    /** The client: one thread per server, each writing that server's objects to a file. */
    private static final class Client<T> implements Role {
        private final MethodSpec method;
        private final ModelType<T> model;
        private final Path output;
        private final int pageSize;
        /** The depth every received object is decoded at (`decode`), else null. */
        private final Depth decode;
        private final List<Payload> buffers = new ArrayList<>();

        Client(MethodSpec method, ModelType<T> model, Setup setup, boolean decode)
                throws Failure {
            this.method = method;
            this.model = model;
            Params params = setup.params();
            Depth depth = setup.depthOrMaterialize();
            if (decode && !method.depths().contains(depth)) {
                throw Failure.unsupported(method.id() + " does not read at depth '" + depth.id
                    + "'");
            }
            output = params.path("output");
            Integer p = params.pageSize();
            pageSize = p == null ? Tasks.DEFAULT_PAGE_SIZE : p;
            this.decode = decode ? depth : null;
        }

        @Override
        public void checkLinks(Links links) throws Failure {
            if (links.dialed.isEmpty() || !links.accepted.isEmpty()) {
                throw Failure.badRequest("a net_fetch client dials at least one server and "
                    + "accepts no one");
            }
            for (Link link : links.dialed) {
                if (!link.peer.matches("[A-Za-z0-9_-]+")) {
                    throw Failure.badRequest("server name '" + link.peer
                        + "' cannot name a file");
                }
            }
        }

        @Override
        public Outcome repetition(Links links, IoTimer timer) throws Exception {
            while (buffers.size() < links.dialed.size()) {
                buffers.add(new Payload(method.directPages()));
            }
            List<Fetched> fetched = PerLink.run(links.dialed,
                (link, i) -> fetch(link, buffers.get(i)));
            // io is the mean over connections, so cpu = total - io stays a share of the wall
            timer.add(fetched.stream().mapToLong(Fetched::ioNs).sum() / fetched.size());
            Checksum checksum = new Checksum();
            ArrayNode servers = Json.MAPPER.createArrayNode();
            long objects = 0;
            for (int i = 0; i < fetched.size(); i++) {
                Fetched f = fetched.get(i);
                checksum.count += f.checksum().count;
                checksum.sum += f.checksum().sum;
                objects += f.streamed().objects;
                ObjectNode s = servers.addObject();
                s.put("server", links.dialed.get(i).peer);
                s.put("ns", f.ns());
                s.put("objects", f.streamed().objects);
                s.put("bytes", f.streamed().bytes);
                s.put("frames", f.streamed().frames);
            }
            Outcome outcome = new Outcome(objects, decode == null ? null : checksum);
            outcome.extra.set("servers", servers);
            return outcome;
        }

        /** One server's stream into its own paged file, named after the server. */
        private Fetched fetch(Link link, Payload payload) throws Exception {
            IoTimer timer = new IoTimer();
            long started = System.nanoTime();
            Codec<T> codec = method.codec(model); // codecs keep state: one per thread
            Receiver.Fold fold = decode == null ? null : (frame, at, length) -> {
                Hasher h = new Hasher();
                codec.fold(frame, at, length, decode, h);
                return h.finish();
            };
            try (Receiver receiver = new Receiver(output.resolve(link.peer), pageSize, timer)) {
                link.sendJson(FrameKind.REQUEST, Json.MAPPER.createObjectNode(), timer);
                FrameKind kind;
                while ((kind = link.recv(payload, timer)) == FrameKind.PAGES) {
                    receiver.frame(payload, link.peer, fold);
                }
                if (kind != FrameKind.END) {
                    throw Wire.peerFailure(link.peer, "a " + kind + " frame inside a stream");
                }
                receiver.streamed.checkEnd(Wire.jsonObject(payload.copy(), link.peer),
                    pageSize, link.peer);
                Streamed streamed = receiver.finish(model.id, method.id(), Tasks.WRITER);
                return new Fetched(streamed, receiver.checksum, timer.ns(),
                    System.nanoTime() - started);
            }
        }
    }
}
