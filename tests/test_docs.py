"""The documents say what the code does: docs/models.md against models.py, PROTOCOL.md's error
kinds against the code that produces and handles them, docs/checksum.md's worked example
against checksum.py and paged.py, the results schema's version, the tasks the documents list
against the harness's, and the methods each driver's README lists against its `info`. Each
test fails when a document and the code drift apart."""
from __future__ import annotations

import json
import re
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import built_driver
from serbench.models import checksum
from serbench.drivers import process as driver, paged
from serbench.run import runner
from serbench.drivers.process import LANGUAGES
from serbench.results import SCHEMA_VERSION
from serbench.tasks import TASKS
from serbench.models import DATASET_OF_MODEL, MODEL_ROOTS, MODELS, STRUCTS, Opt, parse_type

REPO = Path(__file__).resolve().parents[1]
MODELS_DOC = REPO / "docs" / "models.md"
CHECKSUM_DOC = REPO / "docs" / "checksum.md"
PROTOCOL = REPO / "PROTOCOL.md"
README = REPO / "README.md"


# -- Markdown helpers ------------------------------------------------------------------------

def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def ticked(cell: str) -> list[str]:
    """The `code` spans of a table cell, in order."""
    return re.findall(r"`([^`]*)`", cell)


def plain(cell: str) -> str:
    """A cell holding one name, with or without its backticks."""
    return cell.strip().strip("`")


def tables(text: str, header: list[str]) -> list[tuple[str, list[list[str]]]]:
    """(the heading above it, its rows' cells) of every table whose header row is `header`."""
    found, heading = [], ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("|") and cells(line) == header:
            rows = []
            i += 2  # the header and its |---| line
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            found.append((heading, rows))
            continue
        i += 1
    return found


def section(text: str, title: str) -> str:
    """The text under the heading `title` up to the next heading of the same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(title)}\s*$", text, re.M)
    assert match, f"no section {title!r}"
    level = len(match.group(1))
    rest = text[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[:end.start()] if end else rest


# -- (a) docs/models.md against models.py ----------------------------------------------------

def doc_models() -> dict[str, list[str]]:
    (_, rows), = tables(MODELS_DOC.read_text(), ["model", "root struct", "key fields",
                                                 "dataset family",
                                                 "structs reached from the root"])
    return {plain(r[0]): r for r in rows}


def doc_structs() -> dict[str, list[list[str]]]:
    found = tables(MODELS_DOC.read_text(), ["#", "field", "type", "optional", "notes"])
    structs = {heading.strip("`"): rows for heading, rows in found}
    assert len(structs) == len(found), "a struct has two tables in docs/models.md"
    return structs


def test_models_doc_lists_exactly_the_models_of_the_code():
    models = doc_models()
    assert list(models) == list(MODELS)
    for model, row in models.items():
        root, keys, family = MODEL_ROOTS[model][0], MODEL_ROOTS[model][1], DATASET_OF_MODEL[model]
        assert ticked(row[1]) == [root], model
        assert tuple(ticked(row[2])) == keys, f"{model}: key fields"
        assert ticked(row[3]) == [family], f"{model}: dataset family"


def test_models_doc_has_every_struct_with_the_code_fields_in_canonical_order():
    structs = doc_structs()
    assert sorted(structs) == sorted(STRUCTS)
    for name, rows in structs.items():
        fields = [plain(r[1]) for r in rows]
        assert fields == [f for f, _ in STRUCTS[name].fields], f"{name}: field names"
        for position, (row, (fname, ftype)) in enumerate(zip(rows, STRUCTS[name].fields), 1):
            assert row[0] == str(position), f"{name}.{fname}: position"
            assert parse_type(plain(row[2])) == ftype, f"{name}.{fname}: type"
            assert row[3] == ("yes" if isinstance(ftype, Opt) else "no"), f"{name}.{fname}"


def test_models_doc_total_order_table_matches_key_fields_and_root_fields():
    (_, rows), = tables(MODELS_DOC.read_text(), ["model", "compared first", "then"])
    assert [plain(r[0]) for r in rows] == list(MODELS)
    for row in rows:
        model = plain(row[0])
        root, keys = MODEL_ROOTS[model]
        assert tuple(ticked(row[1])) == keys, model
        assert ticked(row[2]) == [f for f, _ in STRUCTS[root].fields], model


# -- (b) PROTOCOL.md's error kinds against the code ------------------------------------------

def protocol_error_kinds() -> list[str]:
    text = section(PROTOCOL.read_text(), "2. Requests and responses")
    (_, rows), = tables(text, ["kind", "meaning"])
    return [plain(r[0]) for r in rows]


def test_protocol_error_kinds_are_the_closed_lists_of_the_drivers():
    kinds = set(protocol_error_kinds())
    assert len(kinds) == len(protocol_error_kinds())
    # `unsupported` is a response status, not an error kind, though the drivers keep it in
    # the same enumeration
    rust = REPO / "drivers" / "rust" / "driver" / "src" / "protocol.rs"
    rust_ids = set(re.findall(r'Kind::\w+ => "(\w+)"', rust.read_text())) - {"unsupported"}
    assert rust_ids == kinds
    cpp = (REPO / "drivers" / "cpp" / "src" / "protocol.cpp").read_text()
    cpp_list = re.search(r"kKindIds\{(.*?)\};", cpp, re.S).group(1)
    cpp_ids = set(re.findall(r'"(\w+)"', cpp_list)) - {"unsupported"}
    # the request loop's kinds, and the one its network nodes add (net/wire.cpp's describe)
    cpp_wire = (REPO / "drivers" / "cpp" / "src" / "net" / "wire.cpp").read_text()
    cpp_ids |= set(re.findall(r'PeerFailure\*>\(&e\)\) return \{"(\w+)"', cpp_wire))
    assert cpp_ids == kinds


@pytest.mark.parametrize("kind", protocol_error_kinds())
def test_the_harness_records_every_protocol_error_kind(kind):
    response = {"id": 1, "status": "error", "error": {"kind": kind, "message": "m"}}
    result = runner.from_response(response)
    assert result.error_kind == kind
    assert result.status == ("invalid" if kind == "checksum_mismatch" else "failed")


def test_an_error_without_a_kind_is_internal_which_the_protocol_lists():
    result = runner.from_response({"id": 1, "status": "error", "error": {"message": "m"}})
    assert result.error_kind == "internal" in protocol_error_kinds()


def harness_sources() -> str:
    return "\n".join(p.read_text() for p in sorted((REPO / "harness" / "serbench").rglob("*.py")))


def driver_failure_kinds() -> set[str]:
    """The closed list of DriverFailure's docstring: a driver process failing as a program."""
    listed = re.search(r"kind is one of (.*?);", " ".join(driver.DriverFailure.__doc__.split()))
    return set(re.split(r",\s*|\s+or\s+", listed.group(1).strip()))


# cell failures the harness finds itself, outside the protocol and the driver process
HARNESS_CELL_KINDS = {"no_input", "sizes", "cluster"}


def test_every_error_kind_the_harness_records_is_a_protocol_or_harness_kind():
    sources = harness_sources()
    raised = set(re.findall(r'(?:_failure|DriverFailure)\(\s*"(\w+)"', sources))
    assert raised == driver_failure_kinds()
    assert not raised & set(protocol_error_kinds())
    recorded = set(re.findall(r'CellResult\(\s*"\w+",\s*"(\w+)"', sources))
    assert recorded, "no CellResult(status, kind, ...) found: the pattern is stale"
    unknown = recorded - set(protocol_error_kinds()) - raised - HARNESS_CELL_KINDS
    assert not unknown


def test_the_results_schema_names_every_kind_the_harness_records():
    row = next(line for line in (REPO / "docs" / "results-schema.md").read_text().splitlines()
               if line.startswith("| error_kind |"))
    named = set(re.findall(r"`(\w+)`", row))
    assert driver_failure_kinds() | HARNESS_CELL_KINDS <= named


# -- (c) docs/checksum.md's worked example against checksum.py and paged.py ------------------

def example() -> tuple[dict[str, str], list[list[str]]]:
    """The `key: value` lines of the example's code blocks, and its step table's rows."""
    text = section(CHECKSUM_DOC.read_text(), "Worked example")
    values = {}
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        for line in block.splitlines():
            key, _, value = line.partition(": ")
            values[key.strip()] = value.strip()
    (_, steps), = tables(text, ["step", "word", "what it is", "hash after the step"])
    return values, steps


def test_the_worked_example_is_what_checksum_py_computes():
    values, steps = example()
    model, obj = values["model"], json.loads(values["object"])
    h = checksum.object_hash(model, obj)
    assert values["object hash"] == checksum.hex64(h)
    # the step table: from the seed, each word stepped in, ending at the object hash
    assert ticked(steps[0][3]) == [checksum.hex64(checksum.SEED)]
    running = checksum.SEED
    for row in steps[1:]:
        running = checksum.step(running, int(plain(row[1]), 16))
        assert ticked(row[3]) == [checksum.hex64(running)], f"step {row[0]}"
    assert running == h

    second = checksum.object_hash(model, json.loads(values["second object"]))
    assert values["second object hash"] == checksum.hex64(second)
    count, total = checksum.set_checksum([h, second])
    assert values["set checksum"] == f"count {count}, sum {checksum.hex64(total)}"
    assert values["sequence checksum, example then second"] == checksum.hex64(
        checksum.sequence_checksum([h, second]))
    assert values["sequence checksum, second then example"] == checksum.hex64(
        checksum.sequence_checksum([second, h]))


def test_the_worked_raw_fold_is_what_paged_py_computes(tmp_path):
    values, _ = example()
    data = values["raw object bytes"].encode()
    base = tmp_path / "one"
    (tmp_path / "one.pages").write_bytes(data)
    header = paged.HEADER.pack(paged.MAGIC, 1, 4096, 1).ljust(paged.HEADER_BYTES, b"\0")
    (tmp_path / "one.index").write_bytes(header + paged.ENTRY.pack(0, 0, len(data)))
    assert paged.raw_checksum(base, [0]) == {"count": 1, "sum": values["raw object hash"]}


def test_the_checksum_doc_states_the_constants_of_checksum_py():
    text = CHECKSUM_DOC.read_text()
    assert f"{checksum.SEED:#x}" in text and f"{checksum.PRIME:#x}" in text


# -- the references ------------------------------------------------------------------------

def test_protocol_and_readme_point_at_the_documents_that_exist():
    protocol, readme = PROTOCOL.read_text(), README.read_text()
    for doc in ("docs/models.md", "docs/checksum.md"):
        assert f"]({doc})" in protocol and f"`{doc}`" in readme, doc
    # no bare pointer to a models.md or a checksum specification outside docs/
    assert not re.search(r"(?<!docs/)(?<!\()models\.md", protocol)
    assert "brief's checksum specification" not in protocol
    for link in re.findall(r"\]\(([^)#]+\.md)\)", protocol + readme):
        assert (REPO / link).is_file(), link


# -- the results schema's version, the tasks and every driver's methods -----------------------

def test_the_results_schema_doc_states_the_version_the_code_writes():
    text = (REPO / "docs" / "results-schema.md").read_text()
    assert re.findall(r"^Schema version: \*\*(\w+)\*\*", text, re.M) == [SCHEMA_VERSION]


def harness_tasks() -> tuple[list[str], list[str], list[str]]:
    """The harness's tasks: the drivers' single-machine tasks, the ones the harness measures
    itself, the network tasks; each in canonical order."""
    return ([t for t, spec in TASKS.items() if not spec.net and not spec.by_harness],
            [t for t, spec in TASKS.items() if spec.by_harness],
            [t for t, spec in TASKS.items() if spec.net])


def test_protocol_names_the_tasks_of_the_harness():
    drivers_run, harness_runs, network = harness_tasks()
    line = re.search(r"^tasks (`[^`]*`) and the network tasks\n?(`[^`]*`)",
                     PROTOCOL.read_text(), re.M)
    assert ticked(line.group(1))[0].split() == drivers_run + harness_runs
    assert ticked(line.group(2))[0].split() == network


DRIVER_READMES = {language: REPO / "drivers" / language / "README.md" for language in LANGUAGES}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_driver_readme_lists_the_tasks_of_the_harness(language):
    drivers_run, harness_runs, _ = harness_tasks()
    first = section(DRIVER_READMES[language].read_text(), "Tasks").strip().split("\n\n")[0]
    listed, _, rest = first.partition("(PROTOCOL.md")
    assert ticked(listed) == drivers_run
    for task in harness_runs:
        assert f"`{task}` is the harness's" in rest


def readme_methods(language: str) -> list[str]:
    """The method ids a driver's README lists under Methods: the first cell of each table row,
    or the bold names opening each bullet (C++)."""
    text = section(DRIVER_READMES[language].read_text(), "Methods")
    found = tables(text, ["id", "what"])
    if found:
        return [m for row in found[0][1] for m in ticked(row[0])]
    bullets = re.findall(r"^- ((?:\*\*\w+\*\*(?:, )?)+)", text, re.M)
    return [m for bullet in bullets for m in re.findall(r"\*\*(\w+)\*\*", bullet)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_driver_readme_lists_exactly_the_methods_of_its_info(language):
    done = subprocess.run([str(built_driver(language)), "info"], capture_output=True,
                          text=True, check=True)
    listed = readme_methods(language)
    assert len(listed) == len(set(listed)), f"{language}: a method listed twice"
    assert sorted(listed) == sorted(json.loads(done.stdout)["methods"])


def test_the_plan_reference_is_the_parameter_table():
    """docs/plans.md holds what params.py declares, whole; a parameter added, renamed or
    given other bounds without the document fails here (regenerate the block with
    `serbench.params.reference()`)."""
    from serbench.params import PARAMS, reference

    text = (REPO / "docs" / "plans.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    assert block == reference()
    documented = set(re.findall(r"^([a-z_]+) = ", block, re.MULTILINE))
    assert documented == {p.name for p in PARAMS}
