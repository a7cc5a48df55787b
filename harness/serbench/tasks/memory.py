"""`memory`: the first n objects materialized and kept, read like a read's selection (reads.py);
the live heap's growth per object and the process's peak RSS are the result."""
from __future__ import annotations

from .reads import run
from .spec import MATERIALIZE, TaskSpec

SPECS = (TaskSpec("memory", run, title="Memory", what="n objects materialized and kept; the live "
                  "heap grows by the retained bytes.", view="memory", depths=MATERIALIZE,
                  evicts=True,
                  counters=("objects", "retained_bytes", "retained_bytes_per_object",
                            "peak_rss_bytes", "rss_start_bytes"),
                  noise=(("", 0.1176), ("cpp", 0.0369), ("java", 0.0382), ("rust", 0.0))),)
