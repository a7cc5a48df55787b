"""Issue 20.7: a refusal says what is wrong with which object. Every method of every release
driver reads its own file of golden parts with bytes of one object damaged, through its
validating variant: each error names the file, page and object, and gives a reason of its
own, on one readable line (release builds of some libraries keep no reason: bitcode's and
rkyv's errors said only "bitcode error" and "failed without error information").
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import built_driver
from fake_driver import make_dataset
from serbench.drivers import paged
from serbench.datasets.manifest import data_path
from serbench.drivers.process import LANGUAGES, DriverProcess, new_run_stamp

PAGE = 4096
# what libraries say when they say nothing
NO_REASON = ("without error information", "bitcode error", "io error: ")


def damaged(pages: bytes, start: int, length: int) -> list[bytes]:
    """The file with one object's bytes damaged: its first 8 bytes 0xFF, 8 zero bytes in its
    middle, its second half zero."""
    def with_bytes(at: int, value: int, count: int) -> bytes:
        end = min(at + count, start + length)
        return pages[:at] + bytes([value]) * (end - at) + pages[end:]
    return [with_bytes(start, 0xFF, 8), with_bytes(start + length // 2, 0, 8),
            with_bytes(start + length // 2, 0, length)]


def reason_problem(message: str, base: Path, obj: int) -> str | None:
    where = f"{base}.pages: page "
    if not message.startswith(where) or f"object {obj} " not in message:
        return "does not name the file, page and object"
    why = re.sub(r"^byte \d+: ", "", re.split(r"object \d+ at offset \d+: ", message)[-1])
    if len(why.strip()) < 12 or why.rstrip().endswith(":"):
        return "gives no reason"
    if any(bare in message for bare in NO_REASON):
        return "gives the library's empty reason"
    if any(ord(c) < 0x20 or c == "\x7f" or c == "\ufffd" for c in message):
        return "holds raw or replaced bytes"
    return None


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_refusal_names_the_object_and_says_what_is_wrong(language, tmp_path):
    path = built_driver(language)
    data = make_dataset(tmp_path / "data", models=("part",), copies=1)
    problems, refused = [], set()
    with DriverProcess(language, path, timeout_s=60, run_stamp=new_run_stamp()) as d:
        methods = d.request("info")["result"]["methods"]
        for method, spec in sorted(methods.items()):
            if method == "raw" or "part" not in spec["models"]:
                continue
            base = tmp_path / method
            encoded = d.request("encode", model="part", method=method, depth="", variant="",
                                params={"input": str(data_path(data, "part")),
                                        "output": str(base), "page_size": PAGE})
            assert encoded["status"] == "ok", encoded
            page_size, entries = paged.extents(Path(f"{base}.index"))
            obj = len(entries) // 2
            page, offset, length = entries[obj]
            pages = Path(f"{base}.pages").read_bytes()
            for bad in damaged(pages, page * page_size + offset, length):
                Path(f"{base}.pages").write_bytes(bad)
                for depth in spec["depths"]:
                    r = d.request("scan", model="part", method=method, depth=depth,
                                  variant=d.validating_variant(method),
                                  params={"input": str(base), "page_size": PAGE})
                    if r["status"] == "ok":
                        continue  # a positional format may read a changed number
                    refused.add(method)
                    message = r["error"]["message"]
                    problem = reason_problem(message, base, obj)
                    if problem:
                        problems.append(f"{method} {depth}: {problem}: {message}")
    assert not problems, "\n".join(problems)
    # the damage is refused by (nearly) every method, so the reasons above are real ones
    assert len(refused) >= len([m for m in methods if m != "raw"]) - 2, sorted(refused)
