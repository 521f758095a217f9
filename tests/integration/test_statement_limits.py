"""One statement never takes the coordinator down. Each of these once crashed it (a 20,000-value IN list,
a 25,000-term expression, a self-referencing view); now each answers, or fails with PostgreSQL's SQLSTATE
for it, and the next query is served. The SQLSTATEs are what a scratch PostgreSQL 15 answered to the same
text: 54001 for the 25,000-term sum (it allows about 4,100 terms with its default 2 MB max_stack_depth),
42601 "memory exhausted" for 10,000 nested parentheses, and the count for the IN list."""

import psycopg
import pytest

from cluster import start_with_tpch


def sqlstate_of(cluster, sql):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        try:
            connection.execute(sql)
        except psycopg.Error as error:
            return error.sqlstate
    return None


def still_serving(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        return connection.execute("SELECT 40 + 2").fetchone()[0] == 42


@pytest.fixture(scope="module")
def tpch_cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("limits-cluster"), workers=2)
    yield local
    local.kill()


def test_a_20000_value_in_list_answers_and_the_server_stays_up(tpch_cluster):
    keys = ",".join(str(key) for key in range(1, 20001))
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        expected = connection.execute("SELECT count(*) FROM lineitem WHERE l_orderkey <= 20000").fetchone()[0]
        assert expected > 0
        assert connection.execute(f"SELECT count(*) FROM lineitem WHERE l_orderkey IN ({keys})").fetchone()[0] == \
            expected
        total = connection.execute("SELECT count(*) FROM lineitem").fetchone()[0]
        assert connection.execute(
            f"SELECT count(*) FROM lineitem WHERE l_orderkey NOT IN ({keys})").fetchone()[0] == total - expected
        ors = " OR ".join(f"l_orderkey = {key}" for key in range(1, 20001))
        assert connection.execute(f"SELECT count(*) FROM lineitem WHERE {ors}").fetchone()[0] == expected
    assert still_serving(tpch_cluster)


def test_a_25000_term_expression_is_refused_with_54001(cluster):
    assert sqlstate_of(cluster, "SELECT " + "1+" * 25000 + "1") == "54001"
    assert still_serving(cluster)


def test_a_4000_term_expression_answers_as_in_postgresql(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT " + "1+" * 4000 + "1").fetchone()[0] == 4001


def test_10000_nested_parentheses_are_a_syntax_error(cluster):
    assert sqlstate_of(cluster, "SELECT " + "(" * 10000 + "1" + ")" * 10000) == "42601"
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT " + "(" * 5000 + "7" + ")" * 5000).fetchone()[0] == 7
    assert still_serving(cluster)


def test_a_deep_chain_in_a_long_text_is_measured_against_the_real_stack(cluster):
    """Texts too long for the parser's fast path: 100,000 flat list items answer, 60,000 nested levels do not."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        values = ",".join(str(value) for value in range(100000))
        assert connection.execute(f"SELECT 5 IN ({values}), -5 IN ({values})").fetchone() == (True, False)
    assert sqlstate_of(cluster, "SELECT " + "1*" * 60000 + "1") == "54001"
    assert still_serving(cluster)


def test_a_view_that_refers_to_itself_is_refused_at_creation(cluster):
    """Views are kept as text and bound at each use, so a self-reference, direct or through another view,
    would expand forever: refused with 42P17 and never saved."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        connection.execute("CREATE OR REPLACE VIEW loop_a AS SELECT 1 AS x")
        connection.execute("CREATE OR REPLACE VIEW loop_b AS SELECT x FROM loop_a")
    assert sqlstate_of(cluster, "CREATE OR REPLACE VIEW loop_a AS SELECT x FROM loop_a") == "42P17"
    assert sqlstate_of(cluster, "CREATE OR REPLACE VIEW loop_a AS SELECT x FROM loop_b") == "42P17"
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT x FROM loop_b").fetchone()[0] == 1
        connection.execute("DROP VIEW loop_b")
        connection.execute("DROP VIEW loop_a")
    assert still_serving(cluster)
