"""TPC-H to nested canonical JSON Lines: counts, embedded copies, list order, validation.

The generator runs once at SF 0.01; tpchgen-cli is deterministic, so the source tables are
generated again beside it and read with DuckDB as the reference.
"""
import json
import random
from decimal import Decimal

import duckdb
import pytest

from serbench.models.checksum import object_hash
from serbench.datasets import tpch
from serbench.models import ListOf, Ref, STRUCTS

SF = 0.01
MODELS = {"part": "Part", "lineitem": "LineItem", "customer": "Customer"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("tpch")
    with pytest.MonkeyPatch.context() as patch:
        # several chunks per model even at this scale factor, so chunk seams are checked
        patch.setattr(tpch, "CUSTOMERS_PER_CHUNK", 400)
        patch.setattr(tpch, "ORDERKEYS_PER_CHUNK", 16_000)
        paths = tpch.generate_tpch(SF, out)
    objects = {model: [json.loads(line) for line in path.read_text("utf-8").splitlines()]
               for model, path in paths.items()}
    return out, paths, objects


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """The flat source tables, as DuckDB views over tpchgen's Parquet output."""
    directory = tmp_path_factory.mktemp("tpch-source")
    tables = ("part", "supplier", "customer", "orders", "lineitem")
    tpch.run_tpchgen(tpch.find_tpchgen(), SF, tables, directory, None)
    con = duckdb.connect()
    for table in tables:
        con.execute(f"CREATE VIEW {table} AS FROM read_parquet('{directory / table}.parquet')")
    yield con
    con.close()


def rows(con, sql, params=()):
    result = con.execute(sql, params)
    names = [d[0] for d in result.description]
    return [dict(zip(names, row)) for row in result.fetchall()]


def canonical(row, prefix, struct):
    """A source row as the canonical object's scalar fields would hold it."""
    out = {}
    for name, _ in STRUCTS[struct].fields:
        if prefix + name not in row:
            continue
        value = row[prefix + name]
        if isinstance(value, Decimal):
            value = float(value)  # correctly rounded, like a parser of the decimal text
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        out[name] = value
    return out


def scalars(obj, struct):
    nested = {name for name, t in STRUCTS[struct].fields if isinstance(t, (Ref, ListOf))}
    return {k: v for k, v in obj.items() if k not in nested}


def test_outputs_are_the_tmp_files_and_scratch_is_gone(generated):
    out, paths, _ = generated
    assert paths == {m: out / f"{m}.jsonl.tmp" for m in MODELS}
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in paths.values())


def test_counts_match_the_source_tables(generated, source):
    _, _, objects = generated
    assert [len(objects[m]) for m in MODELS] == [2_000, 60_175, 1_500]
    for model, table in (("part", "part"), ("lineitem", "lineitem"), ("customer", "customer")):
        (expected,), = source.execute(f"SELECT count(*) FROM {table}").fetchall()
        assert len(objects[model]) == expected > 0
    nested = sum(len(o["lineitems"]) for c in objects["customer"] for o in c["orders"])
    assert nested == len(objects["lineitem"])
    (orders,), = source.execute("SELECT count(*) FROM orders").fetchall()
    assert sum(len(c["orders"]) for c in objects["customer"]) == orders


def test_the_published_counts_at_a_larger_scale_factor(tmp_path):
    """The generator keeps one object per source row (checked above at SF 0.01); here the
    source row counts of tpchgen-cli at SF 0.1 (SF 1: 200,000 / 6,001,215 / 150,000)."""
    counts = {"part": 20_000, "lineitem": 600_572, "customer": 15_000}
    tpch.run_tpchgen(tpch.find_tpchgen(), 0.1, list(counts), tmp_path, None)
    for table, expected in counts.items():
        (count,), = duckdb.execute(
            f"SELECT count(*) FROM read_parquet('{tmp_path / table}.parquet')").fetchall()
        assert count == expected


def test_every_object_validates_with_keys_in_canonical_order(generated):
    _, _, objects = generated
    for model, struct in MODELS.items():
        for obj in objects[model]:
            object_hash(model, obj)
            assert_key_order(obj, struct)


def assert_key_order(obj, struct):
    assert list(obj) == [name for name, _ in STRUCTS[struct].fields]
    for name, ftype in STRUCTS[struct].fields:
        if isinstance(ftype, Ref):
            assert_key_order(obj[name], ftype.name)
        elif isinstance(ftype, ListOf):
            for item in obj[name]:
                assert_key_order(item, ftype.inner.name)


def test_objects_and_lists_are_in_key_order(generated):
    _, _, objects = generated
    partkeys = [p["partkey"] for p in objects["part"]]
    assert partkeys == sorted(set(partkeys))
    lineitem_keys = [(li["orderkey"], li["linenumber"]) for li in objects["lineitem"]]
    assert lineitem_keys == sorted(set(lineitem_keys))
    custkeys = [c["custkey"] for c in objects["customer"]]
    assert custkeys == sorted(set(custkeys))
    for customer in objects["customer"]:
        orderkeys = [o["orderkey"] for o in customer["orders"]]
        assert orderkeys == sorted(set(orderkeys))
        for order in customer["orders"]:
            assert order["custkey"] == customer["custkey"]
            linenumbers = [li["linenumber"] for li in order["lineitems"]]
            assert linenumbers == sorted(set(linenumbers))


def test_parts_equal_the_source_rows(generated, source):
    _, _, objects = generated
    expected = [canonical(r, "p_", "Part") for r in rows(source, "FROM part ORDER BY p_partkey")]
    assert objects["part"] == expected


def test_sampled_lineitems_embed_their_part_and_supplier(generated, source):
    _, _, objects = generated
    sample = random.Random(11).sample(objects["lineitem"], 200)
    for item in sample:
        (row,) = rows(source, "FROM lineitem JOIN part ON l_partkey = p_partkey "
                              "JOIN supplier ON l_suppkey = s_suppkey "
                              "WHERE l_orderkey = ? AND l_linenumber = ?",
                      (item["orderkey"], item["linenumber"]))
        assert item["part"] == canonical(row, "p_", "Part")
        assert item["supplier"] == canonical(row, "s_", "Supplier")
        assert scalars(item, "LineItem") == canonical(row, "l_", "LineItem")


def test_sampled_orders_hold_exactly_their_lineitems(generated, source):
    _, _, objects = generated
    orders = [o for c in objects["customer"] for o in c["orders"]]
    lineitems = {(li["orderkey"], li["linenumber"]): li for li in objects["lineitem"]}
    for order in random.Random(12).sample(orders, 50):
        (row,) = rows(source, "FROM orders WHERE o_orderkey = ?", (order["orderkey"],))
        assert scalars(order, "Order") == canonical(row, "o_", "Order")
        keys = source.execute("SELECT l_orderkey, l_linenumber FROM lineitem "
                              "WHERE l_orderkey = ? ORDER BY l_linenumber",
                              (order["orderkey"],)).fetchall()
        assert order["lineitems"] == [lineitems[key] for key in keys]


def test_customers_equal_the_source_and_those_without_orders_have_an_empty_list(generated,
                                                                               source):
    _, _, objects = generated
    expected = rows(source, "FROM customer ORDER BY c_custkey")
    assert [scalars(c, "Customer") for c in objects["customer"]] == [
        canonical(r, "c_", "Customer") for r in expected]
    without = {k for (k,) in source.execute(
        "SELECT c_custkey FROM customer ANTI JOIN orders ON o_custkey = c_custkey").fetchall()}
    assert without, "SF 0.01 has customers without orders"
    assert {c["custkey"] for c in objects["customer"] if c["orders"] == []} == without


def struct_sql(fields):
    return "{" + ", ".join(f"'{name}': {expr}" for name, expr in fields) + "}"


def test_text_equals_duckdbs_own_json_writer_for_the_nested_structs(generated, source,
                                                                      tmp_path):
    """The JSON text assembled from pieces is byte for byte what COPY ... (FORMAT JSON) writes
    for the same objects built as nested DuckDB structs (the slow way)."""
    out, _, _ = generated
    lineitem = tpch._fields("LineItem", "l_", skip=["part", "supplier"])
    lineitem[1:1] = [("part", struct_sql(tpch._fields("Part", "p_"))),
                     ("supplier", struct_sql(tpch._fields("Supplier", "s_")))]
    order = tpch._fields("Order", "o_", skip=["lineitems"])
    order.append(("lineitems", "coalesce(items, [])"))
    customer = tpch._fields("Customer", "c_", skip=["orders"])
    columns = ", ".join(f'{expr} AS "{name}"' for name, expr in customer)
    few = 200
    reference = tmp_path / "customer.json"
    source.execute(f"""COPY (
        WITH items_of AS (
            SELECT l_orderkey, list({struct_sql(lineitem)} ORDER BY l_linenumber) AS items
            FROM lineitem JOIN part ON l_partkey = p_partkey
            JOIN supplier ON l_suppkey = s_suppkey GROUP BY l_orderkey),
        orders_of AS (
            SELECT o_custkey, list({struct_sql(order)} ORDER BY o_orderkey) AS orders
            FROM orders LEFT JOIN items_of ON l_orderkey = o_orderkey
            WHERE o_custkey <= {few} GROUP BY o_custkey)
        SELECT {columns}, coalesce(orders, []) AS orders
        FROM customer LEFT JOIN orders_of ON o_custkey = c_custkey
        WHERE c_custkey <= {few} ORDER BY c_custkey) TO '{reference}' (FORMAT JSON)""")
    expected = reference.read_text("utf-8").splitlines()
    assert len(expected) == few
    assert (out / "customer.jsonl.tmp").read_text("utf-8").splitlines()[:few] == expected


def test_json_text_escapes_strings_and_round_trips_decimals():
    """The SQL that writes every object, on hand-made rows: quotes, backslashes, control
    characters and non-ASCII text come back intact, and each DECIMAL(15,2) becomes the double
    nearest to its decimal text."""
    texts = ['plain', 'a "quoted" word', 'back\\slash', 'tab\tnew\nline\x01\x1f\x7f',
             'caf\u00e9 \u20ac \U0001f600', '}{][,:', '']
    prices = [f"{Decimal(c) / 100:.2f}"
              for c in [*range(-100_000_000, 100_000_001, 9973), 0, 1, -1, 90100, 10**15 - 1]]
    con = duckdb.connect()
    con.execute("""CREATE TABLE part AS
        SELECT i AS p_partkey, $texts[i % len($texts) + 1] AS p_name, 'm' AS p_mfgr,
               'b' AS p_brand, 't' AS p_type, 1 AS p_size, 'c' AS p_container,
               price::DECIMAL(15,2) AS p_retailprice, $texts[(i + 3) % len($texts) + 1] AS p_comment
        FROM (SELECT unnest($prices) AS price, unnest(range(len($prices))) AS i)""",
                {"texts": texts, "prices": prices})
    lines = con.execute(f"SELECT {tpch._json_text('Part', 'p_')} FROM part "
                        "ORDER BY p_partkey").fetchall()
    assert len(lines) == len(prices)
    for i, ((line,), price) in enumerate(zip(lines, prices)):
        obj = json.loads(line)
        object_hash("part", obj)
        assert obj["name"] == texts[i % len(texts)]
        assert obj["comment"] == texts[(i + 3) % len(texts)]
        assert obj["retailprice"] == float(Decimal(price))


@pytest.mark.parametrize("sf", [0, -1, float("nan"), float("inf"), "1", None, True])
def test_bad_scale_factors_are_refused_before_anything_runs(tmp_path, sf):
    out = tmp_path / "never"
    with pytest.raises(ValueError, match="scale factor"):
        tpch.generate_tpch(sf, out)
    assert not out.exists()


def test_unknown_models_are_refused(tmp_path):
    with pytest.raises(ValueError, match="not a TPC-H model: tweet"):
        tpch.generate_tpch(0.01, tmp_path / "never", models=["part", "tweet"])
    assert not (tmp_path / "never").exists()


def test_missing_tpchgen_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setattr(tpch.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(tpch.TpchError, match=r"pip install tpchgen-cli"):
        tpch.generate_tpch(0.01, tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_failure_removes_scratch_and_partial_output(tmp_path, monkeypatch):
    def broken(con, path, scratch, say):
        path.write_text("partial")
        raise RuntimeError("boom")

    monkeypatch.setitem(tpch.WRITERS, "lineitem", broken)
    with pytest.raises(RuntimeError, match="boom"):
        tpch.generate_tpch(0.01, tmp_path, models=["part", "lineitem"])
    assert list(tmp_path.iterdir()) == []


def test_running_out_of_the_memory_budget_is_a_clear_error(tmp_path, monkeypatch):
    # the budget that bounds generation's memory at any scale factor, far too small here
    monkeypatch.setattr(tpch, "MEMORY_LIMIT", "2MB")
    with pytest.raises(tpch.TpchError, match=r"DuckDB ran out of its 2MB memory budget"):
        tpch.generate_tpch(0.01, tmp_path, models=["customer"])
    assert list(tmp_path.iterdir()) == []
