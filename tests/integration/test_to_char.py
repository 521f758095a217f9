"""Story: a dashboard labels its buckets with to_char: 'YYYY-MM', 'Mon DD', 'HH24:MI', ISO weeks 'IYYY-"W"IW',
weekday names, quarters, ordinals ('DDth') and the zone ('TZ', 'OF') of timestamptz values in the session's
TimeZone. Shoal formats timestamps, timestamptz values and dates as PostgreSQL 15 does, over a table spread
across two workers and for every pattern of a matrix in three time zones."""

import itertools

import pytest

from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE events (id integer, at timestamp, at_tz timestamptz, day date)",
    "INSERT INTO events VALUES "
    "(1, '2024-03-05 14:07:09.123456', '2024-03-05 14:07:09.123456+00', '2024-03-05'), "
    "(2, '2024-12-30 00:00:00', '2024-12-30 00:00:00+00', '2024-12-30'), "
    "(3, '2021-01-03 23:59:59.5', '2021-01-03 23:59:59.5+00', '2021-01-03'), "
    "(4, '1999-12-31 12:00:00', '1999-12-31 12:00:00+00', '1999-12-31'), "
    "(5, '2024-02-29 06:30:00', '2024-07-01 09:05:00+00', '2024-02-29'), "
    "(6, 'infinity', '-infinity', NULL), "
    "(7, NULL, NULL, NULL)",
]
DROP = ["DROP TABLE IF EXISTS events"]

FORMATS = [
    "YYYY-MM-DD HH24:MI:SS.MS", "HH12:MI:SS AM", "hh:mi p.m.", "HH24:MI:SS.US", "Mon DD, YYYY", "Month DD YYYY",
    "FMMonth FMDDth", "MONTH month MON mon", "Day DAY day Dy DY dy FMDay", "D ID DDD IDDD W WW IW", "IYYY IYY IY I",
    "Q CC J YYY YY Y Y,YYY", "DDth DDTH FMDDth MMth", "YYYY \"Quarter\" Q", "IYYY-\"W\"IW", "SSSS SSSSS",
    "AD BC A.D. b.c.", "TZ tz OF TZH TZM", "yyyy-mm-dd hh24:mi:ss", "YYYYMMDD", "plain text", "",
]

QUERIES = [
    "SELECT id, to_char(at, 'YYYY-MM'), to_char(at_tz, 'YYYY-MM-DD HH24:MI TZ'), to_char(day, 'Mon DD') "
    "FROM events ORDER BY id",
    "SELECT to_char(at, 'YYYY-\"Q\"Q') AS quarter, count(*) FROM events GROUP BY 1 ORDER BY 1",
    "SELECT id FROM events WHERE to_char(day, 'Dy') IN ('Tue', 'Sun') ORDER BY id",
    "SELECT to_char(at, NULL), to_char(NULL::timestamp, 'YYYY') FROM events WHERE id = 1",
    "SELECT to_char(1.5, '9.9')",
    "SELECT to_char(at) FROM events",
    "SELECT to_char(true, 'YYYY')",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_to_char_answers_as_postgresql(both, sql):
    shoal, postgres = both
    ours, theirs = session_answers(shoal, [sql]), session_answers(postgres, [sql])
    assert ours == theirs


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_every_pattern_formats_as_in_postgresql(both, zone):
    shoal, postgres = both
    statements = [f"SET TimeZone = '{zone}'"] + [
        f"SELECT id, to_char(at, '{pattern}'), to_char(at_tz, '{pattern}'), to_char(day, '{pattern}') "
        f"FROM events ORDER BY id" for pattern in FORMATS]
    for ours, theirs in itertools.zip_longest(session_answers(shoal, statements),
                                              session_answers(postgres, statements)):
        assert ours == theirs
