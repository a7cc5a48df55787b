package serbench.net;

import java.util.ArrayList;
import java.util.List;
import serbench.Failure;

/**
 * Work on several links at once, one platform thread per link (a fetch from every server, a
 * receive from every child): every thread is joined, and the first failure (any throwable
 * turned into one) is what the node reports.
 */
final class PerLink {
    private PerLink() {}

    interface Job<R> {
        R run(Link link, int i) throws Exception;
    }

    static <R> List<R> run(List<Link> links, Job<R> job) throws Failure {
        int n = links.size();
        List<R> results = new ArrayList<>(java.util.Collections.nCopies(n, null));
        Throwable[] failed = new Throwable[n];
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int k = i;
            threads[i] = new Thread(() -> {
                try {
                    results.set(k, job.run(links.get(k), k));
                } catch (Throwable t) {
                    failed[k] = t;
                }
            }, "link-" + links.get(i).peer);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        for (Thread t : threads) {
            boolean joined = false;
            while (!joined) {
                try {
                    t.join();
                    joined = true;
                } catch (InterruptedException e) {
                    // the node's work is these threads: wait for them whatever happens
                }
            }
        }
        for (Throwable t : failed) {
            if (t != null) {
                throw Node.asFailure(t);
            }
        }
        return results;
    }
}
