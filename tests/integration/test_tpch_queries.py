"""Story: a user loads TPC-H SF 0.01 into a cluster and runs the 22 official queries through psycopg; each returns
the answer DuckDB gives over the same dbgen-identical data (tests/tpch/answers/sf0.01): decimals exact, doubles within
1e-9 relative. On one worker the plans are shipped whole to it and run next to the data (ExecutePlan); on 2 and 4
workers they are cut into fragments that exchange rows between the workers (ExecuteFragments), over the standard
partitioned layout, and on 3 workers over the chunked layout (every table but nation and region DISTRIBUTED
RANDOMLY), where nearly every join and aggregation has to move rows."""

import psycopg
import pytest

from tpch_answers import assert_official_answer, run_query


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
    assert_official_answer(run_query(tpch_cluster.conninfo(), query), query, "0.01")
