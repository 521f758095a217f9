"""Story: DDL in a transaction block is transactional, as PostgreSQL's is: Alembic and SQLAlchemy's create_all run
CREATE TABLE inside the transaction psycopg opens, and a migration that fails halfway must leave nothing behind.
ROLLBACK undoes CREATE, DROP and ALTER TABLE, views, schemas, comments, roles and grants, with the rows written
to the tables it made; ROLLBACK TO SAVEPOINT undoes what came after the savepoint; COMMIT keeps it all, and a
dropped table's storage goes only then. A coordinator killed inside a block undoes the block's DDL when it
restarts. Single-session stories are compared with PostgreSQL 15's answers."""

import psycopg
import pytest

from postgres_oracle import both_servers_fixture, session_answers

SETUP = ["DROP TABLE IF EXISTS ddl_kept", "DROP TABLE IF EXISTS ddl_new", "DROP TABLE IF EXISTS ddl_other",
         "DROP VIEW IF EXISTS ddl_view", "DROP SCHEMA IF EXISTS ddl_schema CASCADE",
         "CREATE TABLE ddl_kept (id integer, label text)",
         "INSERT INTO ddl_kept SELECT g, 'row ' || g FROM generate_series(1, 20) g"]

COLUMNS = ("SELECT table_name, column_name, data_type FROM information_schema.columns "
           "WHERE table_name LIKE 'ddl%' ORDER BY table_name, ordinal_position")
RELATIONS = "SELECT relname, relkind FROM pg_class WHERE relname LIKE 'ddl%' ORDER BY relname"

SESSIONS = {
    "ROLLBACK undoes CREATE TABLE and the rows written to it": [
        "BEGIN", "CREATE TABLE ddl_new (a integer, b text)", "INSERT INTO ddl_new VALUES (1, 'x'), (2, 'y')",
        "SELECT count(*) FROM ddl_new", "ROLLBACK", "SELECT count(*) FROM ddl_new", RELATIONS,
    ],
    "ROLLBACK brings a dropped table back with its rows": [
        "BEGIN", "DROP TABLE ddl_kept", "SELECT count(*) FROM ddl_kept", "ROLLBACK",
        "SELECT count(*), sum(id) FROM ddl_kept",
    ],
    "ROLLBACK undoes ALTER TABLE, RENAME, views, schemas and comments": [
        "BEGIN", "ALTER TABLE ddl_kept ADD COLUMN extra integer", "UPDATE ddl_kept SET extra = id * 2",
        "ALTER TABLE ddl_kept DROP COLUMN label", "ALTER TABLE ddl_kept RENAME TO ddl_other",
        "CREATE VIEW ddl_view AS SELECT id FROM ddl_other", "CREATE SCHEMA ddl_schema",
        "CREATE TABLE ddl_schema.t (x integer)", "COMMENT ON TABLE ddl_other IS 'renamed'", COLUMNS,
        "ROLLBACK", COLUMNS, RELATIONS, "SELECT nspname FROM pg_namespace WHERE nspname = 'ddl_schema'",
        "SELECT obj_description('ddl_kept'::regclass)", "SELECT id, label FROM ddl_kept WHERE id <= 3 ORDER BY id",
    ],
    "ROLLBACK TO SAVEPOINT undoes the DDL after it, and keeps what came before": [
        "BEGIN", "CREATE TABLE ddl_new (a integer)", "INSERT INTO ddl_new VALUES (1)", "SAVEPOINT s",
        "DROP TABLE ddl_new", "CREATE TABLE ddl_other (z text)", "ROLLBACK TO SAVEPOINT s",
        "SELECT count(*) FROM ddl_new", RELATIONS, "COMMIT", "SELECT a FROM ddl_new", RELATIONS,
        "DROP TABLE ddl_new",
    ],
    "COMMIT keeps DDL, and a failed DDL statement aborts the block": [
        "BEGIN", "CREATE TABLE ddl_new (a integer)", "INSERT INTO ddl_new VALUES (7)", "COMMIT",
        "SELECT a FROM ddl_new", "BEGIN", "DROP TABLE ddl_new", "COMMIT", RELATIONS,
        "BEGIN", "CREATE TABLE ddl_new (a integer)", "CREATE TABLE ddl_new (a integer)", "SELECT 1", "ROLLBACK",
        RELATIONS,
    ],
}


both = both_servers_fixture(SETUP, SETUP[:5])


@pytest.mark.parametrize("name", SESSIONS)
def test_ddl_in_a_block_answers_as_postgresql(both, name):
    shoal, postgres = both
    assert session_answers(shoal, SESSIONS[name]) == session_answers(postgres, SESSIONS[name])


def test_roles_and_grants_roll_back(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        rights = "SELECT relacl::text FROM pg_class WHERE relname = 'ddl_kept'"
        before = connection.execute(rights).fetchone()
        connection.execute("BEGIN")
        connection.execute("CREATE ROLE ddl_role LOGIN")
        connection.execute("GRANT SELECT ON ddl_kept TO ddl_role")
        assert connection.execute("SELECT count(*) FROM pg_roles WHERE rolname = 'ddl_role'").fetchone() == (1,)
        connection.execute("ROLLBACK")
        assert connection.execute("SELECT count(*) FROM pg_roles WHERE rolname = 'ddl_role'").fetchone() == (0,)
        assert connection.execute(rights).fetchone() == before


def test_sqlalchemy_create_all_in_a_failed_transaction_leaves_nothing(both):
    sqlalchemy = pytest.importorskip("sqlalchemy")
    shoal, _ = both
    parts = dict(item.split("=", 1) for item in shoal.split())
    engine = sqlalchemy.create_engine(
        f"postgresql+psycopg://{parts['user']}@{parts['host']}:{parts['port']}/{parts['dbname']}")
    metadata = sqlalchemy.MetaData()
    sqlalchemy.Table("ddl_alembic", metadata, sqlalchemy.Column("id", sqlalchemy.Integer, primary_key=True,
                                                                     autoincrement=False))
    try:
        with pytest.raises(RuntimeError):
            with engine.begin() as connection:
                metadata.create_all(connection)
                connection.execute(sqlalchemy.text("INSERT INTO ddl_alembic VALUES (1)"))
                raise RuntimeError("the migration's next step fails")
        assert not sqlalchemy.inspect(engine).has_table("ddl_alembic")
        with engine.begin() as connection:
            metadata.create_all(connection)
        assert sqlalchemy.inspect(engine).has_table("ddl_alembic")
    finally:
        metadata.drop_all(engine)
        engine.dispose()


def test_a_coordinator_killed_in_a_block_undoes_its_ddl_at_restart(tmp_path):
    from cluster import LocalCluster

    local = LocalCluster(tmp_path / "cluster", workers=2).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute("CREATE TABLE kept (id integer)")
            connection.execute("INSERT INTO kept VALUES (1), (2)")
        session = psycopg.connect(local.conninfo())
        session.execute("DROP TABLE kept")
        session.execute("CREATE TABLE made (id integer)")
        local.kill()  # the whole tree, the block still open
        local = LocalCluster(tmp_path / "cluster", workers=2).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute("SELECT count(*), sum(id) FROM kept").fetchone() == (2, 3)
            assert connection.execute("SELECT count(*) FROM pg_class WHERE relname = 'made'").fetchone() == (0,)
    finally:
        local.kill()
