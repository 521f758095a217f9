"""Story: users set session settings when they connect, in the connection string (`options='-c
statement_timeout=5s'`) or in PGOPTIONS, and later with SET. Shoal applies them as PostgreSQL 15 does, spells
them back as it does (DateStyle "ISO, DMY"), and refuses a bad one at connect time with PostgreSQL's FATAL
message instead of ignoring it."""

import psycopg
import pytest

from postgres_oracle import session_answers, shoal_conninfo

OPTIONS = [
    "-c statement_timeout=1234",
    "--statement-timeout=99",
    "-cstatement_timeout=5s -c extra_float_digits=2",
    "-c application_name=from\\ options",
    "-c statement_timeout=abc",
    "-c nosuch=1",
    "-x",
    "-c",
    "-c DateStyle=ISO,DMY",
    "-c DateStyle=nonsense",
]


def connect_answers(conninfo, options):
    """What a session opened with `options` shows, or the FATAL message it is refused with."""
    try:
        with psycopg.connect(conninfo, options=options, autocommit=True) as connection:
            return [connection.execute(f"SHOW {name}").fetchone()[0]
                    for name in ("statement_timeout", "extra_float_digits", "application_name", "DateStyle")]
    except psycopg.OperationalError as error:
        return str(error).split("FATAL:", 1)[-1].strip()


@pytest.mark.parametrize("options", OPTIONS)
def test_startup_options_apply_as_on_postgresql(cluster, postgres, options):
    assert connect_answers(shoal_conninfo(cluster), options) == connect_answers(postgres.conninfo(), options)


def test_a_setting_of_its_own_wins_over_options(cluster, postgres):
    """application_name given as a startup parameter beats the one in options, on both servers."""
    answers = [connect_answers(conninfo + " application_name=own", "-c application_name=from_options")
               for conninfo in (shoal_conninfo(cluster), postgres.conninfo())]
    assert answers[0] == answers[1] and answers[0][2] == "own"


def test_datestyle_reads_and_shows_as_on_postgresql(cluster, postgres):
    """A style, an order or both; what is left out stays; SHOW and ParameterStatus spell it "ISO, DMY"."""
    statements = []
    for value in ("ISO,DMY", "MDY", "european", "iso, ymd", "US", "ISO", "nonsense", "DMY, ISO", "SQL"):
        statements += [f"SET DateStyle = '{value}'", "SHOW DateStyle"]
    statements += ["RESET DateStyle", "SHOW DateStyle"]
    answers = []
    for conninfo in (shoal_conninfo(cluster), postgres.conninfo()):
        answers.append(session_answers(conninfo, statements))
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute("SET DateStyle = 'dmy'")
            answers[-1].append(connection.info.parameter_status("DateStyle"))
    # SQL style is the one difference by design: Shoal prints ISO dates only and refuses the others (22023).
    sql_style = statements.index("SET DateStyle = 'SQL'")
    assert answers[0][sql_style] == ("SET DateStyle = 'SQL'", "error", "22023")
    assert answers[0][sql_style + 1] == answers[0][sql_style - 1]  # unchanged
    for i in (sql_style, sql_style + 1):
        answers[0][i] = answers[1][i] = None
    assert answers[0] == answers[1]
