"""Story: a BI tool pastes 20,000 selected customer ids into `WHERE id IN (...)`, and a script filters by a few
thousand names and dates. Each list is probed as a hash set on the workers (one lookup per row, not one
comparison per constant), answers as PostgreSQL 15 does (NULL in the list, NOT IN, NaN, mixed types), and the
server stays up."""

import psycopg
import pytest

from postgres_oracle import both_servers_fixture, session_answers

ROWS = 3000
SCHEMA = [
    "CREATE TABLE picks (id integer, big bigint, name text, code char(4), day date, price numeric(10,2), "
    "ratio double precision)",
    "INSERT INTO picks VALUES " + ", ".join(
        f"({i}, {i * 1000003}, 'name{i}', 'c{i % 100}', date '2020-01-01' + {i % 1000}, {i}.{i % 100:02d}, "
        f"{'NULL' if i % 97 == 0 else repr(i / 8)})" for i in range(ROWS)) + ", (NULL, NULL, NULL, NULL, NULL, NULL, 'NaN')",
]
DROP = ["DROP TABLE IF EXISTS picks"]


def listed(values):
    return ", ".join(values)


EVEN_IDS = listed(str(i) for i in range(0, 40000, 2))  # 20,000 integers
QUERIES = [
    f"SELECT count(*), sum(id) FROM picks WHERE id IN ({EVEN_IDS})",
    f"SELECT count(*) FROM picks WHERE id NOT IN ({EVEN_IDS})",
    f"SELECT count(*) FROM picks WHERE id NOT IN ({EVEN_IDS}, NULL)",
    f"SELECT id IN ({EVEN_IDS}, NULL) AS hit, count(*) FROM picks GROUP BY 1 ORDER BY 1",
    "SELECT count(*) FROM picks WHERE big IN (" + listed(str(i * 1000003) for i in range(0, 9000, 3)) + ")",
    "SELECT count(*), min(name) FROM picks WHERE name IN (" + listed(f"'name{i}'" for i in range(0, 5000, 7)) + ")",
    "SELECT count(*) FROM picks WHERE code IN (" + listed(f"'c{i}'" for i in range(0, 60)) + ")",
    "SELECT count(*) FROM picks WHERE day IN (" + listed(f"'2020-01-{d:02d}'" for d in range(1, 32)) + ")",
    "SELECT count(*) FROM picks WHERE price IN (" + listed(f"{i}.{i % 100:02d}" for i in range(0, 3000, 5)) + ")",
    "SELECT count(*) FROM picks WHERE ratio IN ('NaN', -0.0, " + listed(repr(i / 8) for i in range(0, 3000, 4)) + ")",
    # A list of several types compares in numeric, as PostgreSQL's does.
    "SELECT count(*) FROM picks WHERE id IN (" + listed(f"{i}.5" if i % 2 else str(i) for i in range(0, 3000, 3)) + ")",
    # Expressions in the list and on the left.
    "SELECT count(*) FROM picks WHERE id + 1 IN (" + listed(str(i) for i in range(0, 3000, 3)) + ", 1 + 1)",
    "SELECT count(*) FROM picks WHERE id IN (" + listed(str(i) for i in range(0, 100)) + ", 'x')",
    # The array spellings psycopg and ORMs send.
    f"SELECT count(*) FROM picks WHERE id = ANY (ARRAY[{EVEN_IDS}])",
    f"SELECT count(*) FROM picks WHERE big <> ALL (ARRAY[{EVEN_IDS}])",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES, ids=[f"q{i}" for i in range(len(QUERIES))])
def test_long_in_lists_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])


def test_a_20000_value_in_list_is_one_hash_set_probe_in_the_plan(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        plan = "\n".join(row[0] for row in connection.execute(f"EXPLAIN SELECT count(*) FROM picks WHERE id IN ({EVEN_IDS})"))
        assert "in_set(id, " in plan and " OR " not in plan
        # Integer literals beside a bigint column are folded into the bigint set.
        plan = "\n".join(row[0] for row in connection.execute(
            "EXPLAIN SELECT count(*) FROM picks WHERE big IN (" + listed(str(i) for i in range(40)) + ")"))
        assert "in_set(big, " in plan and " OR " not in plan
        assert connection.execute("SELECT 1").fetchone() == (1,)
