package serbench.net;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.model.TotalOrder;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.paged.PageWriter;
import serbench.tasks.Checksum;
import serbench.tasks.Tasks;

/**
 * net_sort_merge (PROTOCOL.md 10.7): a tree sort of any model by its total order. Every node
 * holds its objects as native ones (decoded at setup); per repetition it sorts a copy, merges
 * it with its children's sorted streams (each decoded a network page at a time, so a node
 * holds a network page per child, not the data) and streams the merged sequence up, or, at
 * the root, writes it as the paged file `<output>/sorted`. Ties go to the node's own
 * objects, then to the children in name order.
 */
public final class NetSortMerge implements NetTask {
    @Override
    public String id() {
        return "net_sort_merge";
    }

    @Override
    public <T> Role role(Codec<T> codec, MethodSpec method, ModelType<T> model, Setup setup)
            throws Exception {
        if (!setup.role().equals("tree")) {
            throw Failure.badRequest("net_sort_merge role '" + setup.role() + "': tree");
        }
        return new TreeSort<>(codec, method, model, setup.params());
    }

    private static final class TreeSort<T> implements Role {
        private final Codec<T> codec;
        private final MethodSpec method;
        private final ModelType<T> model;
        private final Comparator<T> order;
        private final List<T> partition;
        private final int pageSize;
        private final int budget;
        /** Where the root writes the sorted sequence; null below the root. */
        private final Path output;

        @SuppressWarnings("unchecked")
        TreeSort(Codec<T> codec, MethodSpec method, ModelType<T> model, Params params)
                throws Failure {
            this.codec = codec;
            this.method = method;
            this.model = model;
            order = (Comparator<T>) TotalOrder.of(model.id);
            Path input = params.path("input");
            long start = params.u64("start");
            long n = params.u64("n");
            try (PageReader reader = new PageReader(input, NetFetch.expect(method, model),
                    new IoTimer(), new PageReader.Buffer(false))) {
                NetFetch.checkRange(reader, input, start, n);
                pageSize = reader.index.pageSize;
            }
            partition = NetFetch.decodeRange(codec, method, model, input, start, n);
            budget = NetPages.netPageBytes(params.u64Or("net_page_bytes",
                NetPages.DEFAULT_NET_PAGE), pageSize, Wire.netFrameBytes(params));
            output = params.has("output") ? params.path("output").resolve("sorted") : null;
        }

        @Override
        public void checkLinks(Links links) throws Failure {
            links.checkTree("net_sort_merge", output != null);
        }

        @Override
        public Outcome repetition(Links links, IoTimer timer) throws Exception {
            List<T> own = new ArrayList<>(partition);
            own.sort(order);
            Codec<T> decoder = method.codec(model); // decoding and encoding interleave
            List<Incoming<T>> children = new ArrayList<>();
            for (Link link : links.accepted) {
                children.add(new Incoming<>(link, new Payload(method.directPages()), decoder,
                    pageSize));
            }
            List<T> heads = new ArrayList<>();
            for (Incoming<T> child : children) {
                heads.add(child.next(timer));
            }
            Sink<T> sink = links.dialed.isEmpty()
                ? new Sink<>(null, null, new PageWriter(output, pageSize, timer))
                : new Sink<>(links.dialed.get(0), new Packer(pageSize, budget), null);
            Hasher sequence = new Hasher();
            Checksum set = new Checksum();
            T previous = null;
            int mine = 0;
            while (true) {
                // the smallest head: the node's own first on ties, then children by name
                int pick = -1;
                T best = mine < own.size() ? own.get(mine) : null;
                for (int i = 0; i < heads.size(); i++) {
                    T h = heads.get(i);
                    if (h != null && (best == null || order.compare(h, best) < 0)) {
                        best = h;
                        pick = i;
                    }
                }
                if (best == null) {
                    break;
                }
                if (pick < 0) {
                    mine++;
                } else {
                    heads.set(pick, children.get(pick).next(timer));
                }
                if (previous != null && order.compare(best, previous) < 0) {
                    throw Failure.corrupt("object " + set.count + " of the merge is smaller "
                        + "than the one before it: a child's stream is not sorted");
                }
                long hash = model.hash(best);
                sequence.word(hash);
                set.add(hash);
                T object = best;
                sink.push(out -> codec.encode(object, out), timer);
                previous = best;
            }
            sink.finish(model, method, pageSize, timer);
            Outcome outcome = new Outcome(set.count, set);
            outcome.extra.put("sequence", Hasher.hex(sequence.finish()));
            return outcome;
        }
    }

    /** Where the merged sequence goes: up to the parent, or into the root's file. */
    private record Sink<T>(Link parent, Packer packer, PageWriter file) {
        void push(PageWriter.Encoder encoder, IoTimer timer) throws Exception {
            if (file != null) {
                file.push(encoder);
            } else {
                packer.push(encoder, parent, timer);
            }
        }

        void finish(ModelType<T> model, MethodSpec method, int pageSize, IoTimer timer)
                throws Failure {
            if (file != null) {
                // outside any run: the harness reads it back with a validating read
                file.finish(model.id, method.id(), Tasks.WRITER, Index.noRun());
            } else {
                packer.finish(parent, timer).end(parent, pageSize, timer);
            }
        }
    }

    /** One child's sorted stream, decoded a network page at a time. */
    private static final class Incoming<T> {
        private final Link link;
        private final Payload payload;
        private final Codec<T> decoder;
        private final int pageSize;
        private final ArrayDeque<T> ready = new ArrayDeque<>();
        private final Streamed got = new Streamed();
        private boolean ended;

        Incoming(Link link, Payload payload, Codec<T> decoder, int pageSize) {
            this.link = link;
            this.payload = payload;
            this.decoder = decoder;
            this.pageSize = pageSize;
        }

        /** The stream's next object, or null at its end. */
        T next(IoTimer timer) throws Failure {
            while (ready.isEmpty() && !ended) {
                FrameKind kind = link.recv(payload, timer);
                if (kind == FrameKind.PAGES) {
                    NetPages.Frame f = NetPages.forEachObject(payload, pageSize, link.peer,
                        got.frames, (page, offset, length, frame, at) ->
                            ready.add(decoder.decode(frame, at, length)));
                    got.add(f.count(), f.pagesLength());
                } else if (kind == FrameKind.END) {
                    got.checkEnd(Wire.jsonObject(payload.copy(), link.peer), pageSize,
                        link.peer);
                    ended = true;
                } else {
                    throw Wire.peerFailure(link.peer, "a " + kind + " frame inside a stream");
                }
            }
            return ready.poll();
        }
    }
}
