"""Story: an operations team keeps job runs with their durations (INTERVAL), run ids (UUID), checksums
(BYTEA), the runner's attributes as JSONB and JSON, the time of day each job is scheduled at (TIME) and a score
(REAL). psycopg sends Python timedeltas, UUIDs, bytes, times and floats as parameters, in text and in binary, and reads them
back; COPY writes the columns out as PostgreSQL does and reads them in again; after a restart of the cluster the
same values come back. Answers are compared with PostgreSQL 15 where both can run the statement."""

import datetime
import io
import uuid

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE runs (id integer, job text, run uuid, started timestamp, took interval, digest bytea, "
    "attrs jsonb, meta json, at time, score real)",
    "INSERT INTO runs VALUES "
    "(1, 'load', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-05-01 02:00', '01:02:03.5', '\\x00ff10', "
    "'{\"host\": \"a\", \"cpu\": 1.50}', '{\"tags\": [\"x\", \"y\"]}', '02:00', 1.1), "
    "(2, 'load', 'ffffffff-0000-4000-8000-000000000001', '2024-05-02 02:00', '00:59:00', '\\x', "
    "'{\"cpu\": 2, \"host\": \"b\"}', '{ \"tags\" : [] }', '23:59:59.999999', 0.1), "
    "(3, 'rollup', '00000000-0000-0000-0000-000000000000', '2024-05-01 03:00', '2 days 03:00', 'tab\tand\\\\', "
    "'[1, \"t\\u00e9\", null]', '\"caf\\u00e9\"', '00:00', '3.4028235e38'), "
    "(4, 'rollup', '7fffffff-ffff-ffff-ffff-ffffffffffff', '2024-05-02 03:00', '1 mon -1 days', '\\x00ff', "
    "'1e2', '100', '24:00', '-0'), "
    "(5, 'export', NULL, '2024-05-03 04:00', NULL, NULL, NULL, NULL, NULL, NULL), "
    "(6, 'export', '80000000-0000-0000-0000-000000000000', '2024-05-04 04:00', '-00:00:00.000001', '\\x0a0d5c', "
    "'{\"host\": \"a\", \"cpu\": 1.5}', 'null', '04:30:00.5', '-Infinity')",
]
DROP = ["DROP TABLE IF EXISTS runs"]

QUERIES = [
    "SELECT job, sum(took)::text, avg(took)::text, max(took)::text, count(took) FROM runs GROUP BY job ORDER BY job",
    "SELECT id, (started + took)::text FROM runs ORDER BY took DESC NULLS FIRST, id",
    "SELECT id FROM runs WHERE took > interval '1 hour' ORDER BY id",
    "SELECT job, max(started) - min(started) FROM runs GROUP BY job ORDER BY job",
    "SELECT id, justify_interval(took)::text, extract(epoch FROM took) FROM runs ORDER BY id",
    "SELECT run, id FROM runs ORDER BY run NULLS FIRST, id",
    "SELECT a.id, b.id FROM runs a JOIN runs b ON a.run = b.run ORDER BY 1",
    "SELECT id, digest FROM runs ORDER BY digest NULLS FIRST, id",
    "SELECT digest || '\\x01', count(*) FROM runs GROUP BY digest ORDER BY 1",
    "SELECT id, attrs::text, meta::text FROM runs ORDER BY attrs NULLS FIRST, id",
    "SELECT id, attrs ->> 'host', attrs -> 'cpu', meta -> 'tags' ->> 0, jsonb_typeof(attrs) FROM runs ORDER BY id",
    "SELECT a.id, b.id FROM runs a JOIN runs b ON a.attrs = b.attrs AND a.id < b.id ORDER BY 1",
    "SELECT job, min(at)::text, max(at)::text, count(DISTINCT at) FROM runs GROUP BY job ORDER BY job",
    "SELECT id, (at + took)::text, (started::date + at)::text, extract(hour FROM at) FROM runs ORDER BY at, id",
    "SELECT id FROM runs WHERE at BETWEEN '02:00' AND '23:59:59.999999' ORDER BY id",
    "SELECT job, sum(score), avg(score), max(score), min(score), count(DISTINCT score) FROM runs WHERE id <> 3 "
    "GROUP BY job ORDER BY job",
    "SELECT id, score, score::text, score * 2, score + score, score::float8 FROM runs WHERE id <> 3 "
    "ORDER BY score NULLS FIRST, id",
    "SELECT a.id, b.id FROM runs a JOIN runs b ON a.score = b.score ORDER BY 1",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_run_queries_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])


# Python values psycopg sends and reads back exactly (timedeltas have no months to lose).
PARAMETERS = {
    "interval": [
        datetime.timedelta(0),
        datetime.timedelta(days=1, seconds=3723, microseconds=500000),
        datetime.timedelta(days=-1, seconds=7200),
        datetime.timedelta(microseconds=-1),
        datetime.timedelta(days=999_999_998, seconds=86_399, microseconds=999_999),
    ],
    "bytea": [b"", b"\x00\x01\xff", bytes(range(256)), b"abc\\def", b"\x00" * 3],
    # Floats that real holds exactly and whose shortest text reads back to the same double.
    "real": [0.0, 1.5, -2.25, 0.125, 1e10, 16777216.0],
    "time": [
        datetime.time(0, 0),
        datetime.time(23, 59, 59, 999999),
        datetime.time(4, 5, 6, 789000),
        datetime.time(12, 0, 0, 1),
    ],
    "uuid": [
        uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        uuid.UUID(int=0),
        uuid.UUID(int=2**128 - 1),
        uuid.UUID(int=2**127),
        uuid.uuid4(),
    ],
}


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize("type_name", sorted(PARAMETERS))
def test_parameters_round_trip(both, type_name, binary):
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as connection, connection.cursor(binary=binary) as cursor:
            for value in PARAMETERS[type_name]:
                cursor.execute(f"SELECT %s::{type_name}, %s::{type_name} = %s::{type_name}", (value, value, value))
                assert cursor.fetchone() == (value, True)


# Lists psycopg sends as arrays of the types above (and of timestamptz), NULL elements and empty lists included.
ARRAY_PARAMETERS = {
    "interval[]": [[datetime.timedelta(days=1), None, datetime.timedelta(microseconds=-1)], []],
    "bytea[]": [[b"", b"\x00\xff", None, bytes(range(256))], [None]],
    "uuid[]": [[uuid.UUID(int=0), None, uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")], []],
    "timestamptz[]": [[datetime.datetime(2024, 3, 10, 7, 30, tzinfo=datetime.timezone.utc), None,
                       datetime.datetime(2, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=5)))]],
}


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize("type_name", sorted(ARRAY_PARAMETERS))
def test_list_parameters_round_trip(both, type_name, binary):
    answers = []
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as connection, connection.cursor(binary=binary) as cursor:
            cursor.execute("SET TimeZone = 'America/Sao_Paulo'")
            rows = []
            for value in ARRAY_PARAMETERS[type_name]:
                cursor.execute(f"SELECT %s::{type_name}, cardinality(%s::{type_name}), (%s::{type_name})::text",
                               (value, value, value))
                row = cursor.fetchone()
                assert row[0] == value and row[1] == len(value)
                rows.append(row)
            answers.append(rows)
    assert answers[0] == answers[1]


def test_binary_results_carry_the_values(both):
    # Binary intervals keep months, days and microseconds apart; psycopg turns months into 30 days as it reads.
    sql = ("SELECT interval '1 mon 2 days 03:04:05.000006', interval '-1 year', "
           "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '\\x00ff5c'::bytea, ''::bytea, "
           "'{\"b\": [1.50, null], \"a\": \"\\u00e9\"}'::jsonb, '{\"b\": 1, \"a\": 2}'::json, "
           "time '23:59:59.999999', time '00:00', 1.1::real, '-Infinity'::real, '{1.5,-0}'::real[], "
           "'{\\\\x00ff,NULL}'::bytea[], '{00000000-0000-0000-0000-00000000000a}'::uuid[], "
           "'{\"1 day\",-00:00:01}'::interval[], '{\"2024-03-10 07:30+00\",\"1999-12-31 23:59:59.999999+00\"}'::timestamptz[]")
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


def test_copy_writes_the_columns_and_reads_them_back(both):
    shoal, postgres = both
    out = "COPY (SELECT id, run, took, digest, attrs, meta, at, score FROM runs ORDER BY id) TO STDOUT"
    text = copy_out(shoal, out)
    assert text == copy_out(postgres, out)
    with psycopg.connect(shoal, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS runs_copy")
        connection.execute("CREATE TABLE runs_copy (id integer, run uuid, took interval, digest bytea, attrs jsonb, "
                           "meta json, at time, score real)")
        with connection.cursor() as cursor, cursor.copy("COPY runs_copy FROM STDIN") as copy:
            copy.write(text)
    try:
        assert copy_out(shoal, "COPY (SELECT id, run, took, digest, attrs, meta, at, score FROM runs_copy ORDER BY id) "
                               "TO STDOUT") == text
    finally:
        with psycopg.connect(shoal, autocommit=True) as connection:
            connection.execute("DROP TABLE runs_copy")


def test_values_outlive_a_restart(tmp_path):
    rows = [
        (0, "1 year 2 mons 3 days 04:05:06.789", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "\\x00ff",
         '{"a": [1, 2.50], "b": null}', '{"b": 1,  "a" : 2}', "04:05:06.789", "1.1"),
        (1, "-1 days +02:00:00", "00000000-0000-0000-0000-000000000000", "\\x", "[]", "[]", "24:00:00", "-0"),
        (2, "00:00:00", "ffffffff-ffff-ffff-ffff-ffffffffffff", "\\x" + "ab" * 5000,
         '{"long": "' + "x" * 5000 + '"}', '"' + "y" * 5000 + '"', "00:00:00", "3.4028235e+38"),
        (3, None, None, None, None, None, None, None),
        (4, "178956970 years 7 mons 2147483647 days 2562047788:00:54.775807", "80000000-0000-0000-0000-000000000000",
         "\\x5c", '"\u00e9"', '"\\u00e9"', "23:59:59.999999", "1e-45"),
        (5, "-178956970 years -8 mons", "7fffffff-ffff-ffff-ffff-ffffffffffff", "\\x0001", "100", "1e2",
         "12:00:00.000001", "NaN"),
    ]
    local = LocalCluster(tmp_path, workers=2).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute("CREATE TABLE kept (id integer, d interval, u uuid, b bytea, j jsonb, k json, t time, "
                               "r real)")
            for row in rows:
                connection.execute("INSERT INTO kept VALUES (%s, %s::interval, %s::uuid, %s::bytea, %s, %s, %s::time, "
                                   "%s::real)", row)
            before = connection.execute(
                "SELECT id, d::text, u::text, b::text, j::text, k::text, t::text, r::text FROM kept ORDER BY id"
            ).fetchall()
        # The jsonb values are written as jsonb prints them; json keeps its text as written.
        assert before == rows
        assert local.stop() == 0
        local = LocalCluster(tmp_path, workers=2).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute(
                "SELECT id, d::text, u::text, b::text, j::text, k::text, t::text, r::text FROM kept ORDER BY id"
            ).fetchall() == before
            assert connection.execute("SELECT id FROM kept WHERE r = 1.1::real").fetchall() == [(0,)]
            assert connection.execute("SELECT id FROM kept WHERE j = '1e2'::jsonb").fetchall() == [(5,)]
            assert connection.execute("SELECT id FROM kept WHERE d = interval '-22 hours'").fetchall() == [(1,)]
            assert connection.execute("SELECT id FROM kept WHERE t > '23:00' ORDER BY t").fetchall() == [(4,), (1,)]
            # ff... sorts above a0..., above 80...: byte order, whatever the int128 keeps.
            assert connection.execute("SELECT id FROM kept ORDER BY u DESC NULLS LAST LIMIT 3").fetchall() == [
                (2,), (0,), (4,)]
    finally:
        local.kill()
