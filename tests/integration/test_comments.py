"""Story: a data team documents its tables with COMMENT ON TABLE, VIEW and COLUMN, and the BI tool shows
the comments where it reads them from (pg_description, obj_description, col_description), as PostgreSQL 15
shows them; the comments outlive a restart of the cluster and go with a dropped table."""

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import session_answers, set_up_both

SETUP = ["DROP VIEW IF EXISTS note_view", "DROP TABLE IF EXISTS note_orders",
         "CREATE TABLE note_orders (id integer PRIMARY KEY, total numeric(12,2), placed date)",
         "CREATE VIEW note_view AS SELECT id, total AS amount FROM note_orders"]

# Comments are compared by name: OIDs of user relations differ between the servers by design.
DESCRIPTIONS = (
    "SELECT c.relname, d.objsubid, d.description, d.classoid = 'pg_class'::regclass "
    "FROM pg_description d JOIN pg_class c ON c.oid = d.objoid "
    "WHERE c.relname LIKE 'note\\_%' ORDER BY 1, 2")
LOOKUPS = (
    "SELECT c.relname, obj_description(c.oid, 'pg_class'), obj_description(c.oid), col_description(c.oid, 1), "
    "col_description(c.oid, 2), col_description(c.oid, 3), col_description(c.oid, 0) FROM pg_class c "
    "WHERE c.relname LIKE 'note\\_%' AND c.relkind IN ('r', 'v') ORDER BY 1")

SESSIONS = {
    "comments on a table, a view and their columns": [
        "COMMENT ON TABLE note_orders IS 'Orders placed on the web shop'",
        "COMMENT ON COLUMN note_orders.total IS 'Gross, in euros'",
        "COMMENT ON COLUMN public.note_orders.placed IS 'Day the order was placed'",
        "COMMENT ON VIEW note_view IS 'Orders and their amounts'",
        "COMMENT ON COLUMN note_view.amount IS 'The order''s total'",
        DESCRIPTIONS,
        LOOKUPS,
    ],
    "a comment is replaced, and removed by NULL or ''": [
        "COMMENT ON TABLE note_orders IS 'first'",
        "COMMENT ON TABLE note_orders IS 'second'",
        "COMMENT ON COLUMN note_orders.id IS 'key'",
        DESCRIPTIONS,
        "COMMENT ON TABLE note_orders IS NULL",
        "COMMENT ON COLUMN note_orders.id IS ''",
        DESCRIPTIONS,
        LOOKUPS,
    ],
    "what PostgreSQL refuses": [
        "COMMENT ON TABLE nosuch IS 'x'",
        "COMMENT ON TABLE note_view IS 'x'",
        "COMMENT ON VIEW note_orders IS 'x'",
        "COMMENT ON COLUMN note_orders.nosuch IS 'x'",
        "COMMENT ON COLUMN note_view.total IS 'x'",
        "COMMENT ON COLUMN nosuch.a IS 'x'",
        "COMMENT ON TABLE nosuch_schema.note_orders IS 'x'",
        "SELECT obj_description(1, 'pg_class'), col_description(1, 1), obj_description(NULL), "
        "shobj_description(99999, 'pg_database')",
        "SELECT col_description('note_orders'::regclass, 'x')",
        "SELECT obj_description()",
    ],
    "the schemas' comments": [
        "SELECT n.nspname, obj_description(n.oid, 'pg_namespace') FROM pg_namespace n "
        "WHERE n.nspname IN ('public', 'pg_catalog', 'information_schema') ORDER BY 1",
        "SELECT n.nspname, d.description FROM pg_description d JOIN pg_namespace n ON n.oid = d.objoid "
        "WHERE d.classoid = 'pg_namespace'::regclass AND n.nspname IN ('public', 'pg_catalog') ORDER BY 1",
    ],
}


@pytest.fixture
def both(cluster, postgres):
    shoal, oracle = set_up_both(cluster, postgres, SETUP)
    yield shoal, oracle
    session_answers(shoal, SETUP[:2])


@pytest.mark.parametrize("name", SESSIONS)
def test_comments_answer_as_on_postgresql(both, name):
    shoal, postgres = both
    assert session_answers(shoal, SESSIONS[name]) == session_answers(postgres, SESSIONS[name])


def test_comments_outlive_a_restart_and_go_with_their_table(tmp_path):
    local = LocalCluster(tmp_path, workers=1).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute("CREATE TABLE kept (a integer, b text)")
            connection.execute("COMMENT ON TABLE kept IS 'kept across restarts'")
            connection.execute("COMMENT ON COLUMN kept.b IS 'a label'")
        assert local.stop() == 0
        local = LocalCluster(tmp_path, workers=1).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute(
                "SELECT obj_description('kept'::regclass, 'pg_class'), col_description('kept'::regclass, 2)"
            ).fetchone() == ("kept across restarts", "a label")
            connection.execute("DROP TABLE kept")
            connection.execute("CREATE TABLE kept (a integer, b text)")
            assert connection.execute(
                "SELECT obj_description('kept'::regclass, 'pg_class'), "
                "(SELECT count(*) FROM pg_description WHERE classoid = 'pg_class'::regclass)").fetchone() == (None, 0)
    finally:
        local.kill()
