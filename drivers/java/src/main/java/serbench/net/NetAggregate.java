package serbench.net;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import serbench.Failure;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.model.Entry;
import serbench.model.SparseVector;
import serbench.paged.Index;
import serbench.tasks.Checksum;
import serbench.tasks.Json;
import serbench.tasks.Tasks;

/**
 * net_aggregate (PROTOCOL.md 10.6): sparse vectors summed up a tree. Every node holds its
 * own vector (loaded at setup); per repetition it receives and decodes each child's vector
 * (one thread per child), adds them to its own in a fixed order (own, then children by name:
 * floating-point sums are reproducible only in one order), and sends the sum to its parent
 * as network pages, or, at the root, writes it as the paged file `<output>/sum`.
 */
public final class NetAggregate implements NetTask {
    @Override
    public String id() {
        return "net_aggregate";
    }

    @Override
    public <T> Role role(Codec<T> codec, MethodSpec method, ModelType<T> model, Setup setup)
            throws Exception {
        if (model.type != SparseVector.class) {
            throw Failure.unsupported("net_aggregate sums sparse vectors, not " + model.id);
        }
        if (!setup.role().equals("tree")) {
            throw Failure.badRequest("net_aggregate role '" + setup.role() + "': tree");
        }
        @SuppressWarnings("unchecked")
        ModelType<SparseVector> sparse = (ModelType<SparseVector>) model;
        @SuppressWarnings("unchecked")
        Codec<SparseVector> own = (Codec<SparseVector>) codec;
        return new TreeSum(own, method, sparse, setup.params());
    }

    private static final class TreeSum implements Role {
        private final Codec<SparseVector> codec;
        private final MethodSpec method;
        private final ModelType<SparseVector> model;
        private final SparseVector own;
        private final int pageSize;
        private final int budget;
        /** Where the root writes the sum; null below the root. */
        private final Path output;
        private final List<Payload> buffers = new ArrayList<>();

        TreeSum(Codec<SparseVector> codec, MethodSpec method, ModelType<SparseVector> model,
                Params params) throws Failure {
            this.codec = codec;
            this.method = method;
            this.model = model;
            Path input = params.path("input");
            List<SparseVector> vectors = Json.load(input, model);
            if (vectors.size() != 1) {
                throw Failure.badRequest(input + ": a node's input holds its one vector, this "
                    + "holds " + vectors.size());
            }
            own = vectors.get(0);
            Integer p = params.pageSize();
            pageSize = p == null ? Tasks.DEFAULT_PAGE_SIZE : p;
            budget = NetPages.netPageBytes(params.u64Or("net_page_bytes",
                NetPages.DEFAULT_NET_PAGE), pageSize, Wire.netFrameBytes(params));
            output = params.has("output") ? params.path("output").resolve("sum") : null;
        }

        @Override
        public void checkLinks(Links links) throws Failure {
            links.checkTree("net_aggregate", output != null);
        }

        @Override
        public Outcome repetition(Links links, IoTimer timer) throws Exception {
            while (buffers.size() < links.accepted.size()) {
                buffers.add(new Payload(method.directPages()));
            }
            long[] io = new long[links.accepted.size()];
            List<SparseVector> children = PerLink.run(links.accepted, (link, i) -> {
                IoTimer t = new IoTimer();
                SparseVector v = receive(link, buffers.get(i), t);
                io[i] = t.ns();
                return v;
            });
            if (!children.isEmpty()) {
                long sum = 0;
                for (long ns : io) {
                    sum += ns;
                }
                timer.add(sum / io.length);
            }
            SparseVector sum = own;
            for (int i = 0; i < children.size(); i++) {
                sum = mergeSum(sum, children.get(i), links.accepted.get(i).peer);
            }
            Checksum checksum = new Checksum();
            checksum.add(model.hash(sum));
            SparseVector total = sum;
            if (!links.dialed.isEmpty()) {
                Link parent = links.dialed.get(0);
                Packer packer = new Packer(pageSize, budget);
                packer.push(out -> codec.encode(total, out), parent, timer);
                packer.finish(parent, timer).end(parent, pageSize, timer);
            } else {
                Tasks.writeFile(codec, method, model, List.of(total), output, pageSize,
                    Index.noRun(), timer); // read back validating
            }
            Outcome outcome = new Outcome(1, checksum);
            outcome.extra.put("entries", sum.entries.length);
            return outcome;
        }

        /** One child's vector: its stream received, checked and decoded. */
        private SparseVector receive(Link link, Payload payload, IoTimer timer)
                throws Exception {
            Codec<SparseVector> decoder = method.codec(model); // one per thread
            List<SparseVector> vectors = new ArrayList<>(1);
            Streamed got = new Streamed();
            FrameKind kind;
            while ((kind = link.recv(payload, timer)) == FrameKind.PAGES) {
                NetPages.Frame f = NetPages.forEachObject(payload, pageSize, link.peer,
                    got.frames, (page, offset, length, frame, at) ->
                        vectors.add(decoder.decode(frame, at, length)));
                got.add(f.count(), f.pagesLength());
            }
            if (kind != FrameKind.END) {
                throw Wire.peerFailure(link.peer, "a " + kind + " frame inside a stream");
            }
            got.checkEnd(Wire.jsonObject(payload.copy(), link.peer), pageSize, link.peer);
            if (vectors.size() != 1) {
                throw Wire.peerFailure(link.peer, "sent " + vectors.size()
                    + " vectors, not one");
            }
            return vectors.get(0);
        }
    }

    /**
     * The element-wise sum of two sparse vectors of one dimension: entries merged by
     * position, values added (`a`'s first) where both have one.
     */
    static SparseVector mergeSum(SparseVector a, SparseVector b, String peer) throws Failure {
        if (a.dimension != b.dimension) {
            throw Failure.corrupt("peer " + peer + ": vectors of dimensions " + a.dimension
                + " and " + b.dimension + " cannot be summed");
        }
        Entry[] x = a.entries;
        Entry[] y = b.entries;
        List<Entry> out = new ArrayList<>(x.length + y.length);
        int i = 0;
        int j = 0;
        while (i < x.length && j < y.length) {
            long p = x[i].position;
            long q = y[j].position;
            if (p < q) {
                out.add(x[i++]);
            } else if (q < p) {
                out.add(y[j++]);
            } else {
                Entry e = new Entry();
                e.position = p;
                e.value = x[i++].value + y[j++].value;
                out.add(e);
            }
        }
        while (i < x.length) {
            out.add(x[i++]);
        }
        while (j < y.length) {
            out.add(y[j++]);
        }
        SparseVector sum = new SparseVector();
        sum.dimension = a.dimension;
        sum.entries = out.toArray(new Entry[0]);
        return sum;
    }
}
