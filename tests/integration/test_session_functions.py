"""What a client asks on connect (SQLAlchemy: version() and current_schema(); BI tools: "public"."t"),
answered as a scratch PostgreSQL 15 answers the same text. Both are asked as user postgres on database
postgres, so that current_user and current_database() can match."""

import pytest

from postgres_oracle import answer

# Each statement's answer (column names and rows, or the SQLSTATE) must be PostgreSQL's.
STATEMENTS = [
    "SELECT version() LIKE 'PostgreSQL 15.%' AS looks_like_postgres",
    "SELECT current_database(), current_schema(), current_schema",
    "SELECT current_user, session_user, user, current_role, current_catalog",
    "SELECT pg_catalog.version() LIKE 'PostgreSQL 15.%'",
    "SELECT pg_backend_pid() > 0",
    "SELECT count(*) FROM \"public\".\"oracle_t\"",
    "SELECT a FROM public.oracle_t ORDER BY a",
    "SELECT t.a FROM public.oracle_t AS t WHERE t.a > 1",
    "SELECT * FROM nosuch.oracle_t",
    "CREATE TABLE nosuch.other (a integer)",
    "CREATE VIEW nosuch.v AS SELECT 1",
]


@pytest.fixture(scope="module")
def both(cluster, postgres):
    """The shared Shoal cluster and the scratch PostgreSQL, each with oracle_t(a) = 1, 2, 3."""
    shoal = f"host=127.0.0.1 port={cluster.port} user=postgres dbname=postgres connect_timeout=10"
    for conninfo in (shoal, postgres.conninfo()):
        answer(conninfo, "DROP TABLE IF EXISTS oracle_t")
        assert answer(conninfo, "CREATE TABLE public.oracle_t (a integer)")[0] == "rows"
        assert answer(conninfo, "INSERT INTO oracle_t VALUES (1), (2), (3)")[0] == "rows"
    yield shoal, postgres.conninfo()
    answer(shoal, "DROP TABLE oracle_t")


@pytest.mark.parametrize("sql", STATEMENTS)
def test_shoal_answers_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)
