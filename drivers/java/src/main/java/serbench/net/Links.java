package serbench.net;

import java.util.ArrayList;
import java.util.List;

/**
 * The connections of one node: those it dialed, in the order the harness listed them, and
 * those its peers dialed, ordered by the peers' names (a tree sums its children in that
 * order, whatever order they arrived in).
 */
public final class Links {
    public final List<Link> dialed = new ArrayList<>();
    public final List<Link> accepted = new ArrayList<>();

    public List<Link> all() {
        List<Link> all = new ArrayList<>(dialed);
        all.addAll(accepted);
        return all;
    }

    long bytesSent() {
        return all().stream().mapToLong(l -> l.bytesSent).sum();
    }

    long bytesReceived() {
        return all().stream().mapToLong(l -> l.bytesReceived).sum();
    }

    /** A tree node dials at most its parent; the root, which has none, writes an output. */
    public void checkTree(String task, boolean hasOutput) throws serbench.Failure {
        if (dialed.size() > 1) {
            throw serbench.Failure.badRequest("a " + task + " node dials at most its parent");
        }
        if (dialed.isEmpty() && !hasOutput) {
            throw serbench.Failure.badRequest("the root (no parent) needs params.output");
        }
    }
}
