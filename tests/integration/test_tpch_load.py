"""Story: a user loads TPC-H with one call; every table has the official cardinality, and every column's
values match what DuckDB reads from the same dbgen-identical .tbl files. The data survives a restart."""

import pathlib
import shutil
import subprocess
import sys
from decimal import Decimal

import psycopg
import pytest

SCALE = 0.1
CARDINALITIES = {"region": 5, "nation": 25, "supplier": 1_000, "customer": 15_000, "part": 20_000,
                 "partsupp": 80_000, "orders": 150_000, "lineitem": 600_572}

# The columns of each table and how DuckDB reads them from .tbl files.
SCHEMA = {
    "region": [("r_regionkey", "INTEGER"), ("r_name", "VARCHAR"), ("r_comment", "VARCHAR")],
    "nation": [("n_nationkey", "INTEGER"), ("n_name", "VARCHAR"), ("n_regionkey", "INTEGER"), ("n_comment", "VARCHAR")],
    "supplier": [("s_suppkey", "INTEGER"), ("s_name", "VARCHAR"), ("s_address", "VARCHAR"), ("s_nationkey", "INTEGER"),
                 ("s_phone", "VARCHAR"), ("s_acctbal", "DECIMAL(15,2)"), ("s_comment", "VARCHAR")],
    "customer": [("c_custkey", "INTEGER"), ("c_name", "VARCHAR"), ("c_address", "VARCHAR"), ("c_nationkey", "INTEGER"),
                 ("c_phone", "VARCHAR"), ("c_acctbal", "DECIMAL(15,2)"), ("c_mktsegment", "VARCHAR"),
                 ("c_comment", "VARCHAR")],
    "part": [("p_partkey", "INTEGER"), ("p_name", "VARCHAR"), ("p_mfgr", "VARCHAR"), ("p_brand", "VARCHAR"),
             ("p_type", "VARCHAR"), ("p_size", "INTEGER"), ("p_container", "VARCHAR"), ("p_retailprice", "DECIMAL(15,2)"),
             ("p_comment", "VARCHAR")],
    "partsupp": [("ps_partkey", "INTEGER"), ("ps_suppkey", "INTEGER"), ("ps_availqty", "INTEGER"),
                 ("ps_supplycost", "DECIMAL(15,2)"), ("ps_comment", "VARCHAR")],
    "orders": [("o_orderkey", "BIGINT"), ("o_custkey", "INTEGER"), ("o_orderstatus", "VARCHAR"),
               ("o_totalprice", "DECIMAL(15,2)"), ("o_orderdate", "DATE"), ("o_orderpriority", "VARCHAR"),
               ("o_clerk", "VARCHAR"), ("o_shippriority", "INTEGER"), ("o_comment", "VARCHAR")],
    "lineitem": [("l_orderkey", "BIGINT"), ("l_partkey", "INTEGER"), ("l_suppkey", "INTEGER"), ("l_linenumber", "INTEGER"),
                 ("l_quantity", "DECIMAL(15,2)"), ("l_extendedprice", "DECIMAL(15,2)"), ("l_discount", "DECIMAL(15,2)"),
                 ("l_tax", "DECIMAL(15,2)"), ("l_returnflag", "VARCHAR"), ("l_linestatus", "VARCHAR"),
                 ("l_shipdate", "DATE"), ("l_commitdate", "DATE"), ("l_receiptdate", "DATE"),
                 ("l_shipinstruct", "VARCHAR"), ("l_shipmode", "VARCHAR"), ("l_comment", "VARCHAR")],
}


def checksum_sql(table):
    """One row of per-column aggregates that pin every column's values: count, min, max, and a sum
    (of the value, or of the string's length, or of the date's distance from a fixed day)."""
    terms = ["count(*)"]
    for column, kind in SCHEMA[table]:
        if kind == "VARCHAR":
            terms += [f"min({column})", f"max({column})", f"sum(length({column}))"]
        elif kind == "DATE":
            terms += [f"min({column})", f"max({column})", f"sum({column} - DATE '1990-01-01')"]
        else:
            terms += [f"min({column})", f"max({column})", f"sum({column})"]
    return f"SELECT {', '.join(terms)} FROM {table}"


def normalize(row):
    """Numbers as Decimals; strings without CHAR(n)'s padding (DuckDB reads those columns as VARCHAR)."""
    def one(value):
        if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
            return Decimal(str(value))
        return value.rstrip(" ") if isinstance(value, str) else value
    return tuple(one(value) for value in row)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """What DuckDB computes over tpchgen-cli's .tbl files at the same scale factor."""
    import duckdb
    directory = tmp_path_factory.mktemp("tpch-tbl")
    generator = shutil.which("tpchgen-cli") or str(pathlib.Path(sys.executable).parent / "tpchgen-cli")
    subprocess.run([generator, "-s", str(SCALE), "-o", str(directory)], check=True, timeout=300)
    connection = duckdb.connect()
    answers = {}
    for table, columns in SCHEMA.items():
        spec = ", ".join(f"'{name}': '{kind}'" for name, kind in columns)
        connection.execute(f"CREATE VIEW {table} AS SELECT * FROM read_csv('{directory / table}.tbl', delim='|', "
                           f"header=false, columns={{{spec}}})")
        answers[table] = normalize(connection.execute(checksum_sql(table)).fetchone())
    return answers


def check_against_reference(cluster, reference):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        for table, expected in reference.items():
            assert connection.execute(f"SELECT count(*) FROM {table}").fetchone() == (CARDINALITIES[table],), table
            got = normalize(connection.execute(checksum_sql(table)).fetchone())
            assert got == expected, f"{table}: shoal {got} != duckdb {expected}"


def check_statistics(cluster):
    """The catalog keeps what the load saw: row counts, NULLs, min/max and HyperLogLog distinct counts."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        tables = dict(connection.execute("SELECT table_name, row_count FROM shoal_tables").fetchall())
        assert tables == CARDINALITIES
        statistics = {(table, column): (rows, nulls, distinct, low, high) for table, column, rows, nulls, distinct, low, high
                      in connection.execute("SELECT table_name, column_name, row_count, null_count, distinct_count, "
                                            "min_value, max_value FROM shoal_column_statistics").fetchall()}
    rows, nulls, distinct, low, high = statistics[("orders", "o_orderkey")]
    assert (rows, nulls, low, high) == (150_000, 0, "1", "600000")
    assert abs(distinct - 150_000) <= 150_000 * 0.03, distinct
    assert statistics[("orders", "o_orderstatus")][2] == 3
    assert statistics[("orders", "o_orderdate")][3:] == ("1992-01-01", "1998-08-02")
    # A replicated table is described once, not once per worker.
    assert statistics[("nation", "n_nationkey")][:3] == (25, 0, 25)


# With 3 workers on this one host, one would generate by default; asking for 3 generators runs tpchgen-cli's
# --part/--parts path, as on three hosts.
@pytest.mark.parametrize("workers, generators", [(1, None), (3, 3)])
def test_tpch_load_matches_duckdb_and_survives_restart(own_cluster, reference, workers, generators, tmp_path):
    data_dir = tmp_path / f"tpch-{workers}"
    cluster = own_cluster(workers=workers, data_dir=data_dir)
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        notices = []
        connection.add_notice_handler(lambda notice: notices.append(notice.message_primary))
        connection.execute(f"CALL tpch_load({SCALE}, {generators})" if generators else f"CALL tpch_load({SCALE})")
        assert notices and "loaded TPC-H scale factor 0.1" in notices[-1]
    check_against_reference(cluster, reference)
    check_statistics(cluster)

    assert cluster.stop() == 0
    restarted = own_cluster(workers=workers, data_dir=data_dir)
    check_against_reference(restarted, reference)


def test_corrupted_segment_file_is_reported_by_name(own_cluster, tmp_path):
    data_dir = tmp_path / "corrupt"
    cluster = own_cluster(workers=1, data_dir=data_dir)
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        connection.execute("CREATE TABLE numbers (n INTEGER, s TEXT)")
        connection.execute("INSERT INTO numbers VALUES " + ", ".join(f"({i}, 'number {i}')" for i in range(5000)))
    assert cluster.stop() == 0
    segments = sorted(data_dir.glob("worker-1/storage/*/segment-*.seg"))
    assert segments, "the insert should have written a segment file"
    damaged = bytearray(segments[0].read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    segments[0].write_bytes(bytes(damaged))

    restarted = own_cluster(workers=1, data_dir=data_dir)
    with psycopg.connect(restarted.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.Error) as error:
            connection.execute("SELECT count(*) FROM numbers")
        assert error.value.sqlstate == "XX001"
        assert str(segments[0]) in str(error.value) and "checksum" in str(error.value)
        # The rest of the cluster keeps working.
        assert connection.execute("SELECT 1 + 1").fetchone() == (2,)


def test_make_run_cluster_loads_tpch_once(own_cluster, tmp_path):
    """`make run` starts `shoal local --tpch SF`: the data is there when it says ready, and a restart over the
    same data directory keeps it instead of loading again."""
    data_dir = tmp_path / "run"
    cluster = own_cluster(workers=2, data_dir=data_dir, extra_args=["--tpch", "0.01"])
    assert any("loaded TPC-H scale factor 0.01" in text for text in cluster.output)
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT count(*) FROM orders").fetchone() == (15_000,)
    assert cluster.stop() == 0
    restarted = own_cluster(workers=2, data_dir=data_dir, extra_args=["--tpch", "0.01"])
    assert any("TPC-H is already loaded" in text for text in restarted.output)
    with psycopg.connect(restarted.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT count(*) FROM orders").fetchone() == (15_000,)


def test_a_generator_that_dies_partway_fails_the_load_clearly(own_cluster, tmp_path):
    """The generator's output reaches the workers through pipes; one that breaks off mid-line and exits with an
    error must fail the load with that exit status, not with a parse error over its half line, and the cluster
    must go on working, without the tables the load made."""
    dying = tmp_path / "dying-tpchgen"
    dying.write_text("""#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in --output-dir) dir=$2; shift ;; --part) part=$2; shift ;; esac
  shift
done
printf '1|155190|7706|1|17.00|2111' > "$dir/lineitem/lineitem.$part.tbl.inprogress"
exit 3
""")
    dying.chmod(0o755)
    cluster = own_cluster(workers=2, extra_args=["--tpchgen", str(dying)])
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.Error) as error:
            connection.execute("CALL tpch_load(0.01)")
        assert error.value.sqlstate == "58030", error.value
        assert "generator failed" in str(error.value) and "exit status 3" in str(error.value), error.value
        # The tables the call made are gone again, rather than left behind empty.
        with pytest.raises(psycopg.errors.UndefinedTable):
            connection.execute("SELECT count(*) FROM lineitem")
        assert connection.execute("SELECT 1 + 1").fetchone() == (2,)
