"""Real TPC-H data as nested canonical JSON Lines (models `part`, `lineitem`, `customer`).

`tpchgen-cli` writes the flat tables as Parquet into a scratch directory inside the output
directory; DuckDB joins them into the nested objects of docs/models.md and writes the JSON Lines
itself, so no row passes through Python. Every scalar field reads the column of the same name
with the table's prefix (p_, s_, l_, o_, c_), cast to the field's type; the struct descriptors
in models.py give the names and the canonical order.

Why the SQL is shaped the way it is (measured at SF 1 on 2 cores):
- DuckDB's own nesting (list() of structs, then COPY ... FORMAT JSON) took minutes and ran
  out of memory for customers. Instead each object's JSON text is assembled from to_json()
  pieces: a part or supplier is serialised once and its text spliced into every line item,
  and a customer's orders array is one ordered string_agg of fragments. The bytes are those
  DuckDB's JSON writer gives for the nested structs (tests/test_tpch.py compares them).
- The Parquet tables are loaded into the tables of a scratch database file first: scanning the
  Parquet files directly hands dictionary vectors to to_json and the aggregates, several times
  slower. A file, not temporary tables, so that DuckDB pages the tables out beyond its memory
  budget: with in-memory tables SF 1 needed 4 GB.
- Line items and customers are written in key-range chunks, each sorted on its own, so memory
  stays bounded by a chunk; the chunks are appended to the output in key order.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..models import STRUCTS, Prim

TPCH_MODELS = ("part", "lineitem", "customer")

# the source tables each model joins
TABLES_OF_MODEL = {
    "part": ("part",),
    "lineitem": ("lineitem", "part", "supplier"),
    "customer": ("customer", "orders", "lineitem", "part", "supplier"),
}

# DATE columns cast to VARCHAR print as YYYY-MM-DD; DECIMAL(15,2) cast to DOUBLE is the
# nearest double of the decimal, the value a parser of the decimal text produces
SQL_TYPES = {"i32": "INTEGER", "f64": "DOUBLE", "str": "VARCHAR"}

# DuckDB's memory budget: it pages tables and spills operators to the scratch directory
# beyond it, so generation peaks near it whatever the scale factor (SF 1 customers: 2.0 GB of
# RSS, 2.5 min; 1 GB is too little for a chunk's ordered string_agg)
MEMORY_LIMIT = "2GB"

# chunk sizes: about 150-250 MB of JSON per chunk for either model, whatever the scale factor
CUSTOMERS_PER_CHUNK = 5_000
ORDERKEYS_PER_CHUNK = 250_000

# COPY options that write each row's single VARCHAR column as it is, one per line (DuckDB's
# JSON writer is this CSV writer over to_json())
RAW_LINES = "(FORMAT CSV, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x01')"

# Inside a list of fragments, \x01 marks "a comma goes here unless the list closes next"; it
# cannot occur in JSON text, so two replace() calls resolve it exactly
MARK = "\x01"


class TpchError(RuntimeError):
    """tpchgen-cli is missing or failed."""


def generate_tpch(
    sf: float,
    out_dir: Path,
    models: Sequence[str] = TPCH_MODELS,
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Writes `<model>.jsonl.tmp` in out_dir for each model; returns model -> tmp path.

    The caller checksums and renames the files. The scratch directory (tpchgen output and
    DuckDB spill files) is removed at the end, and on failure with any partial output.
    """
    check_scale_factor(sf)
    models = list(dict.fromkeys(models))
    unknown = [m for m in models if m not in TPCH_MODELS]
    if not models:
        raise ValueError("no TPC-H model requested")
    if unknown:
        raise ValueError(f"not a TPC-H model: {', '.join(unknown)}; "
                         f"expected some of {', '.join(TPCH_MODELS)}")
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    tpchgen = find_tpchgen()
    say = progress or (lambda message: None)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".tpch-scratch-", dir=out_dir))
    written: dict[str, Path] = {}
    try:
        tables = sorted({t for m in models for t in TABLES_OF_MODEL[m]})
        say(f"tpchgen-cli: {', '.join(tables)} at SF {sf}")
        run_tpchgen(tpchgen, sf, tables, scratch / "tables", threads)
        con = _connect(scratch, threads)
        try:
            say("loading the tables into DuckDB")
            _load_tables(con, scratch / "tables", tables)
            for model in models:
                path = out_dir / f"{model}.jsonl.tmp"
                written[model] = path
                say(f"writing {path.name}")
                WRITERS[model](con, path, scratch, say)
        finally:
            con.close()
        return written
    except BaseException as error:
        for path in written.values():
            path.unlink(missing_ok=True)
        import duckdb  # lazily, as in _connect: the harness imports this module at start

        if isinstance(error, duckdb.OutOfMemoryException):
            raise TpchError(f"DuckDB ran out of its {MEMORY_LIMIT} memory budget "
                            f"(tpch.MEMORY_LIMIT): {str(error).splitlines()[0]}") from error
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check_scale_factor(sf: float) -> None:
    if isinstance(sf, bool) or not isinstance(sf, (int, float)):
        raise ValueError(f"scale factor must be a number, got {sf!r}")
    if not math.isfinite(sf) or sf <= 0:
        raise ValueError(f"scale factor must be finite and greater than 0, got {sf!r}")


def find_tpchgen() -> Path:
    """tpchgen-cli next to the running Python (its venv) first, then on PATH."""
    beside = Path(sys.executable).parent / "tpchgen-cli"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("tpchgen-cli")
    if found:
        return Path(found)
    raise TpchError("tpchgen-cli not found next to the Python interpreter or on PATH; "
                    "install the PyPI package tpchgen-cli (pip install tpchgen-cli==4.0.0)")


def run_tpchgen(tpchgen: Path, sf: float, tables: Sequence[str], dest: Path,
                threads: int | None) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    command = [str(tpchgen), "parquet", "--scale-factor", repr(float(sf)),
               "--tables", ",".join(tables), "--output-dir", str(dest), "--quiet"]
    if threads is not None:
        command += ["--num-threads", str(threads)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip()
        raise TpchError(f"tpchgen-cli failed (exit {result.returncode}): {detail}")


def _connect(scratch: Path, threads: int | None):
    import duckdb

    con = duckdb.connect(str(scratch / "tables.duckdb"))
    _run(con, "SET enable_progress_bar = false")
    _run(con, f"SET memory_limit = '{MEMORY_LIMIT}'")
    _run(con, f"SET temp_directory = {_sql_text(scratch / 'spill')}")
    if threads is not None:
        _run(con, f"SET threads = {int(threads)}")
    return con


def _load_tables(con, source: Path, tables: Sequence[str]) -> None:
    for table in tables:
        _run(con, f"CREATE TABLE {table} AS "
                  f"FROM read_parquet({_sql_text(source / (table + '.parquet'))})")
    if "part" in tables and "lineitem" in tables:
        _run(con, f"CREATE TABLE part_json AS SELECT p_partkey, "
                  f"{_json_text('Part', 'p_')} AS part_json FROM part")
        _run(con, f"CREATE TABLE supplier_json AS SELECT s_suppkey, "
                  f"{_json_text('Supplier', 's_')} AS supplier_json FROM supplier")


# -- SQL building blocks ------------------------------------------------------------------


def _fields(struct: str, prefix: str, skip: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(key, SQL expression) per scalar field of `struct` in canonical order; struct and list
    fields must be named in skip (they are assembled by the caller)."""
    fields = []
    for name, ftype in STRUCTS[struct].fields:
        if name in skip:
            continue
        if not (isinstance(ftype, Prim) and ftype.kind in SQL_TYPES):
            raise AssertionError(f"{struct}.{name} is not a scalar column")
        fields.append((name, f"{prefix}{name}::{SQL_TYPES[ftype.kind]}"))
    return fields


def _scalars_json(fields: list[tuple[str, str]]) -> str:
    struct = "{" + ", ".join(f"'{name}': {expr}" for name, expr in fields) + "}"
    return f"to_json({struct})::VARCHAR"


def _json_text(struct: str, prefix: str, embedded: dict[str, str] | None = None) -> str:
    """SQL for the JSON text of one `struct` object. Runs of scalar fields are rendered by
    to_json(); `embedded` maps each other field to SQL giving its JSON text, spliced in."""
    embedded = embedded or {}
    scalars = dict(_fields(struct, prefix, skip=list(embedded)))
    pieces: list[str | list[tuple[str, str]]] = []  # a field name, or a run of scalars
    for name, _ in STRUCTS[struct].fields:
        if name in embedded:
            pieces.append(name)
        elif pieces and isinstance(pieces[-1], list):
            pieces[-1].append((name, scalars[name]))
        else:
            pieces.append([(name, scalars[name])])
    last = len(pieces) - 1
    texts = []
    for i, piece in enumerate(pieces):
        if isinstance(piece, list):
            # a run keeps only the braces that belong to the whole object (its values are
            # numbers or strings, so exactly one brace is trimmed at a cut end)
            text = _scalars_json(piece)
            text = text if i == 0 else f"ltrim({text}, '{{')"
            text = text if i == last else f"rtrim({text}, '}}')"
            texts.append(text)
        else:
            if i == 0:
                texts.append("'{'")
            texts += [f"'\"{piece}\":'", embedded[piece]]
            if i == last:
                texts.append("'}'")
        if i < last:
            texts.append("','")
    # one concat() builds the text in one copy, where a chain of || copies it at every step
    return f"concat({', '.join(texts)})"


def _object_head(struct: str, prefix: str) -> str:
    """SQL for an object's JSON text up to the opening bracket of its last field, a list."""
    list_name = STRUCTS[struct].fields[-1][0]
    scalars = _scalars_json(_fields(struct, prefix, skip=[list_name]))
    return f"concat(rtrim({scalars}, '}}'), ',\"{list_name}\":[')"


def _lineitem_json() -> str:
    return _json_text("LineItem", "l_", {"part": "part_json", "supplier": "supplier_json"})


LINEITEM_FROM = ("lineitem JOIN part_json ON l_partkey = p_partkey "
                 "JOIN supplier_json ON l_suppkey = s_suppkey")


def _run(con, sql: str) -> list[tuple]:
    """Executes one statement to completion (DuckDB 2 keeps an unfetched result open)."""
    return con.execute(sql).fetchall()


def _sql_text(value: object) -> str:
    return "'" + str(value).replace("'", "''") + "'"


# -- the three writers ------------------------------------------------------------------


def _write_parts(con, path: Path, scratch: Path, say: Callable[[str], None]) -> None:
    columns = ", ".join(f'{expr} AS "{name}"' for name, expr in _fields("Part", "p_"))
    _run(con, f"COPY (SELECT {columns} FROM part ORDER BY p_partkey) "
              f"TO {_sql_text(path)} (FORMAT JSON)")


def _lineitem_chunk(lo: int, hi: int) -> str:
    return (f"SELECT {_lineitem_json()} FROM {LINEITEM_FROM} "
            f"WHERE l_orderkey BETWEEN {lo} AND {hi} ORDER BY l_orderkey, l_linenumber")


def _write_lineitems(con, path: Path, scratch: Path, say: Callable[[str], None]) -> None:
    lo, hi = _run(con, "SELECT min(l_orderkey), max(l_orderkey) FROM lineitem")[0]
    _write_chunks(con, path, scratch, say,
                  [_lineitem_chunk(a, b) for a, b in _ranges(lo, hi, ORDERKEYS_PER_CHUNK)])


def _customer_chunk(lo: int, hi: int) -> str:
    """Customers lo..hi as JSON lines. A customer's orders array is one string_agg over
    fragments ordered by (orderkey, kind, linenumber): an order's head (kind 0), its line
    items (kind 1), its closing brackets (kind 2)."""
    return f"""
        WITH chunk_orders AS (SELECT * FROM orders WHERE o_custkey BETWEEN {lo} AND {hi}),
        fragments AS (
            SELECT o_custkey, o_orderkey, 0 AS kind, 0 AS linenumber,
                   {_object_head('Order', 'o_')} AS fragment
            FROM chunk_orders
            UNION ALL
            SELECT o_custkey, o_orderkey, 1, l_linenumber, concat({_lineitem_json()}, '{MARK}')
            FROM {LINEITEM_FROM} JOIN chunk_orders ON l_orderkey = o_orderkey
            UNION ALL
            SELECT o_custkey, o_orderkey, 2, 0, ']}}{MARK}' FROM chunk_orders),
        orders_of AS (
            SELECT o_custkey AS orders_custkey,
                   string_agg(fragment, '' ORDER BY o_orderkey, kind, linenumber) AS fragments
            FROM fragments GROUP BY o_custkey)
        -- concat() skips NULL: a customer without orders gets "orders":[]
        SELECT concat({_object_head('Customer', 'c_')},
                      replace(replace(concat(fragments, ']'), '{MARK}]', ']'), '{MARK}', ','),
                      '}}')
        FROM customer LEFT JOIN orders_of ON c_custkey = orders_custkey
        WHERE c_custkey BETWEEN {lo} AND {hi}
        ORDER BY c_custkey"""


def _write_customers(con, path: Path, scratch: Path, say: Callable[[str], None]) -> None:
    lo, hi = _run(con, "SELECT min(c_custkey), max(c_custkey) FROM customer")[0]
    _write_chunks(con, path, scratch, say,
                  [_customer_chunk(a, b) for a, b in _ranges(lo, hi, CUSTOMERS_PER_CHUNK)])


WRITERS = {"part": _write_parts, "lineitem": _write_lineitems, "customer": _write_customers}


# -- chunked output -----------------------------------------------------------------------


def _ranges(lo: int | None, hi: int | None, step: int) -> Iterator[tuple[int, int]]:
    """Inclusive key ranges covering lo..hi; none for an empty table."""
    if lo is None:
        return
    for start in range(lo, hi + 1, step):
        yield start, min(start + step - 1, hi)


def _write_chunks(con, path: Path, scratch: Path, say: Callable[[str], None],
                  queries: list[str]) -> None:
    """Runs each query into a chunk file and appends it to path, in order."""
    chunk = scratch / "chunk.jsonl"
    with path.open("wb") as out:
        for i, query in enumerate(queries, 1):
            say(f"{path.name}: chunk {i}/{len(queries)}")
            _run(con, f"COPY ({query}) TO {_sql_text(chunk)} {RAW_LINES}")
            _append(chunk, out)


def _append(source: Path, out) -> None:
    """Appends source to the open file out inside the kernel, then deletes source."""
    with source.open("rb") as f:
        while os.copy_file_range(f.fileno(), out.fileno(), 1 << 30):
            pass
    source.unlink()
