"""Story: a driver or a user changes a setting inside a transaction and rolls it back, or uses SET LOCAL for
one transaction only (psycopg and SQLAlchemy wrap work in blocks and savepoints). Shoal's settings follow the
transaction as PostgreSQL 15's do, and clients hear of reported settings that change back."""

import psycopg

from postgres_oracle import session_answers, shoal_conninfo

STATEMENTS = [
    "BEGIN", "SET statement_timeout = '5s'", "ROLLBACK", "SHOW statement_timeout",
    "BEGIN", "SET statement_timeout = '5s'", "SAVEPOINT a", "SET statement_timeout = '7s'", "SHOW statement_timeout",
    "ROLLBACK TO a", "SHOW statement_timeout", "COMMIT", "SHOW statement_timeout",
    "BEGIN", "SET statement_timeout = '9s'", "SELECT 1/0", "ROLLBACK", "SHOW statement_timeout",
    "BEGIN", "SET LOCAL statement_timeout = '3s'", "SHOW statement_timeout", "COMMIT", "SHOW statement_timeout",
    "SET LOCAL statement_timeout = '4s'", "SHOW statement_timeout",
    "BEGIN", "SET LOCAL extra_float_digits = 2", "SET extra_float_digits = 1", "COMMIT", "SHOW extra_float_digits",
    "BEGIN", "SET extra_float_digits = 3", "SET LOCAL extra_float_digits = 0", "COMMIT", "SHOW extra_float_digits",
    "BEGIN", "SELECT set_config('statement_timeout', '8s', true)", "SHOW statement_timeout", "COMMIT",
    "SHOW statement_timeout",
    "BEGIN", "RESET ALL", "ROLLBACK", "SHOW statement_timeout",
    "RESET ALL", "SHOW statement_timeout",
]


def test_settings_follow_the_transaction_as_on_postgresql(cluster, postgres):
    assert session_answers(shoal_conninfo(cluster), STATEMENTS) == session_answers(postgres.conninfo(), STATEMENTS)


def reported_application_names(conninfo):
    """What the client is told of application_name (a reported setting) across a rolled-back SET."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        seen = [connection.info.parameter_status("application_name")]
        connection.execute("BEGIN")
        connection.execute("SET application_name = 'inside'")
        seen.append(connection.info.parameter_status("application_name"))
        connection.execute("ROLLBACK")
        seen.append(connection.info.parameter_status("application_name"))
        return seen


def test_a_rolled_back_reported_setting_is_reported_again(cluster, postgres):
    assert reported_application_names(shoal_conninfo(cluster)) == reported_application_names(postgres.conninfo())
