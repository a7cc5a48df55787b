"""`serbench import` of files from elsewhere: a real export (of runs stored through Results),
then edited by hand as a hostile or careless user would, keeping serbench's metadata. Each
forged export is refused before anything is written, with exit status 2 and one line per
problem naming the file, the row and what is wrong; the database keeps exactly what it had.
"""
from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from serbench.results import Results, ResultsError
from serbench.results.transfer import export_runs, import_runs
from test_results import filled, kv_metadata
from test_runner import serbench


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """A Parquet export of two runs: run-1 and run-2, three cells each (one ok)."""
    with Results(tmp_path / "source.duckdb") as source:
        filled(source, "run-1", "alpha")
        filled(source, "run-2", "alpha")
        export_runs(source, tmp_path / "a.parquet", "parquet")
    return tmp_path / "a.parquet"


def forged(export: Path, table: str, select: str) -> Path:
    """A copy of the export whose `table` is the result of `select` over the original
    (`{t}` in it), written by DuckDB with the original's metadata."""
    out = export.parent / "forged"
    out.mkdir(exist_ok=True)
    for suffix in ("", ".cells", ".runs"):
        (out / f"x{suffix}.parquet").write_bytes(
            export.with_name(f"a{suffix}.parquet").read_bytes())
    source = export if table == "samples" else export.with_name(f"a.{table}.parquet")
    target = out / ("x.parquet" if table == "samples" else f"x.{table}.parquet")
    metadata = ", ".join(f"{k}: {v!r}" for k, v in kv_metadata(source).items())
    duckdb.sql(f"COPY ({select.format(t=repr(str(source)))}) TO '{target}' "
               f"(FORMAT parquet, KV_METADATA {{{metadata}}})")
    return out / "x.parquet"


def sql_text(value: str) -> str:
    """`value` as an SQL expression, control characters included."""
    return " || ".join(f"chr({ord(c)})" for c in value)


def refusal(database: Path, path: Path) -> str:
    """The message an import of `path` into `database` is refused with; nothing stored."""
    with Results(database) as db:
        before = db.con.execute("SELECT count(*) FROM runs").fetchone()[0]
        with pytest.raises(ResultsError) as caught:
            import_runs(db, path)
        after = [db.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                 for t in ("runs", "cells", "samples")]
        assert after == [before, 3 * before, 3 * before], "a refused import wrote something"
    return str(caught.value)


CASES = [
    ("runs", "SELECT * EXCLUDE (seed) FROM {t}",
     "x.runs.parquet (runs table): no column seed (BIGINT)"),
    ("cells", "SELECT *, 1 AS bonus FROM {t}",
     "x.cells.parquet (cells table): column bonus, which no export has"),
    ("samples", "SELECT * REPLACE (total_ns::DOUBLE AS total_ns) FROM {t}",
     "x.parquet (samples table): column total_ns is DOUBLE, an export's is BIGINT"),
    ("runs", "SELECT * REPLACE (params::VARCHAR || '}}' AS params) FROM {t}",
     "x.runs.parquet (runs table): column params is VARCHAR, an export's is JSON"),
    ("runs", "SELECT * FROM {t} UNION ALL SELECT * FROM {t} WHERE run_id = 'run-2'",
     "x.runs.parquet (runs table): rows 2, 3: run_id is not unique: the same row twice"),
    ("cells", "SELECT * FROM {t} UNION ALL (SELECT * FROM {t} LIMIT 1)",
     "x.cells.parquet (cells table): rows 1, 7: (run_id, cell_id) is not unique"),
    ("samples", "SELECT * FROM {t} UNION ALL (SELECT * FROM {t} LIMIT 1)",
     "x.parquet (samples table): rows 1, 7: (run_id, cell_id, warmup, rep) is not unique"),
    ("runs", "SELECT * REPLACE (CASE WHEN run_id = 'run-2' THEN NULL ELSE started_at END "
             "AS started_at) FROM {t}",
     "x.runs.parquet (runs table): row 2: started_at is empty (NULL)"),
    ("cells", "SELECT * REPLACE (NULL::VARCHAR AS language) FROM {t}",
     "x.cells.parquet (cells table): rows 1, 2, 3 and more: language is empty (NULL)"),
    ("runs", "SELECT * REPLACE ('bogus' AS status) FROM {t}",
     "x.runs.parquet (runs table): rows 1, 2: status is not one of complete, failed, interrupted"),
    ("runs", "SELECT * REPLACE ('running' AS status) FROM {t}",
     "(a run is exported once it has ended)"),
    ("cells", "SELECT * REPLACE (CASE WHEN cell_id = 2 THEN 'fine' ELSE status END AS status) "
              "FROM {t}",
     "x.cells.parquet (cells table): rows 2, 5: status is not one of ok, invalid, failed, "
     "unsupported"),
    ("runs", "SELECT * REPLACE (finished_at - INTERVAL 1 DAY AS finished_at) FROM {t}",
     "x.runs.parquet (runs table): rows 1, 2: finished before it started"),
    ("samples", "SELECT * REPLACE (-total_ns AS total_ns) FROM {t}",
     "x.parquet (samples table): rows 1, 2, 3 and more: a negative repetition or time"),
    ("samples", "SELECT * REPLACE (CASE WHEN rep = 1 THEN -1 ELSE rep END AS rep) FROM {t}",
     "x.parquet (samples table): rows 3, 6: a negative repetition or time"),
    ("cells", "SELECT * REPLACE (CASE WHEN cell_id = 1 THEN 'failed' ELSE status END "
              "AS status) FROM {t}",
     "x.parquet (samples table): rows 1, 2, 3 and more: a sample of a cell that is not ok"),
    ("runs", "SELECT * FROM {t} WHERE false",
     "x.runs.parquet (runs table): no runs: nothing to import"),
]
IDS = [
    ("../../victim", "run id '../../victim': letters, digits, _ . - only"),
    ("/etc", "run id '/etc': letters, digits"),
    ("run\x00x", r"run id 'run\x00x': letters"),
    ("run\nx", r"run id 'run\nx': letters"),
    ("..", "run id '..': letters"),
    ("r" * 65, "run id 'rrrr"),
]


@pytest.mark.parametrize("table, select, problem", CASES)
def test_a_hand_edited_export_is_refused_by_row_and_stores_nothing(export, tmp_path, table,
                                                                   select, problem):
    message = refusal(tmp_path / "here.duckdb", forged(export, table, select))
    assert "x.parquet: not imported, the export is not as `serbench export` writes it" in message
    assert problem in message


@pytest.mark.parametrize("run_id, problem", IDS)
def test_a_run_id_that_would_name_another_directory_is_refused(export, tmp_path, run_id,
                                                                problem):
    path = forged(export, "runs", f"SELECT * REPLACE (CASE WHEN run_id = 'run-2' THEN "
                                  f"{sql_text(run_id)} ELSE run_id END AS run_id) FROM {{t}}")
    for table in ("cells", "samples"):  # the whole triple agrees on the forged id
        target = path if table == "samples" else path.with_name(f"x.{table}.parquet")
        (tmp_path / "tmp.parquet").write_bytes(target.read_bytes())
        metadata = ", ".join(f"{k}: {v!r}" for k, v in kv_metadata(target).items())
        duckdb.sql(f"COPY (SELECT * REPLACE (CASE WHEN run_id = 'run-2' THEN "
                   f"{sql_text(run_id)} ELSE run_id END AS run_id) FROM "
                   f"'{tmp_path / 'tmp.parquet'}') TO '{target}' "
                   f"(FORMAT parquet, KV_METADATA {{{metadata}}})")
    message = refusal(tmp_path / "here.duckdb", path)
    assert f"x.runs.parquet (runs table): row 2: {problem}" in message
    assert len(message) < 1000, "a long id is shown cut"


def test_host_names_and_datasets_are_ids_too(export, tmp_path):
    hostile_host = forged(export, "runs", "SELECT * REPLACE (json_object('hostname', "
                                          "'a/b') AS host) FROM {t}")
    assert "row 1: host name 'a/b': letters" in refusal(tmp_path / "a.duckdb", hostile_host)
    hostile_dataset = forged(export, "cells", "SELECT * REPLACE ('../up' AS dataset) FROM {t}")
    assert "row 1: dataset name '../up'" in refusal(tmp_path / "b.duckdb", hostile_dataset)


def test_flipped_bytes_are_a_damaged_file(export, tmp_path):
    path = forged(export, "runs", "SELECT * FROM {t}")
    cells = path.with_name("x.cells.parquet")
    data = bytearray(cells.read_bytes())
    for i in range(len(data) // 4, len(data) // 4 + 64):
        data[i] ^= 0xFF
    cells.write_bytes(bytes(data))
    message = refusal(tmp_path / "here.duckdb", path)
    assert message.startswith(f"{cells}: the cells table cannot be read, the file is damaged (")
    assert message.endswith("not imported: export it again")


def test_every_problem_is_listed_and_the_cli_says_it_without_a_traceback(export, tmp_path,
                                                                         monkeypatch):
    path = forged(export, "runs", "SELECT * REPLACE ('bogus' AS status, NULL::TIMESTAMP AS "
                                  "started_at) FROM {t}")
    monkeypatch.setenv("SERBENCH_HOME", str(tmp_path / "home"))
    proc = serbench(tmp_path / "home", "import", str(path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "x.runs.parquet (runs table): rows 1, 2: started_at is empty (NULL)" in proc.stderr
    assert "x.runs.parquet (runs table): rows 1, 2: status is not one of" in proc.stderr
    with Results(tmp_path / "home" / "results.duckdb") as db:
        assert db.runs() == []


def test_the_untouched_export_still_imports_whole(export, tmp_path):
    with Results(tmp_path / "here.duckdb") as db:
        assert [r.action for r in import_runs(db, forged(export, "runs",
                                                         "SELECT * FROM {t}"))] == \
            ["imported", "imported"]


def test_an_export_id_is_an_id_too(export, tmp_path):
    path = forged(export, "runs", "SELECT * FROM {t}")
    for suffix in ("", ".cells", ".runs"):
        target = path.with_name(f"x{suffix}.parquet")
        metadata = {**kv_metadata(target), "serbench_export_id": "../x"}
        (tmp_path / "tmp.parquet").write_bytes(target.read_bytes())
        listed = ", ".join(f"{k}: {v!r}" for k, v in metadata.items())
        duckdb.sql(f"COPY (SELECT * FROM '{tmp_path / 'tmp.parquet'}') TO '{target}' "
                   f"(FORMAT parquet, KV_METADATA {{{listed}}})")
    message = refusal(tmp_path / "here.duckdb", path)
    assert message == f"{path}: export id '../x': letters, digits, _ . - only, starting " \
                      "with a letter or digit, without '..' (it names one directory); not " \
                      "imported"
