"""Story: a superuser hands out privileges, and an ordinary role can do exactly what it was granted. A role
without SELECT gets 42501 and reads after GRANT; a view is read with its owner's privileges; WITH GRANT OPTION
lets a role pass a privilege on, and REVOKE ... CASCADE takes it back from everyone it reached; schemas need
USAGE to be read in and CREATE to be written in; only an owner drops or comments; a role that holds
privileges cannot be dropped; pg_read_all_data and pg_read_server_files work as PostgreSQL's predefined
roles; psql's \\dp and \\du show it all. Every step runs on Shoal and on PostgreSQL 15 as the same role, and
the answers (rows, tags, SQLSTATEs, messages, details and warnings) must be the same. (issue 27, privileges)"""

import os
import subprocess
import tempfile

import psycopg

from postgres_oracle import shoal_conninfo

ROLES = ["pv_alice", "pv_bob", "pv_carol"]

SCENARIO = [
    ("postgres", "CREATE ROLE pv_alice LOGIN"),
    ("postgres", "CREATE ROLE pv_bob LOGIN"),
    ("postgres", "CREATE ROLE pv_carol LOGIN"),
    ("postgres", "CREATE TABLE pv_t (a integer)"),
    ("postgres", "INSERT INTO pv_t VALUES (1), (2)"),
    ("postgres", "CREATE TABLE pv_u (a integer)"),
    ("postgres", "CREATE VIEW pv_v AS SELECT a FROM pv_t"),
    ("postgres", "CREATE SCHEMA pv_s"),
    ("postgres", "CREATE TABLE pv_s.x (a integer)"),
    # Nothing granted: nothing allowed.
    ("pv_alice", "SELECT a FROM pv_t"),
    ("pv_alice", "SELECT a FROM pv_v"),
    ("pv_alice", "INSERT INTO pv_t VALUES (3)"),
    ("pv_alice", "TRUNCATE pv_t"),
    ("pv_alice", "CREATE TABLE pv_alice_t (a integer)"),
    ("pv_alice", "SELECT a FROM pv_s.x"),
    ("pv_alice", "DROP TABLE pv_t"),
    ("pv_alice", "DROP VIEW pv_v"),
    ("pv_alice", "COMMENT ON TABLE pv_t IS 'mine'"),
    ("pv_alice", "GRANT SELECT ON pv_t TO pv_bob"),
    ("pv_alice", "CREATE SCHEMA pv_alice_s"),
    ("pv_alice", "SELECT count(*) > 0 FROM pg_class"),
    # Grants.
    ("postgres", "GRANT SELECT ON pv_t TO pv_alice WITH GRANT OPTION"),
    ("postgres", "GRANT SELECT, INSERT ON pv_u TO PUBLIC"),
    ("postgres", "GRANT SELECT ON TABLE pv_v TO pv_bob"),
    ("postgres", "GRANT USAGE ON pv_t TO pv_bob"),
    ("postgres", "GRANT SELECT ON pv_t TO PUBLIC WITH GRANT OPTION"),
    ("postgres", "GRANT SELECT ON pv_t TO pv_nobody"),
    ("postgres", "GRANT SELECT ON pv_nothing TO pv_bob"),
    ("postgres", "SELECT relname, relacl FROM pg_class WHERE relname LIKE 'pv\\_%' ORDER BY 1"),
    ("postgres", "SELECT has_table_privilege('pv_alice', 'pv_t', 'SELECT'), has_table_privilege('pv_alice', 'pv_t', "
                 "'INSERT, SELECT WITH GRANT OPTION'), has_table_privilege('pv_bob', 'pv_t', 'select'), "
                 "has_table_privilege('pv_bob', 'pv_u', 'INSERT'), has_schema_privilege('pv_alice', 'pv_s', 'USAGE'), "
                 "has_schema_privilege('pv_alice', 'public', 'CREATE, USAGE')"),
    ("postgres", "SELECT c.relname, has_table_privilege('pv_bob', c.oid, 'SELECT') FROM pg_class c "
                 "WHERE c.relname LIKE 'pv\\_%' ORDER BY 1"),
    ("pv_alice", "SELECT a FROM pv_t ORDER BY a"),
    ("pv_alice", "SELECT has_table_privilege('pv_t', 'SELECT'), has_table_privilege('pv_t', 'DELETE')"),
    ("pv_alice", "INSERT INTO pv_u VALUES (5)"),
    ("pv_alice", "SELECT a FROM pv_u"),
    # A grant option passes the privilege on, and only that one.
    ("pv_alice", "GRANT SELECT ON pv_t TO pv_bob"),
    ("pv_alice", "GRANT INSERT ON pv_t TO pv_bob"),
    ("pv_alice", "GRANT SELECT, INSERT ON pv_t TO pv_carol"),
    ("pv_bob", "SELECT a FROM pv_t ORDER BY a"),
    ("pv_bob", "SELECT a FROM pv_v ORDER BY a"),  # the view reads pv_t as its owner
    ("pv_carol", "SELECT a FROM pv_v"),
    ("postgres", "SELECT relname, relacl FROM pg_class WHERE relname = 'pv_t'"),
    # REVOKE: the grants made through the option depend on it.
    ("postgres", "REVOKE SELECT ON pv_t FROM pv_alice"),
    ("postgres", "REVOKE GRANT OPTION FOR SELECT ON pv_t FROM pv_alice CASCADE"),
    ("postgres", "SELECT relname, relacl FROM pg_class WHERE relname = 'pv_t'"),
    ("pv_bob", "SELECT a FROM pv_t"),
    ("pv_alice", "SELECT a FROM pv_t ORDER BY a"),
    ("postgres", "REVOKE ALL ON pv_t FROM pv_alice"),
    ("pv_alice", "SELECT a FROM pv_t"),
    # A role that holds privileges cannot be dropped.
    ("postgres", "DROP ROLE pv_bob"),
    ("postgres", "REVOKE ALL PRIVILEGES ON pv_v FROM pv_bob"),
    ("postgres", "DROP ROLE pv_bob"),
    # Schemas: USAGE to read in them, CREATE to make tables there; the maker owns what it makes.
    ("postgres", "GRANT SELECT ON ALL TABLES IN SCHEMA pv_s TO pv_alice"),
    ("pv_alice", "SELECT a FROM pv_s.x"),
    ("postgres", "GRANT USAGE ON SCHEMA pv_s TO pv_alice"),
    ("pv_alice", "SELECT a FROM pv_s.x"),
    ("postgres", "SELECT nspname, nspacl FROM pg_namespace WHERE nspname IN ('public', 'pv_s') ORDER BY 1"),
    ("postgres", "GRANT CREATE ON SCHEMA public TO pv_alice"),
    ("pv_alice", "CREATE TABLE pv_alice_t (a integer)"),
    ("pv_alice", "INSERT INTO pv_alice_t VALUES (7)"),
    ("pv_alice", "GRANT SELECT ON pv_alice_t TO pv_carol"),
    ("pv_carol", "SELECT a FROM pv_alice_t"),
    ("postgres", "SELECT tablename, tableowner FROM pg_tables WHERE tablename LIKE 'pv\\_%' ORDER BY 1"),
    ("postgres", "SELECT relname, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'pv_alice_t'"),
    ("postgres", "DROP ROLE pv_alice"),
    ("pv_carol", "DROP TABLE pv_alice_t"),
    ("pv_alice", "DROP TABLE pv_alice_t"),
    ("postgres", "REVOKE CREATE ON SCHEMA public FROM pv_alice"),
    ("pv_alice", "CREATE TABLE pv_alice_t (a integer)"),
    # Predefined roles.
    ("postgres", "GRANT pg_read_all_data TO pv_alice"),
    ("postgres", "GRANT pg_read_all_data TO pv_alice"),
    ("pv_alice", "SELECT a FROM pv_t ORDER BY a"),
    ("pv_alice", "INSERT INTO pv_t VALUES (9)"),
    ("postgres", "SELECT roleid::regrole::text, member::regrole::text, admin_option FROM pg_auth_members "
                 "WHERE member = 'pv_alice'::regrole"),
    ("postgres", "REVOKE pg_read_all_data FROM pv_alice"),
    ("postgres", "REVOKE pg_read_all_data FROM pv_alice"),
    ("pv_alice", "SELECT a FROM pv_t"),
    ("pv_alice", "GRANT pv_carol TO pv_alice"),
    ("postgres", "GRANT pv_carol TO pv_alice WITH ADMIN OPTION"),
    ("pv_alice", "GRANT pv_carol TO postgres"),
    ("postgres", "GRANT pv_alice TO pv_carol"),
    ("postgres", "REVOKE pv_carol FROM postgres"),
    ("postgres", "REVOKE pv_carol FROM pv_alice"),
    ("postgres", "ALTER ROLE pg_read_all_data LOGIN"),
    ("postgres", "DROP ROLE pg_read_all_data"),
    # Server files: superusers and pg_read_server_files only.
    ("pv_alice", "COPY pv_u FROM '/etc/passwd'"),
    ("pv_alice", "COPY pv_u TO '/tmp/pv_u.out'"),
    ("postgres", "GRANT pg_read_server_files TO pv_alice"),
    ("pv_alice", "COPY pv_u FROM '{csv}' (FORMAT csv)"),
    ("pv_alice", "SELECT a FROM pv_u ORDER BY a"),
]


def run_scenario(conninfo_as, steps):
    """Runs each (role, sql) as that role, one session per role: the answers, and for errors the SQLSTATE,
    message and detail, with the warnings and notices each statement raised."""
    connections = {}
    answers = []
    try:
        for role, sql in steps:
            if role not in connections:
                connections[role] = psycopg.connect(conninfo_as(role), autocommit=True)
                notices = []
                connections[role].add_notice_handler(lambda diagnostic, notices=notices: notices.append(
                    (diagnostic.severity, diagnostic.sqlstate, diagnostic.message_primary, diagnostic.message_detail)))
                connections[role].notices = notices
            connection = connections[role]
            connection.notices.clear()
            try:
                cursor = connection.execute(sql)
                rows = cursor.fetchall() if cursor.description else None
                answer = (cursor.statusmessage, rows)
            except psycopg.Error as error:
                answer = ("error", error.sqlstate, error.diag.message_primary, error.diag.message_detail)
            answers.append((role, sql, answer, list(connection.notices)))
    finally:
        for connection in connections.values():
            connection.close()
    return answers


def clean(conninfo):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        for statement in ["DROP VIEW IF EXISTS pv_v", "DROP TABLE IF EXISTS pv_t, pv_u, pv_alice_t",
                          "DROP SCHEMA IF EXISTS pv_s CASCADE"]:
            connection.execute(statement)
        for role in ROLES:
            connection.execute(f"DROP ROLE IF EXISTS {role}")


def test_privileges_answer_as_postgresql_does(cluster, postgres):
    # In /tmp itself: PostgreSQL's server process reads it as user postgres.
    with tempfile.NamedTemporaryFile("w", suffix=".csv", dir="/tmp", delete=False) as csv:
        csv.write("11\n12\n")
    os.chmod(csv.name, 0o644)
    steps = [(role, sql.replace("{csv}", csv.name)) for role, sql in SCENARIO]

    def shoal_as(role):
        return shoal_conninfo(cluster).replace("user=postgres", f"user={role}")

    def postgres_as(role):
        return postgres.conninfo().replace(f"user={postgres.user}", f"user={role}", 1)

    clean(shoal_conninfo(cluster))
    clean(postgres.conninfo())
    try:
        expected = run_scenario(postgres_as, steps)
        actual = run_scenario(shoal_as, steps)
        for want, got in zip(expected, actual):
            assert got == want
    finally:
        os.unlink(csv.name)
        clean(shoal_conninfo(cluster))
        clean(postgres.conninfo())


def test_psql_shows_privileges_and_memberships(cluster):
    """\\dp lists a table's access privileges and \\du the roles' memberships, from relacl and pg_auth_members."""
    superuser = shoal_conninfo(cluster)
    with psycopg.connect(superuser, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS pv_shown")
        connection.execute("DROP ROLE IF EXISTS pv_viewer")
        connection.execute("CREATE ROLE pv_viewer LOGIN")
        connection.execute("CREATE TABLE pv_shown (a integer)")
        connection.execute("GRANT SELECT, INSERT ON pv_shown TO pv_viewer")
        connection.execute("GRANT pg_monitor TO pv_viewer")
    try:
        shown = subprocess.run(["psql", "-X", superuser, "-c", "\\dp pv_shown", "-c", "\\du pv_viewer"],
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 0, shown.stderr
        assert "postgres=arwdDxt/postgres" in shown.stdout
        assert "pv_viewer=ar/postgres" in shown.stdout
        assert "{pg_monitor}" in shown.stdout
    finally:
        with psycopg.connect(superuser, autocommit=True) as connection:
            connection.execute("DROP TABLE pv_shown")
            connection.execute("REVOKE pg_monitor FROM pv_viewer")
            connection.execute("DROP ROLE pv_viewer")


def test_a_prepared_statement_is_checked_at_each_run(cluster):
    """A statement prepared while its role could read the table fails once SELECT is revoked, and runs again
    once it is granted back: privileges are checked as of each run, not as of the Parse."""
    superuser = shoal_conninfo(cluster)
    with psycopg.connect(superuser, autocommit=True) as admin:
        admin.execute("DROP TABLE IF EXISTS pv_prepared")
        admin.execute("DROP ROLE IF EXISTS pv_reader")
        admin.execute("CREATE ROLE pv_reader LOGIN")
        admin.execute("CREATE TABLE pv_prepared (a integer)")
        admin.execute("INSERT INTO pv_prepared VALUES (1), (2), (3)")
        admin.execute("GRANT SELECT ON pv_prepared TO pv_reader")
        try:
            reader_info = superuser.replace("user=postgres", "user=pv_reader")
            with psycopg.connect(reader_info, autocommit=True) as reader:
                query = "SELECT count(*) FROM pv_prepared WHERE a > %s"
                for _ in range(3):  # psycopg prepares server-side from the second run on
                    assert reader.execute(query, (1,), prepare=True).fetchone() == (2,)
                admin.execute("REVOKE SELECT ON pv_prepared FROM pv_reader")
                try:
                    reader.execute(query, (1,), prepare=True)
                    raise AssertionError("a revoked SELECT still ran")
                except psycopg.errors.InsufficientPrivilege:
                    pass
                admin.execute("GRANT SELECT ON pv_prepared TO pv_reader")
                assert reader.execute(query, (0,), prepare=True).fetchone() == (3,)
        finally:
            admin.execute("DROP TABLE pv_prepared")
            admin.execute("DROP ROLE pv_reader")
