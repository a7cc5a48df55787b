package serbench;

/** Nanoseconds spent inside file system calls, so cpu_ns = total_ns - io_ns. */
public final class IoTimer {
    private long ns;

    public long since(long start) {
        long d = System.nanoTime() - start;
        ns += d;
        return d;
    }

    /** Adds time measured elsewhere (read_par: the threads' mean). */
    public void add(long d) {
        ns += d;
    }

    public long ns() {
        return ns;
    }
}
