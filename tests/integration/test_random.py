"""Story: an analyst samples about a tenth of lineitem with WHERE random() < 0.1, picks a few rows at random
with ORDER BY random() LIMIT 5, and replays a script that starts with setseed(0.5) to get the same numbers
again. random() is drawn per row on the workers (never folded into one constant), every value lies in
[0, 1), two workers never draw the same sequence, and setseed() refuses what PostgreSQL 15 refuses. Tickets
get their ids from gen_random_uuid(), one fresh version 4 uuid per row."""

import psycopg
import pytest

from cluster import start_with_tpch
from postgres_oracle import session_answers

LINEITEM_ROWS = 60175  # SF 0.01


@pytest.fixture(scope="module")
def tpch_cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("random"), workers=2)
    yield local
    local.kill()


def test_each_row_draws_its_own_value_in_the_unit_interval(tpch_cluster):
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        distinct, low, high, total = connection.execute(
            "SELECT count(DISTINCT r), min(r) >= 0, max(r) < 1, count(*) FROM (SELECT random() AS r FROM lineitem) s"
        ).fetchone()
        # 60175 draws of 53 bits: a repeat would mean two threads or workers share a sequence.
        assert (distinct, low, high, total) == (LINEITEM_ROWS, True, True, LINEITEM_ROWS)
        first, second = connection.execute("SELECT random(), random()").fetchone()
        assert first != second
        # x IN (...) evaluates x once, as PostgreSQL does: a rounded draw in 0..4 is always in the list.
        assert connection.execute("SELECT count(*) FROM lineitem WHERE round(random() * 4) IN (0, 1, 2, 3, 4)"
                                  ).fetchone() == (LINEITEM_ROWS,)


def test_a_drawn_column_read_twice_reads_one_value(tpch_cluster):
    """A subquery's random() column is drawn once per row: its readers above all see that value (PostgreSQL
    does not flatten a subquery whose select list is volatile, and neither does Shoal's optimizer)."""
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT r = r, r - r FROM (SELECT random() AS r) s").fetchone() == (True, 0)
        assert connection.execute(
            "SELECT count(*) FROM (SELECT r, r * 2 AS twice FROM (SELECT random() AS r FROM lineitem) s) t "
            "WHERE twice <> r * 2").fetchone() == (0,)


def test_a_ten_percent_sample_keeps_about_a_tenth(tpch_cluster):
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        kept = [connection.execute("SELECT count(*) FROM lineitem WHERE random() < 0.1").fetchone()[0]
                for _ in range(3)]
    # Binomial(60175, 0.1): a standard deviation of 74 rows; 0.08..0.12 is more than 25 of them either way.
    assert all(0.08 * LINEITEM_ROWS < count < 0.12 * LINEITEM_ROWS for count in kept), kept
    assert len(set(kept)) > 1, f"three samples kept exactly {kept[0]} rows: the draws repeat"


def test_order_by_random_shuffles(tpch_cluster):
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        picks = [connection.execute("SELECT l_orderkey, l_linenumber FROM lineitem ORDER BY random() LIMIT 5")
                 .fetchall() for _ in range(2)]
    assert len(picks[0]) == 5 and picks[0] != picks[1]


def test_setseed_replays_the_same_values(tpch_cluster):
    script = ["SELECT random()", "SELECT random(), random()", "SELECT random()"]
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        def replay(seed):
            assert connection.execute("SELECT setseed(%s)" % seed).fetchone() == ("",)
            return [connection.execute(sql).fetchone() for sql in script]

        first = replay(0.5)
        assert replay(0.5) == first
        assert replay(-0.5) != first
        values = [value for row in first for value in row]
        assert len(set(values)) == len(values), f"the seeded statements repeat each other: {values}"
        # A seeded draw over a table spread on two workers still gives every row its own value.
        connection.execute("SELECT setseed(0.25)")
        assert connection.execute(
            "SELECT count(DISTINCT r) FROM (SELECT random() AS r FROM lineitem) s").fetchone() == (LINEITEM_ROWS,)


def test_a_prepared_statement_draws_again_at_each_execution(tpch_cluster):
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        draws = [connection.execute("SELECT random() + %s", (0,), prepare=True).fetchone()[0] for _ in range(4)]
    assert len(set(draws)) == 4, draws


@pytest.mark.parametrize("sql", ["SELECT setseed(2)", "SELECT setseed(-1.5)", "SELECT setseed(1)",
                                 "SELECT setseed(NULL)", "SELECT random(1)", "SELECT setseed('x')",
                                 "SELECT setseed(0.1, 0.2)"])
def test_setseed_and_random_refuse_as_postgresql_does(tpch_cluster, postgres, sql):
    shoal = tpch_cluster.conninfo()
    assert session_answers(shoal, [sql]) == session_answers(postgres.conninfo(), [sql])


def test_gen_random_uuid_gives_every_row_its_own_version_4_uuid(tpch_cluster):
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        distinct, versions, variants = connection.execute(
            "SELECT count(DISTINCT u), count(*) FILTER (WHERE substr(u::text, 15, 1) = '4'), "
            "count(*) FILTER (WHERE substr(u::text, 20, 1) IN ('8', '9', 'a', 'b')) "
            "FROM (SELECT gen_random_uuid() AS u FROM lineitem) s").fetchone()
        assert (distinct, versions, variants) == (LINEITEM_ROWS, LINEITEM_ROWS, LINEITEM_ROWS)
        # setseed() fixes random(), not the uuids, which come from the kernel's random source.
        connection.execute("SELECT setseed(0.5)")
        first = connection.execute("SELECT gen_random_uuid()").fetchone()
        connection.execute("SELECT setseed(0.5)")
        assert connection.execute("SELECT gen_random_uuid()").fetchone() != first
        connection.execute("DROP TABLE IF EXISTS tickets")
        connection.execute("CREATE TABLE tickets (id uuid, note text)")
        values = ", ".join(f"(gen_random_uuid(), 'ticket {n}')" for n in range(1000))
        connection.execute(f"INSERT INTO tickets VALUES {values}")
        assert connection.execute("SELECT count(DISTINCT id), count(*) FROM tickets").fetchone() == (1000, 1000)
        connection.execute("DROP TABLE tickets")
