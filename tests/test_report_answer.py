"""The summary's answer on hand-made cells: an implementation at its floor (its own file's raw
write, or a network cell's transfer time) is told from one above it by the rankings' rule, a
row where most sit at their floor is floor-bound, and the takeaways say where that holds."""
from serbench.compare import noise
from serbench.report.answer import answer_table, answers, takeaways
from serbench.report.data import Cell, Stat
from serbench.report.plots import Palette
from serbench.report.series import build_series
from serbench.report.tasks import TaskModel

N = 1000
# per-round factors every cell shares (the same machine state), as interleaved rounds give
ROUNDS = (1.0, 1.02, 0.98, 1.01, 0.99)
NOISE = noise.from_json({"sigma": {"write": 0.05, "net_fetch": 0.05}, "source": "the test"})


def cell(cell_id, language, method, ms, variant="", task="write", depth="", setting="",
         counters=None, nodes=None):
    times = {r: ms * 1e6 * f for r, f in enumerate(ROUNDS)}
    return Cell(cell_id, language, task, "part", method, depth, variant, "default", N, 1, 262144,
                False, "ok", "", "", "", N, "", N, "", "", counters or {}, reps=len(ROUNDS),
                total=Stat(ms * 1e6, min(times.values()), max(times.values())), steady=True,
                rounds=times, setting=setting, nodes=nodes or {})


def model(task, cells):
    return TaskModel(task, "part", build_series(cells), N, True, Palette(set()), NOISE)


def write_cells(json_ms):
    """Rust and C++ hand-coded writes 1-2 % over their own file's floor; JSON `json_ms` over
    a floor of 1 ms."""
    return [cell(1, "rust", "handcoded", 1.02), cell(2, "rust", "raw", 1.0, "handcoded"),
            cell(3, "cpp", "handcoded", 1.01), cell(4, "cpp", "raw", 1.0, "handcoded"),
            cell(5, "rust", "json", json_ms), cell(6, "rust", "raw", 1.0, "json")]


def test_a_row_where_most_implementations_sit_at_their_floor_is_floor_bound():
    (row,) = answers({"write": [model("write", write_cells(3.0))]})
    # the hand-coded writes are within noise of their floors, JSON's 3x is not
    assert [(e.label, e.at_floor) for e in row.entries] == [
        ("cpp · handcoded", True), ("rust · handcoded", True), ("rust · json", False)]
    assert row.floor_bound
    table = answer_table([row])
    assert table.rows[0].values[-1] == "3/3 steady · floor-bound: 2/3 at their floor"
    facts = dict(takeaways([row], {"rust": (4, 4), "cpp": (2, 2)}).items)
    assert facts["floor-bound"].startswith("write (1 of 1 rows): most implementations within "
                                           "noise of their floor")
    # no line of leaders where the floor decides
    assert set(facts) == {"floor-bound", "steady"}
    assert facts["steady"] == "rust 100% of 4, cpp 100% of 2 timed cells; the rest are labelled"


def test_a_row_above_its_floors_is_not_floor_bound_and_names_its_leaders():
    cells = [cell(1, "rust", "handcoded", 2.0), cell(2, "rust", "raw", 1.0, "handcoded"),
             cell(3, "cpp", "handcoded", 2.02), cell(4, "cpp", "raw", 1.0, "handcoded"),
             cell(5, "rust", "json", 6.0), cell(6, "rust", "raw", 1.0, "json")]
    (row,) = answers({"write": [model("write", cells)]})
    assert not any(e.at_floor for e in row.entries) and not row.floor_bound
    values = answer_table([row]).rows[0].values
    assert values[2:4] == ["rust · handcoded (+1 tied)", "2.00 ms"]
    assert values[4].startswith("rust · json 3.00x (")
    facts = dict(takeaways([row], {}).items)
    assert facts["write"] == ("rust · handcoded (first in 1 of 1), cpp · handcoded (1); next "
                              "distinct 3.00x slower; slowest up to 3.00x (rust · json, "
                              "write · part)")


def test_a_network_cell_at_its_links_transfer_time_is_at_its_floor():
    # the busiest node received 1.2 MB on a link measured at 1 Gbit/s: 9.6 ms at the least
    def fetch(cell_id, language, method, ms):
        return cell(cell_id, language, method, ms, task="net_fetch",
                    setting="source=disk servers=2",
                    counters={"network": "namespaces", "measured_bit": {"server0": 1e9}},
                    nodes={"client": {"bytes_received": 1_200_000}})
    cells = [fetch(1, "rust", "bson", 9.7), fetch(2, "cpp", "bson", 9.8),
             fetch(3, "java", "bson", 30.0)]
    (row,) = answers({"net_fetch": [model("net_fetch", cells)]})
    assert [e.at_floor for e in row.entries] == [True, True, False]
    assert row.floor_ratio == 9.6 / 9.7
    assert row.floor_bound


def test_one_implementation_or_all_tied_say_so_instead_of_a_gap():
    alone = answers({"write": [model("write", [cell(1, "rust", "handcoded", 1.0)])]})
    tied = answers({"write": [model("write", [cell(1, "rust", "handcoded", 1.0),
                                              cell(2, "cpp", "handcoded", 1.01)])]})
    rows = answer_table(alone + tied).rows
    assert [r.values[4] for r in rows] == ["— (one implementation)", "— (all tied)"]
    assert rows[0].values[5] == "—"
