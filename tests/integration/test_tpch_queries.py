"""Story: a user loads TPC-H SF 0.01 into a cluster and runs the 22 official queries through psycopg; each returns
the answer DuckDB gives over the same dbgen-identical data (tests/tpch/answers/sf0.01): decimals exact, doubles within
1e-9 relative. On one worker the plans are shipped whole to it and run next to the data (ExecutePlan); on 2 and 4
workers they are cut into fragments that exchange rows between the workers (ExecuteFragments), over the standard
partitioned layout, and on 3 workers over the chunked layout (every table but nation and region DISTRIBUTED
RANDOMLY), where nearly every join and aggregation has to move rows."""

import math
import pathlib

import psycopg
import pytest

TPCH = pathlib.Path(__file__).resolve().parents[1] / "tpch"


def statements(text):
    """The statements of a query file, without comments."""
    lines = [line for line in text.splitlines() if not line.strip().startswith("--")]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]


def cell(value):
    if value is None:
        return "NULL"
    return str(value).rstrip()


def same(got, expected):
    got, expected = got.rstrip(), expected.rstrip()
    if got == expected:
        return True
    try:
        a, b = float(got), float(expected)
    except ValueError:
        return False
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture(scope="module", params=[(1, "partitioned"), (2, "partitioned"), (4, "partitioned"), (3, "chunked")],
                ids=["1-worker", "2-workers", "4-workers", "3-workers-chunked"])
def tpch_cluster(request, tmp_path_factory):
    from cluster import LocalCluster

    workers, layout = request.param
    local = LocalCluster(tmp_path_factory.mktemp("tpch-queries"), workers=workers).start()
    with psycopg.connect(local.conninfo(), autocommit=True) as connection:
        connection.execute(f"CALL tpch_load(0.01, 0, '{layout}')")
    yield local
    local.kill()


@pytest.mark.parametrize("query", range(1, 23), ids=[f"Q{n:02d}" for n in range(1, 23)])
def test_tpch_query_returns_duckdbs_answer(tpch_cluster, query):
    name = f"q{query:02d}"
    rows = None
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        for statement in statements((TPCH / "queries" / f"{name}.sql").read_text()):
            cursor = connection.execute(statement)
            if cursor.description:
                rows = [[cell(value) for value in row] for row in cursor.fetchall()]
    expected = [line.split("|") for line in (TPCH / "answers" / "sf0.01" / f"{name}.out").read_text().splitlines()[1:]
                if line]
    assert rows is not None
    assert len(rows) == len(expected), f"{name}: {len(rows)} rows, expected {len(expected)}"
    for index, (got_row, expected_row) in enumerate(zip(rows, expected)):
        assert len(got_row) == len(expected_row), f"{name} row {index}"
        for column, (got, want) in enumerate(zip(got_row, expected_row)):
            assert same(got, want), f"{name} row {index} column {column}: got {got!r}, expected {want!r}"
