"""A stand-in driver for the harness's own tests: plumbing and failure handling only.

It speaks PROTOCOL.md with one method, `fakejson` (objects stored as compact JSON in the
shared paged file format), plus the `raw` floor. Its numbers mean nothing; results that matter
only ever come from real drivers, so nothing outside tests/ may use it.

Misbehaviour is chosen through the environment:
  FAKE_DRIVER_LANGUAGE  the language it claims (default rust)
  FAKE_DRIVER_MODE      normal | crash | hang | garbage | wrong_id | no_status | error |
                        unsupported | bad_checksum | bad_samples | bare_samples | noisy |
                        bad_residency
  FAKE_DRIVER_ON        which requests trigger the mode: comma-separated key=value pairs matched
                        against the request and its params, e.g. "op=run,task=read_seq"
                        (default: every request except info and shutdown)
  FAKE_DRIVER_AFTER     answer the first k triggering requests normally (default 0)
  FAKE_DRIVER_INFO      `info` command mode: normal | garbage | crash | hang
  FAKE_DRIVER_LOG       a file to which every request is appended as "pid op task method model
                        variant" (variant - for the default)
  FAKE_DRIVER_VARIANTS  comma-separated variants its method offers (read like the default)
  FAKE_DRIVER_METHODS   comma-separated names under which it offers the same method too
  FAKE_DRIVER_JIT       k: claim a JIT (info's toolchain.jit) that compiles each path (task,
                        method, depth, variant) during its first k repetitions in the process:
                        their samples say jit_ms 5 and jit_cpu_ns 5e6, the later ones 0
  FAKE_DRIVER_TIMES     report synthetic times instead of its own, for the statistics' tests:
                        comma-separated key=value of `shift` (every time x it: a whole run
                        faster or slower), `drift` and `period` (the machine's speed swings by
                        +-drift over period seconds of wall time, shared by every process),
                        `burst` (the chance a repetition is 3x slower: a neighbour), `noise`
                        (each repetition's lognormal spread), `process` (each process's own
                        lognormal luck), `slow` (method:factor, a method made slower) and
                        `seed`. A method's base time follows from its name, task and depth.
"""
from __future__ import annotations

import ctypes
import itertools
import json
import math
import mmap
import os
import random
import struct
import sys
import time
import zlib
from array import array
from contextlib import contextmanager
from pathlib import Path

from serbench.models.checksum import MASK, SEED, hex64, object_hash, sequence_checksum, step
from serbench.models import MODELS
from serbench.models.order import sorted_distinct

LANGUAGE = os.environ.get("FAKE_DRIVER_LANGUAGE", "rust")
MODE = os.environ.get("FAKE_DRIVER_MODE", "normal")
TRIGGER = dict(pair.split("=", 1) for pair in os.environ.get("FAKE_DRIVER_ON", "").split(",")
               if pair)
AFTER = int(os.environ.get("FAKE_DRIVER_AFTER", "0"))
METHOD = "fakejson"
JIT_RUNS = int(os.environ.get("FAKE_DRIVER_JIT", "0"))
jit_counts: dict[tuple, int] = {}  # repetitions run per path, for the fake JIT
HEADER = struct.Struct("<8sIIQQQQ24s24s8s24s")
ENTRY = struct.Struct("<QII")
MAGIC = b"SERBIDX\n"

INFO = {
    "language": LANGUAGE, "driver_version": "0.0.0-fake",
    "toolchain": {"python": sys.version.split()[0], **({"jit": "fake"} if JIT_RUNS else {})},
    "libraries": {"json": "stdlib"},
    "models": list(MODELS),
    "tasks": ["write", "read_seq", "read_rand", "read_par", "sort_dedup", "memory", "micro"],
    "methods": {
        **{name: {"depths": ["materialize", "access"],
                  "variants": [v for v in os.environ.get("FAKE_DRIVER_VARIANTS", "").split(",")
                               if v],
                  "models": list(MODELS),
                  "files": ["tests/fake_driver.py"],
                  "jars": [{"name": "fake-1.0.jar", "bytes": 40960}]}
           for name in (METHOD, *(m for m in os.environ.get("FAKE_DRIVER_METHODS", "")
                                  .split(",") if m))},
        "raw": {"depths": [], "variants": [], "models": list(MODELS), "files": [],
                **({"floors": os.environ["FAKE_DRIVER_FLOORS"].split(",")}
                   if os.environ.get("FAKE_DRIVER_FLOORS") else {})},
    },
    "eviction": ["fadvise_dontneed"],
}


class Failed(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


# -- the paged file ------------------------------------------------------------------------

def write_paged(objects: list[bytes], base: str, model: str, method: str, page_size: int,
                clock: "Clock") -> dict:
    entries, out, end = [], bytearray(), 0
    for data in objects:
        used = len(out) % page_size
        if used and (len(data) > page_size or used + len(data) > page_size):
            out += bytes(page_size - used)
            used = 0
        entries.append((len(out) // page_size, used, len(data)))
        out += data
        end = len(out)
        if len(data) > page_size and len(out) % page_size:  # large objects own whole pages
            out += bytes(page_size - len(out) % page_size)
    pages = out[:end]  # the last page is not padded
    page_count = -(-end // page_size)
    h = SEED
    for entry in entries:
        for word in entry:
            h = step(h, word)
    header = HEADER.pack(MAGIC, 1, page_size, len(entries), page_count, len(pages), h,
                         model.encode(), method.encode(), LANGUAGE.encode(), b"")
    index = header + b"".join(ENTRY.pack(*e) for e in entries)
    for suffix, content in ((".pages", bytes(pages)), (".index", index)):
        with open(base + suffix, "wb") as f, clock.io():
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
    return {"objects": len(entries), "bytes": len(pages), "pages": page_count,
            "avg_object_bytes": sum(e[2] for e in entries) / max(1, len(entries))}


def read_index(base: str, model: str, method: str) -> tuple[dict, list[tuple[int, int, int]]]:
    try:
        raw = Path(base + ".index").read_bytes()
    except FileNotFoundError:
        raise Failed("not_found", f"{base}.index does not exist") from None
    fields = HEADER.unpack_from(raw)
    if fields[0] != MAGIC:
        raise Failed("corrupt_input", f"{base}.index: bad magic")
    file_model = fields[7].rstrip(b"\0").decode()
    file_method = fields[8].rstrip(b"\0").decode()
    if file_model != model or (method != "raw" and file_method != method):
        raise Failed("wrong_file", f"{base}.index holds {file_model}/{file_method}")
    entries = [ENTRY.unpack_from(raw, 128 + 16 * i) for i in range(fields[3])]
    return {"page_size": fields[2], "writer": fields[9].rstrip(b"\0").decode(),
            "method": file_method}, entries


def object_bytes(f, header: dict, entry: tuple[int, int, int], clock: "Clock") -> bytes:
    page, offset, length = entry
    with clock.io():
        f.seek(page * header["page_size"] + offset)
        return f.read(length)


def raw_hash(data: bytes) -> int:
    """PROTOCOL.md 5: the extent folded like a string (its length, then its words)."""
    h = step(SEED, len(data))
    for i in range(0, len(data), 8):
        h = step(h, int.from_bytes(data[i:i + 8], "little"))
    return h


def fold(hashes) -> dict:
    count = total = 0
    for h in hashes:
        count, total = count + 1, (total + h) & MASK
    return {"count": count, "sum": hex64(total)}


def residency(path: str) -> tuple[int, int]:
    """The file's pages in the page cache, and all its pages (mincore over a private mapping,
    which shares the cached pages until written)."""
    size = os.path.getsize(path)
    if size == 0:
        return 0, 0
    pages = -(-size // mmap.PAGESIZE)
    vec = (ctypes.c_ubyte * pages)()
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)
        start = (ctypes.c_char * size).from_buffer(mapped)
        rc = ctypes.CDLL(None, use_errno=True).mincore(
            ctypes.c_void_p(ctypes.addressof(start)), ctypes.c_size_t(size), vec)
        del start
        mapped.close()
    if rc != 0:
        raise Failed("internal", f"mincore({path}): {os.strerror(ctypes.get_errno())}")
    return sum(v & 1 for v in vec), pages


def evict(base: str) -> float:
    """Drops the data and index files from the page cache; the share still cached."""
    paths = (base + ".pages", base + ".index")
    for path in paths:
        with open(path, "rb") as f:
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    cached, pages = map(sum, zip(*(residency(path) for path in paths)))
    return cached / pages if pages else 0.0


def read_objects(base: str, model: str, method: str, ids, clock: "Clock") -> dict:
    header, entries = read_index(base, model, method)
    for i in ids:
        if i >= len(entries):
            raise Failed("out_of_range", f"object {i} requested, {base} holds {len(entries)}")
    with open(base + ".pages", "rb") as f:
        datas = [object_bytes(f, header, entries[i], clock) for i in ids]
    if method == "raw":
        return fold(raw_hash(d) for d in datas)
    return fold(object_hash(model, json.loads(d)) for d in datas)


class Clock:
    """Time inside file calls, so samples carry an io/cpu split like a real driver's."""

    def __init__(self):
        self.io_ns = 0

    @contextmanager
    def io(self):
        t0 = time.perf_counter_ns()
        try:
            yield
        finally:
            self.io_ns += time.perf_counter_ns() - t0


# -- operations ----------------------------------------------------------------------------

def load_jsonl(path: str) -> list[dict]:
    try:
        with open(path, "rb") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        raise Failed("not_found", f"{path} does not exist") from None


def encode_all(objects: list[dict]) -> list[bytes]:
    return [json.dumps(o, separators=(",", ":"), ensure_ascii=False).encode() for o in objects]


def selection(params: dict):
    if "start" in params:
        return range(params["start"], params["start"] + params["n"])
    return array("Q", Path(params["ids"]).read_bytes())[: params["n"]]


def read_par(params: dict, model: str, method: str, clock: "Clock") -> dict:
    """The slices of PROTOCOL.md 5.1, one after another (a fake needs no threads)."""
    ids, threads = selection(params), params["threads"]
    n, count, total, times = len(ids), 0, 0, []
    for t in range(threads):
        t0 = time.perf_counter_ns()
        part = read_objects(params["input"], model, method,
                            ids[t * n // threads:(t + 1) * n // threads], clock)
        times.append(time.perf_counter_ns() - t0)
        count, total = count + part["count"], (total + int(part["sum"], 16)) & MASK
    return {"count": count, "sum": hex64(total), "thread_ns": times}


def sort_dedup(params: dict, model: str, method: str, clock: "Clock") -> dict:
    """Everything in memory (the fake has no budget): sort, drop duplicates, write `sorted`."""
    header, entries = read_index(params["input"], model, method)
    with open(params["input"] + ".pages", "rb") as f:
        objects = [json.loads(object_bytes(f, header, e, clock)) for e in entries]
    t1 = time.perf_counter_ns()
    distinct = sorted_distinct(model, objects)
    write_paged(encode_all(distinct), str(Path(params["output"]) / "sorted"), model, method,
                params["page_size"], clock)
    hashes = [object_hash(model, o) for o in distinct]
    return {"checksum": {"count": len(distinct), "sum": hex64(sequence_checksum(hashes))},
            "input_objects": len(objects), "t1": t1}


def write_floor(params: dict, model: str):
    """The file `input` written again from its objects' bytes (loaded first), as it was laid
    out: the fake's writer lays them out alike. `bad_copy`: one byte of the copy differs."""
    header, entries = read_index(params["input"], model, "raw")
    with open(params["input"] + ".pages", "rb") as f:
        datas = [object_bytes(f, header, e, Clock()) for e in entries]
    checksum = fold(raw_hash(d) for d in datas)
    if MODE == "bad_copy":
        datas[-1] = datas[-1][:-1] + bytes([datas[-1][-1] ^ 1])

    def job(clock):
        return write_paged(datas, params["output"], model, header["method"],
                           params["page_size"], clock)
    return job, checksum


def sort_floor(params: dict, model: str, clock: "Clock") -> dict:
    """The input's objects' bytes, in order, written as `sorted` (the fake has no budget, so
    one run). `bad_sort_floor`: the last object is left out of the file, not the checksum."""
    header, entries = read_index(params["input"], model, "raw")
    with open(params["input"] + ".pages", "rb") as f:
        datas = [object_bytes(f, header, e, clock) for e in entries]
    t1 = time.perf_counter_ns()
    kept = datas[:-1] if MODE == "bad_sort_floor" else datas
    write_paged(kept, str(Path(params["output"]) / "sorted"), model, header["method"],
                params["page_size"], clock)
    return {"checksum": fold(raw_hash(d) for d in datas), "input_objects": len(datas),
            "t1": t1}


def micro(params: dict, model: str) -> dict:
    objects = load_jsonl(params["input"])[: params["n"]]
    encode_ns = decode_ns = 0
    for _ in range(params["iterations"]):
        t0 = time.perf_counter_ns()
        encoded = encode_all(objects)
        t1 = time.perf_counter_ns()
        checksum = fold(object_hash(model, json.loads(d)) for d in encoded)
        decode_ns += time.perf_counter_ns() - t1
        encode_ns += t1 - t0
    return {**checksum, "encode_ns": encode_ns, "decode_ns": decode_ns,
            "encoded_bytes": sum(map(len, encoded))}


def synthetic_times() -> dict | None:
    text = os.environ.get("FAKE_DRIVER_TIMES")
    if not text:
        return None
    settings = dict(pair.split("=", 1) for pair in text.split(","))
    slow = settings.pop("slow", "")
    numbers = {k: float(v) for k, v in settings.items()}
    rng = random.Random(f"{numbers.get('seed', 0)}:{os.getpid()}")
    return {"shift": numbers.get("shift", 1.0), "drift": numbers.get("drift", 0.0),
            "period": numbers.get("period", 10.0), "burst": numbers.get("burst", 0.0),
            "noise": numbers.get("noise", 0.0), "rng": rng,
            "luck": rng.lognormvariate(0, numbers.get("process", 0.0)),
            "slow": dict((name, float(f)) for name, f in
                         (item.split(":") for item in slow.split("+") if item))}


SYNTHETIC = synthetic_times()


def synthetic_ns(method: str, task: str, depth: str) -> int:
    """A repetition's time under FAKE_DRIVER_TIMES: the method's base on a machine that
    drifts, bursts and shifts, with the process's luck and the repetition's noise."""
    t = SYNTHETIC
    base = 100_000 * (1 + zlib.crc32(f"{method}/{task}/{depth}".encode()) % 7)
    machine = 1 + t["drift"] * math.sin(2 * math.pi * time.time() / t["period"])
    burst = 3.0 if t["rng"].random() < t["burst"] else 1.0
    return round(base * t["slow"].get(method, 1.0) * t["shift"] * machine * burst * t["luck"]
                 * t["rng"].lognormvariate(0, t["noise"]))


def op_run(req: dict) -> dict:
    task, model, params = req["task"], req["model"], req["params"]
    method = req["method"]
    began = time.perf_counter_ns()
    warm_ns = params.get("warmup_ms", 0) * 1_000_000
    # warm-ups: at least `warmups`, and on until warmup_ms has passed (PROTOCOL.md section 5)
    reps = itertools.chain(
        ((i, True) for i in itertools.takewhile(
            lambda i: i < params["warmups"] or time.perf_counter_ns() - began < warm_ns,
            itertools.count())),
        ((i, False) for i in range(params["repetitions"])))
    if task in ("sort_dedup", "memory") and req["depth"] != "materialize" and method != "raw":
        raise Failed("bad_request", f"{task} reads at depth materialize")
    if task == "write" and method == "raw":
        job, checksum = write_floor(params, model)
    elif task == "write":
        objects = load_jsonl(params["input"])
        job = lambda clock: write_paged(encode_all(objects), params["output"], model, method,
                                        params["page_size"], clock)
        checksum = fold(object_hash(model, o) for o in objects)
    elif task in ("read_seq", "read_rand"):
        if task == "read_seq":
            ids = range(params["start"], params["start"] + params["n"])
        else:
            ids = array("Q", Path(params["ids"]).read_bytes())[: params["n"]]
        job = lambda clock: read_objects(params["input"], model, method, ids, clock)
    elif task == "read_par":
        job = lambda clock: read_par(params, model, method, clock)
    elif task == "memory":
        job = lambda clock: read_objects(params["input"], model, method, range(params["n"]),
                                         clock)
    elif task == "sort_dedup" and method == "raw":
        job = lambda clock: sort_floor(params, model, clock)
    elif task == "sort_dedup":
        job = lambda clock: sort_dedup(params, model, method, clock)
    elif task == "micro":
        job = lambda clock: micro(params, model)
    else:
        raise Failed("bad_request", f"unknown task {task}")
    samples, out = [], None
    evicts = params.get("cold") and task in ("read_seq", "read_rand", "read_par", "memory",
                                             "sort_dedup")
    for rep, warmup in reps:
        cached = evict(params["input"]) if evicts else None
        clock = Clock()
        t0 = time.perf_counter_ns()
        out = job(clock)
        total = time.perf_counter_ns() - t0
        parts = task_sample(task, out, t0, total)
        if SYNTHETIC is not None:  # the task's own times scaled with the total
            real, total = total, synthetic_ns(method, task, req["depth"])
            parts = scaled(parts, total / max(real, 1))
            clock.io_ns = min(clock.io_ns, total)
        sample = {"rep": rep, "warmup": warmup, "total_ns": total,
                  "cpu_ns": total - clock.io_ns, "io_ns": clock.io_ns}
        if cached is not None:
            sample["cached_fraction"] = cached
        if JIT_RUNS:
            sample.update(fake_jit((task, method, req["depth"], req.get("variant", ""))))
        sample.update(parts)
        samples.append(sample)
    if task == "write":
        return {"samples": samples, "counters": out, "checksum": checksum}
    if task in TASK_RESULTS:
        return TASK_RESULTS[task](samples, out, params)
    return {"samples": samples, "counters": {"objects": out["count"]}, "checksum": out,
            "eviction": "fadvise_dontneed" if params.get("cold") else "none"}


def fake_jit(path: tuple) -> dict:
    """A repetition's JIT figures: compiling during the path's first JIT_RUNS repetitions."""
    runs = jit_counts[path] = jit_counts.get(path, 0) + 1
    compiling = runs <= JIT_RUNS
    return {"jit_ms": 5 if compiling else 0, "jit_cpu_ns": 5_000_000 if compiling else 0}


def scaled(parts: dict, factor: float) -> dict:
    """A sample's own times (ns, or a list of them) times `factor`."""
    return {k: [round(t * factor) for t in v] if isinstance(v, list) else round(v * factor)
            for k, v in parts.items()}


def task_sample(task: str, out: dict, t0: int, total: int) -> dict:
    if task == "read_par":
        return {"thread_ns": out["thread_ns"]}
    if task == "sort_dedup":
        return {"phase1_ns": out["t1"] - t0, "phase2_ns": t0 + total - out["t1"]}
    if task == "micro":
        return {"encode_ns": out["encode_ns"], "decode_ns": out["decode_ns"]}
    return {}


def rss() -> dict:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"peak_rss_bytes": peak, "rss_start_bytes": peak // 2}


def eviction(params: dict) -> str:
    return "fadvise_dontneed" if params.get("cold") else "none"


TASK_RESULTS = {
    "read_par": lambda samples, out, params: {
        "samples": samples, "checksum": {"count": out["count"], "sum": out["sum"]},
        "counters": {"objects": out["count"], "threads": params["threads"], "pages_read": 1},
        "eviction": eviction(params)},
    "sort_dedup": lambda samples, out, params: {
        "samples": samples, "checksum": out["checksum"], "eviction": eviction(params),
        "counters": {"input_objects": out["input_objects"],
                     "output_objects": out["checksum"]["count"], "runs": 1, "merge_passes": 1,
                     "budget_bytes": params["budget_bytes"], **rss()}},
    "memory": lambda samples, out, params: {
        "samples": samples, "checksum": out, "eviction": eviction(params),
        "counters": {"objects": out["count"], "retained_bytes": 100 * out["count"],
                     "retained_bytes_per_object": 100.0, "accounting": "fake", **rss()}},
    "micro": lambda samples, out, params: {
        "samples": samples, "checksum": {"count": out["count"], "sum": out["sum"]},
        "eviction": "none",
        "counters": {"objects": out["count"], "iterations": params["iterations"],
                     "encoded_bytes": out["encoded_bytes"], "buffer": params["buffer"]}},
}


def op_load(req: dict) -> dict:
    return {"checksum": fold(object_hash(req["model"], o)
                             for o in load_jsonl(req["params"]["input"]))}


def op_roundtrip(req: dict) -> dict:
    objects = load_jsonl(req["params"]["input"])
    decoded = [json.loads(d) for d in encode_all(objects)]
    return {"checksum": fold(object_hash(req["model"], o) for o in decoded), "mismatches": 0,
            "first_mismatch": None}


def op_encode(req: dict) -> dict:
    params = req["params"]
    objects = encode_all(load_jsonl(params["input"]))
    counters = write_paged(objects, params["output"], req["model"], req["method"],
                           params.get("page_size", 262144), Clock())
    counters.pop("avg_object_bytes")
    return {"counters": counters}


def op_scan(req: dict) -> dict:
    base, model = req["params"]["input"], req["model"]
    header, entries = read_index(base, model, req["method"])
    checksum = read_objects(base, model, req["method"], range(len(entries)), Clock())
    return {"checksum": checksum, "writer": header["writer"]}


OPS = {"info": lambda req: INFO, "load": op_load, "roundtrip": op_roundtrip,
       "encode": op_encode, "scan": op_scan, "run": op_run, "shutdown": lambda req: {}}


def answer(req: dict) -> dict:
    op = req.get("op")
    if op not in OPS:
        raise Failed("bad_request", f"unknown op {op!r}")
    method = req.get("method")
    if op not in ("info", "shutdown", "load") and method not in INFO["methods"]:
        raise Failed("bad_request", f"unknown method {method!r}")
    return {"id": req["id"], "status": "ok", "result": OPS[op](req)}


# -- misbehaviour --------------------------------------------------------------------------

def triggers(req: dict) -> bool:
    if not TRIGGER:
        return req.get("op") not in ("info", "shutdown")
    fields = {**req.get("params", {}), **req}
    return all(str(fields.get(k)) == v for k, v in TRIGGER.items())


def misbehave(req: dict, out) -> bool:
    """Act out MODE for this request; True when the normal answer must not be sent."""
    rid = req.get("id")
    if MODE == "crash":
        sys.stderr.write("fake driver: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if MODE == "hang":
        time.sleep(3600)
    lines = {
        "garbage": "this is not json",
        "wrong_id": json.dumps({"id": (rid or 0) + 1000, "status": "ok", "result": {}}),
        "no_status": json.dumps({"id": rid, "result": {}}),
        "error": json.dumps({"id": rid, "status": "error",
                             "error": {"kind": "internal", "message": "fake failure"}}),
        "unsupported": json.dumps({"id": rid, "status": "unsupported",
                                   "message": "fake does not do this"}),
    }
    if MODE in lines:
        out.write(lines[MODE] + "\n")
        return True
    return False


def tamper(response: dict) -> dict:
    if MODE == "bad_checksum" and "checksum" in response.get("result", {}):
        checksum = response["result"]["checksum"]
        checksum["sum"] = hex64((int(checksum["sum"], 16) + 1) & MASK)
    if MODE == "bad_samples" and "samples" in response.get("result", {}):
        response["result"]["samples"] = response["result"]["samples"][1:]
    if MODE == "bare_samples" and "samples" in response.get("result", {}):
        for sample in response["result"]["samples"]:
            for key in ("thread_ns", "phase1_ns", "phase2_ns", "encode_ns", "decode_ns"):
                sample.pop(key, None)
    if MODE == "bad_residency":
        for sample in response.get("result", {}).get("samples", ()):
            sample["cached_fraction"] = 1.5
    if MODE == "noisy":
        sys.stderr.write("x" * 200_000 + "\nnoisy tail\n")
    return response


def log(req: dict) -> None:
    path = os.environ.get("FAKE_DRIVER_LOG")
    if path:
        with open(path, "a") as f:
            f.write(" ".join(str(x) for x in (os.getpid(), req.get("op"), req.get("task"),
                                               req.get("method"), req.get("model"),
                                               req.get("variant") or "-")) + "\n")


def serve() -> None:
    out = sys.stdout
    seen = 0
    for line in sys.stdin:
        req = json.loads(line)
        log(req)
        triggered = triggers(req)
        if triggered:
            seen += 1
        if triggered and seen > AFTER and misbehave(req, out):
            out.flush()
            continue
        try:
            response = answer(req)
            if triggered and seen > AFTER:
                response = tamper(response)
        except Failed as exc:
            response = {"id": req.get("id"), "status": "error",
                        "error": {"kind": exc.kind, "message": str(exc)}}
        out.write(json.dumps(response) + "\n")
        out.flush()
        if req.get("op") == "shutdown":
            return


def info_command() -> None:
    mode = os.environ.get("FAKE_DRIVER_INFO", "normal")
    if mode == "crash":
        sys.exit(4)
    if mode == "hang":
        time.sleep(3600)
    print("{not json" if mode == "garbage" else json.dumps(INFO))


if __name__ == "__main__":
    {"info": info_command, "serve": serve}[sys.argv[1]]()


# -- helpers for the tests that drive this program -------------------------------------------

def install(directory: Path, language: str = "rust", **settings) -> Path:
    """An executable that runs this fake as `language` with FAKE_DRIVER_<KEY>=value set."""
    import shlex

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"fake-{language}-{len(list(directory.glob('fake-*')))}"
    lines = ["#!/bin/sh", f"export FAKE_DRIVER_LANGUAGE={language}"]
    lines += [f"export FAKE_DRIVER_{key.upper()}={shlex.quote(str(value))}"
              for key, value in settings.items()]
    lines.append(f'exec {shlex.quote(sys.executable)} {shlex.quote(__file__)} "$@"')
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o755)
    return path


def make_dataset(directory: Path, models=("trade", "part"), copies: int = 4) -> Path:
    """A dataset made of the golden vectors repeated `copies` times, with a manifest
    computed by the Python reference (no native tool needed)."""
    vectors = Path(__file__).resolve().parents[1] / "vectors"
    for model in models:
        lines = [line for line in (vectors / f"{model}.jsonl").read_bytes().splitlines()
                 if line.strip()] * copies
        write_dataset(directory, model, lines, {"copies": copies}, replication=copies)
    return directory


def write_dataset(directory: Path, model: str, lines: list[bytes], params: dict,
                  replication: int = 1) -> Path:
    """`lines` as the dataset's file of `model`, with its manifest."""
    from serbench.datasets.manifest import data_path, manifest_path, summary_to_manifest

    directory.mkdir(parents=True, exist_ok=True)
    data_path(directory, model).write_bytes(b"".join(line + b"\n" for line in lines))
    hashes = [object_hash(model, json.loads(line)) for line in lines]
    checksum = fold(hashes)
    summary = {"model": model, "count": len(lines), "distinct": len(set(hashes)),
               "sum": checksum["sum"], "bytes": sum(len(line) + 1 for line in lines),
               "mean_object_bytes": sum(map(len, lines)) / len(lines),
               "max_object_bytes": max(map(len, lines))}
    manifest = summary_to_manifest(summary, dataset="golden", params=params, seed=None,
                                   replication=replication, generator="tests",
                                   file=data_path(directory, model).name)
    manifest_path(directory, model).write_text(manifest.to_json())
    return directory
