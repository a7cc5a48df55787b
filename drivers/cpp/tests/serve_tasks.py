"""The tasks of PROTOCOL.md 5.1-5.5 through `serbench-cpp serve`, as the harness sends them,
checked against the Python reference checksum (harness/serbench/models/checksum.py).

Usage: python3 serve_tasks.py PATH/TO/serbench-cpp   (ctest runs it as `serve_tasks`)

Every model's golden vectors, each line three times in a scrambled order, are written as
JSON Lines and encoded by the driver; then read_par, sort_dedup, memory and micro run on them
and every checksum is compared with the one the reference computes from the same lines.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "harness"))

from serbench.models.checksum import object_hash, set_checksum  # noqa: E402

MODELS = ("part", "lineitem", "customer", "tweet", "sparse", "trade", "org", "arrays")
REPS = {"cold": True, "warmups": 1, "repetitions": 2}
PAGE = 4096


class Driver:
    def __init__(self, path: str):
        self.proc = subprocess.Popen([path, "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.next_id = 0

    def ask(self, op: str, **fields) -> dict:
        self.next_id += 1
        line = json.dumps({"id": self.next_id, "op": op, **fields})
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        assert answer["id"] == self.next_id, answer
        return answer

    def run(self, task: str, model: str, method: str, depth: str, variant: str = "",
            **params) -> dict:
        return self.ask("run", task=task, model=model, method=method, depth=depth,
                        variant=variant, params={**params, **REPS})

    def close(self) -> None:
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0, "the driver did not exit 0"


def ok(answer: dict) -> dict:
    assert answer["status"] == "ok", answer
    return answer["result"]


def error(answer: dict, kind: str, names: str) -> None:
    assert answer["status"] == "error" and answer["error"]["kind"] == kind, answer
    assert names in answer["error"]["message"], answer


def checksum(hashes) -> dict:
    count, total = set_checksum(hashes)
    return {"count": count, "sum": f"{total:016x}"}


def scrambled(lines: list[str], times: int) -> list[str]:
    out = lines * times
    for i in range(len(out)):
        j = (i * 7 + 3) % len(out)
        out[i], out[j] = out[j], out[i]
    return out


def check_model(driver: Driver, model: str, work: Path) -> None:
    lines = (REPO / "vectors" / f"{model}.jsonl").read_text(encoding="utf-8").splitlines()
    lines = scrambled([line for line in lines if line.strip()], 3)
    hashes = [object_hash(model, json.loads(line)) for line in lines]
    n = len(lines)
    jsonl = work / f"{model}.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ids = [(i * 5 + 1) % n for i in range(n)] + [0, 0]
    ids_file = work / f"{model}.ids"
    ids_file.write_bytes(b"".join(i.to_bytes(8, "little") for i in ids))

    for method, depth, variant in (("handcoded", "access", ""),
                                   ("inplace", "materialize", "validate")):
        base = work / f"{model}-{method}"
        ok(driver.ask("encode", model=model, method=method, variant="", depth="",
                      params={"input": str(jsonl), "output": str(base), "page_size": PAGE}))
        for threads in (1, 3):
            seq = ok(driver.run("read_par", model, method, depth, variant, input=str(base),
                                threads=threads, mode="seq", start=1, n=n - 1))
            assert seq["checksum"] == checksum(hashes[1:]), (model, method, seq)
            assert all(len(s["thread_ns"]) == threads for s in seq["samples"])
            rand = ok(driver.run("read_par", model, method, depth, variant, input=str(base),
                                 threads=threads, mode="rand", ids=str(ids_file), n=len(ids)))
            assert rand["checksum"] == checksum(hashes[i] for i in ids), (model, method, rand)

        out = work / f"{model}-{method}-sorted"
        out.mkdir()
        sort = ok(driver.run("sort_dedup", model, method, "materialize", variant,
                             input=str(base), output=str(out), budget_bytes=1024,
                             page_size=256))
        distinct = set(hashes)
        assert sort["counters"]["input_objects"] == n
        assert sort["checksum"]["count"] == len(distinct), (model, method, sort)
        scan = ok(driver.ask("scan", model=model, method=method, variant=variant,
                             depth="materialize",
                             params={"input": str(out / "sorted"), "page_size": 256}))
        assert scan["checksum"] == checksum(distinct), (model, method, scan)

        memory = ok(driver.run("memory", model, method, "materialize", variant,
                               input=str(base), n=n))
        assert memory["checksum"] == checksum(hashes), (model, method, memory)
        assert memory["counters"]["accounting"] == "counting_allocator"
        assert memory["counters"]["retained_bytes"] > 0

        for buffer in ("fresh", "reused"):
            micro = ok(driver.run("micro", model, method, depth, variant, input=str(jsonl),
                                  n=n, iterations=2, buffer=buffer))
            assert micro["checksum"] == checksum(hashes), (model, method, buffer, micro)


def check_errors(driver: Driver, work: Path) -> None:
    base = work / "part-handcoded"
    error(driver.run("read_par", "part", "handcoded", "access", input=str(base), threads=0,
                     mode="seq", start=0, n=1), "bad_request", "params.threads")
    error(driver.run("read_par", "part", "handcoded", "access", input=str(base), threads=2,
                     mode="seq", n=1), "bad_request", "params.start")
    error(driver.run("sort_dedup", "part", "handcoded", "materialize", input=str(base),
                     output=str(work), budget_bytes=4096, page_size=4096),
          "bad_request", "params.output")
    error(driver.run("memory", "part", "handcoded", "materialize", input=str(base), n=0),
          "bad_request", "params.n")
    error(driver.run("micro", "part", "handcoded", "access",
                     input=str(REPO / "vectors" / "part.jsonl"), n=1, iterations=1,
                     buffer="recycled"), "bad_request", "params.buffer")
    sizes = driver.run("sizes", "part", "handcoded", "")
    assert sizes["status"] == "unsupported", sizes
    assert "sizes" not in ok(driver.ask("info"))["tasks"]


def main() -> None:
    driver = Driver(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS:
            check_model(driver, model, Path(tmp))
        check_errors(driver, Path(tmp))
    driver.close()
    print(f"serve_tasks: {len(MODELS)} models x read_par, sort_dedup, memory, micro: ok")


if __name__ == "__main__":
    main()
