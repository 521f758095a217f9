"""Story: an operations team keeps job runs with their durations as INTERVAL columns. psycopg sends Python
timedeltas as parameters, in text and in binary, and reads them back; COPY writes the durations out and reads
them in again; after a restart of the cluster the same values come back. Answers are compared with PostgreSQL 15
where both can run the statement."""

import datetime
import io

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE runs (id integer, job text, started timestamp, took interval)",
    "INSERT INTO runs VALUES "
    "(1, 'load', '2024-05-01 02:00', '01:02:03.5'), "
    "(2, 'load', '2024-05-02 02:00', '00:59:00'), "
    "(3, 'rollup', '2024-05-01 03:00', '2 days 03:00'), "
    "(4, 'rollup', '2024-05-02 03:00', '1 mon -1 days'), "
    "(5, 'export', '2024-05-03 04:00', NULL), "
    "(6, 'export', '2024-05-04 04:00', '-00:00:00.000001')",
]
DROP = ["DROP TABLE IF EXISTS runs"]

QUERIES = [
    "SELECT job, sum(took)::text, avg(took)::text, max(took)::text, count(took) FROM runs GROUP BY job ORDER BY job",
    "SELECT id, (started + took)::text FROM runs ORDER BY took DESC NULLS FIRST, id",
    "SELECT id FROM runs WHERE took > interval '1 hour' ORDER BY id",
    "SELECT job, max(started) - min(started) FROM runs GROUP BY job ORDER BY job",
    "SELECT id, justify_interval(took)::text, extract(epoch FROM took) FROM runs ORDER BY id",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_duration_queries_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])


# Timedeltas without months: psycopg sends days, seconds and microseconds, and reads them back exactly.
DELTAS = [
    datetime.timedelta(0),
    datetime.timedelta(days=1, seconds=3723, microseconds=500000),
    datetime.timedelta(days=-1, seconds=7200),
    datetime.timedelta(microseconds=-1),
    datetime.timedelta(days=999_999_998, seconds=86_399, microseconds=999_999),
]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_timedelta_parameters_round_trip(both, binary):
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as connection, connection.cursor(binary=binary) as cursor:
            for delta in DELTAS:
                cursor.execute("SELECT %s::interval, %s::interval + interval '1 day'", (delta, delta))
                back, later = cursor.fetchone()
                assert back == delta
                assert later == delta + datetime.timedelta(days=1)


def test_binary_results_carry_months_days_and_microseconds(both):
    # The binary format keeps the three fields apart; psycopg turns months into 30 days when it reads them.
    sql = "SELECT interval '1 mon 2 days 03:04:05.000006', interval '-1 year'"
    answers = []
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as connection, connection.cursor(binary=True) as cursor:
            cursor.execute(sql)
            answers.append(cursor.fetchone())
    assert answers[0] == answers[1]


def copy_out(conninfo, sql):
    buffer = io.BytesIO()
    with psycopg.connect(conninfo, autocommit=True) as connection:
        with connection.cursor() as cursor, cursor.copy(sql) as copy:
            for data in copy:
                buffer.write(data)
    return buffer.getvalue()


def test_copy_writes_intervals_and_reads_them_back(both):
    shoal, postgres = both
    out = "COPY (SELECT id, took FROM runs ORDER BY id) TO STDOUT"
    text = copy_out(shoal, out)
    assert text == copy_out(postgres, out)
    with psycopg.connect(shoal, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS runs_copy")
        connection.execute("CREATE TABLE runs_copy (id integer, took interval)")
        with connection.cursor() as cursor, cursor.copy("COPY runs_copy FROM STDIN") as copy:
            copy.write(text)
    assert copy_out(shoal, "COPY (SELECT id, took FROM runs_copy ORDER BY id) TO STDOUT") == text
    with psycopg.connect(shoal, autocommit=True) as connection:
        connection.execute("DROP TABLE runs_copy")


def test_intervals_outlive_a_restart(tmp_path):
    values = ["1 year 2 mons 3 days 04:05:06.789", "-1 days +02:00:00", "00:00:00", None,
              "178956970 years 7 mons 2147483647 days 2562047788:00:54.775807", "-178956970 years -8 mons"]
    local = LocalCluster(tmp_path, workers=2).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute("CREATE TABLE kept (id integer, d interval)")
            for index, value in enumerate(values):
                connection.execute("INSERT INTO kept VALUES (%s, %s::interval)", (index, value))
            before = connection.execute("SELECT id, d::text FROM kept ORDER BY id").fetchall()
        assert [row[1] for row in before] == values
        assert local.stop() == 0
        local = LocalCluster(tmp_path, workers=2).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute("SELECT id, d::text FROM kept ORDER BY id").fetchall() == before
            assert connection.execute("SELECT count(*) FROM kept WHERE d = interval '-22 hours'").fetchone() == (1,)
    finally:
        local.kill()
