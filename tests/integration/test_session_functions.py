"""What a client asks on connect (SQLAlchemy: version() and current_schema(); BI tools: "public"."t"),
answered as a scratch PostgreSQL 15 answers the same text. Both are asked as user postgres on database
postgres, so that current_user and current_database() can match."""

import pytest

from postgres_oracle import answer, session_answers

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


def test_show_all_describes_each_setting_as_postgresql_does(both):
    """SHOW ALL has PostgreSQL's three columns; every setting Shoal shows that PostgreSQL also has carries
    PostgreSQL's description, and they come in PostgreSQL's order."""
    shoal, postgres = both
    kind, columns, rows = answer(shoal, "SHOW ALL")
    _, postgres_columns, postgres_rows = answer(postgres, "SHOW ALL")
    assert columns == postgres_columns == ["name", "setting", "description"]
    descriptions = {name: description for name, _, description in postgres_rows}
    shared = [(name, description) for name, _, description in rows if name in descriptions]
    assert len(shared) >= 20
    assert all(description == descriptions[name] for name, description in shared)
    order = [name for name, _, _ in postgres_rows if name in dict(shared)]
    assert [name for name, _ in shared] == order
    assert {name for name, _, _ in rows} - set(descriptions) == {"query_memory_limit_mb", "max_recursive_iterations"}


def test_server_version_num_agrees_with_version(both):
    shoal, _ = both
    (number,), = answer(shoal, "SHOW server_version_num")[2]
    (version,), = answer(shoal, "SELECT version()")[2]
    assert number.isdigit() and version.startswith(f"PostgreSQL {int(number) // 10000}.{int(number) % 10000}")


@pytest.mark.parametrize("sql", ["SHOW search_path", "SHOW max_identifier_length",
                                 "SET server_version_num = 1", "SHOW no_such_setting"])
def test_settings_clients_read_are_postgresqls(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


SET_CONFIG_SESSION = [
    "SELECT set_config('application_name', 'etl', false)",
    "SHOW application_name",
    "SELECT pg_catalog.set_config('statement_timeout', '2s', false) AS timeout",
    "SELECT setting, source FROM pg_settings WHERE name = 'statement_timeout'",
    "SELECT set_config('search_path', '', false)",
    "SHOW search_path",
    "SELECT set_config('application_name', 'only now', true)",
    "SHOW application_name",
    "SELECT set_config('nosuch', 'x', false)",
    "SELECT set_config('server_version', '1', false)",
    "SELECT set_config('statement_timeout', 'soon', false)",
    "SELECT set_config(NULL, 'x', false)",
    "SELECT set_config('', 'x', false)",
    "RESET ALL",
    "SHOW application_name",
]


def test_set_config_sets_as_on_postgresql(both):
    """pg_dump's way of setting a parameter, SELECT set_config(...), with PostgreSQL's answers and errors."""
    shoal, postgres = both
    assert session_answers(shoal, SET_CONFIG_SESSION) == session_answers(postgres, SET_CONFIG_SESSION)


@pytest.mark.parametrize("sql", [
    "SELECT t.typname, pg_type_is_visible(t.oid) FROM pg_type t WHERE t.oid IN (16, 23, 1043, 1700) ORDER BY 1",
    "SELECT pg_type_is_visible(999999), pg_type_is_visible(NULL)",
])
def test_type_visibility_is_postgresqls(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def test_session_functions_in_insert_values_answer_as_postgresql(both):
    """INSERT ... VALUES binds the session's functions too (sqlsmith met 42883 for pg_backend_pid() there)."""
    rows = []
    for conninfo in both:
        answer(conninfo, "DROP TABLE IF EXISTS session_values")
        assert answer(conninfo, "CREATE TABLE session_values (u text, db text, ok boolean, known boolean)")[0] == "rows"
        assert answer(conninfo, "INSERT INTO session_values VALUES (current_user, current_database(), "
                                "pg_backend_pid() > 0, pg_get_userbyid(10) IS NOT NULL)")[0] == "rows"
        rows.append(answer(conninfo, "SELECT * FROM session_values"))
        answer(conninfo, "DROP TABLE session_values")
    assert rows[0] == rows[1]
