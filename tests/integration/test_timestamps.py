"""Story: an analyst's events table has TIMESTAMP and TIMESTAMPTZ columns. She loads it with INSERT and COPY, sets
her session's TimeZone, and asks what a dashboard asks: rows per day (date_trunc), EXTRACT of every field, the
last 30 days (now() - interval '30 days'), joins on the timestamps. Every answer, and every error, is
PostgreSQL 15's, in UTC and in zones with DST gaps, half-hour offsets and local mean time; psycopg's datetime
parameters and COPY travel both ways in text and binary."""

import datetime
import zoneinfo

import psycopg
import pytest

from postgres_oracle import answer, both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE events (id integer, kind text, at timestamp, atz timestamptz, day date)",
    "INSERT INTO events VALUES "
    "(1, 'click', '2024-01-05 10:11:12.5', '2024-01-05 10:11:12.5+00', '2024-01-05'), "
    "(2, 'view', '2024-03-10 02:30:00', '2024-03-10 07:30:00+00', '2024-03-10'), "
    "(3, 'click', '2023-12-31 23:59:59.999999', '2023-12-31 23:59:59.999999-08', '2023-12-31'), "
    "(4, 'buy', '1999-11-07 01:30:00', '1999-10-31 05:30:00+00', '1999-11-07'), "
    "(5, 'view', NULL, NULL, NULL), "
    "(6, 'buy', 'infinity', '-infinity', '2000-02-29'), "
    "(7, 'click', '0044-03-15 12:00:00 BC', '1880-06-01 12:00:00+00', '0001-01-01'), "
    "(8, 'view', '2024-01-05 10:11:12.5', '2024-11-03 06:30:00+00', '2024-01-05')",
]
DROP = ["DROP TABLE IF EXISTS events"]

# Compared as the servers' text: byte for byte, and beyond what Python's datetime holds (infinity, BC).
TEXT_TYPES = ("timestamp", "timestamptz", "date")

ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Europe/Berlin"]

QUERIES = [
    # Input and output, the types' own text.
    "SELECT '2024-01-05 10:11:12.5'::timestamp, '2024-01-05T10:11:12'::timestamp, '2024-01-05'::timestamp, "
    "' 2024-01-05 24:00:00 '::timestamp, '2024-01-05 10:11:12.9999995'::timestamp, 'epoch'::timestamp, "
    "'infinity'::timestamp, '-infinity'::timestamp, '0044-03-15 12:00 BC'::timestamp, '12345-06-07 08:09:10'::timestamp",
    "SELECT '2024-01-05 10:11:12+05:30'::timestamptz, '2024-07-01 12:00'::timestamptz, "
    "'2024-03-10 02:30'::timestamptz, '2024-11-03 01:30'::timestamptz, '1880-06-01 12:00'::timestamptz, "
    "'2024-01-05 10:11:12 Europe/Berlin'::timestamptz, '2024-01-05 10:11:12Z'::timestamptz, "
    "'2024-01-05 10:11:12 PST'::timestamptz",
    "SELECT * FROM events ORDER BY id",
    "SELECT id, at::text, atz::text, at::date, atz::date, atz::timestamp, at::timestamptz, day::timestamp, "
    "day::timestamptz FROM events WHERE id <> 6 ORDER BY id",
    # Comparison, sorting, grouping, joining.
    "SELECT id FROM events ORDER BY at NULLS FIRST, id",
    "SELECT id FROM events ORDER BY atz DESC NULLS LAST, id",
    "SELECT at, count(*), min(atz), max(atz) FROM events GROUP BY at ORDER BY at",
    "SELECT a.id, b.id FROM events a JOIN events b ON a.at = b.at WHERE a.id < b.id ORDER BY 1, 2",
    "SELECT id FROM events WHERE at < day + 1 ORDER BY id",
    "SELECT id FROM events WHERE atz >= '2024-01-01' AND atz < '2024-12-31'::date ORDER BY id",
    "SELECT id FROM events WHERE at = day OR at IN ('2024-01-05 10:11:12.5', '1999-11-07 01:30') ORDER BY id",
    "SELECT id FROM events WHERE at BETWEEN '2000-01-01' AND '2025-01-01' AND atz > at ORDER BY id",
    "SELECT count(DISTINCT at), count(DISTINCT atz), min(at), max(at), min(day::timestamptz) FROM events",
    # EXTRACT and date_part, every field.
    "SELECT id, extract(year FROM at), extract(month FROM at), extract(day FROM at), extract(hour FROM at), "
    "extract(minute FROM at), extract(second FROM at), extract(milliseconds FROM at), "
    "extract(microseconds FROM at), extract(epoch FROM at), extract(dow FROM at), extract(isodow FROM at), "
    "extract(doy FROM at), extract(week FROM at), extract(isoyear FROM at), extract(quarter FROM at), "
    "extract(decade FROM at), extract(century FROM at), extract(millennium FROM at) "
    "FROM events WHERE id NOT IN (5, 6) ORDER BY id",
    "SELECT id, extract(year FROM atz), extract(day FROM atz), extract(hour FROM atz), extract(epoch FROM atz), "
    "extract(timezone FROM atz), extract(timezone_hour FROM atz), extract(timezone_minute FROM atz), "
    "date_part('hour', atz), date_part('epoch', at), date_part('dow', atz) FROM events WHERE id NOT IN (5, 6) "
    "ORDER BY id",
    "SELECT extract(month FROM at), extract(hour FROM atz), date_part('day', at) FROM events WHERE id = 6",
    # date_trunc, every unit, with and without a zone.
    "SELECT id, date_trunc('microseconds', at), date_trunc('milliseconds', at), date_trunc('second', at), "
    "date_trunc('minute', at), date_trunc('hour', at), date_trunc('day', at), date_trunc('week', at), "
    "date_trunc('month', at), date_trunc('quarter', at), date_trunc('year', at), date_trunc('decade', at), "
    "date_trunc('century', at), date_trunc('millennium', at) FROM events ORDER BY id",
    "SELECT id, date_trunc('hour', atz), date_trunc('day', atz), date_trunc('week', atz), date_trunc('month', atz), "
    "date_trunc('year', atz), date_trunc('day', atz, 'Asia/Tokyo'), date_trunc('month', day) "
    "FROM events ORDER BY id",
    "SELECT date_trunc('day', at) AS d, count(*) FROM events GROUP BY 1 ORDER BY 1 NULLS FIRST",
    # Interval arithmetic: months clamp to the month's end, days follow the wall clock across DST.
    "SELECT id, at + interval '1 month', at - interval '1 year 2 days', atz + interval '1 day', "
    "atz + interval '24 hours', atz - interval '1.5 hours', day + interval '1 month', day - interval '90' day, "
    "day + interval '1 day 02:03:04.5', at + interval '90' FROM events WHERE id NOT IN (6, 7) ORDER BY id",
    "SELECT date '2024-01-31' + interval '1 month', timestamp '2024-01-31 10:00' + interval '1 month 2 hours', "
    "timestamptz '2024-03-09 12:00' + interval '1 day', timestamptz '2024-03-09 12:00' + interval '24 hours', "
    "interval '3' month + date '2024-11-30', date '1998-12-01' - interval '90' day (3)",
    "SELECT id FROM events WHERE day < date '2024-01-01' + interval '3' month AND "
    "day >= date '2024-01-01' - interval '1 day' ORDER BY id",
    # The clock.
    "SELECT now() = current_timestamp, now() = transaction_timestamp(), localtimestamp = now()::timestamp, "
    "current_date = now()::date, pg_typeof(now()), pg_typeof(localtimestamp), pg_typeof(current_date), "
    "statement_timestamp() >= now(), current_timestamp(0) = date_trunc('second', now() + interval '0.5 second')",
    "SELECT id FROM events WHERE atz > now() - interval '100 years' ORDER BY id",
    "SELECT 'today'::timestamptz = date_trunc('day', now()), 'tomorrow'::timestamp = 'yesterday'::timestamp "
    "+ interval '2 days', 'now'::timestamptz = now()",
    # Types, as the catalog and clients see them.
    "SELECT pg_typeof(at), pg_typeof(atz), pg_typeof(extract(second FROM at)), pg_typeof(date_part('year', atz)), "
    "pg_typeof(date_trunc('day', at)), pg_typeof(day + interval '1 day') FROM events LIMIT 1",
    "SELECT format_type(1114, -1), format_type(1184, -1), 'timestamptz'::regtype, "
    "'timestamp without time zone'::regtype::oid, format_type(1185, -1)",
    "SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typname, t.typlen, t.typcategory "
    "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = 'events'::regclass "
    "AND a.attnum > 0 ORDER BY a.attnum",
    # Errors, with PostgreSQL's SQLSTATEs.
    "SELECT '2024-13-01'::timestamp",
    "SELECT '2024-01-01 25:00'::timestamp",
    "SELECT 'yesterdayish'::timestamp",
    "SELECT '2024-01-01 10:00 Mars/Olympus'::timestamptz",
    "SELECT '2024-01-01 10:00+16'::timestamptz",
    "SELECT '294277-01-01'::timestamp",
    "SELECT extract(fortnight FROM at) FROM events",
    "SELECT extract(timezone FROM at) FROM events",
    "SELECT date_trunc('fortnight', at) FROM events",
    "SELECT date_trunc('dow', at) FROM events",
    "SELECT at + interval '1 fortnight' FROM events",
    "SELECT 'infinity'::timestamp + interval '1 day', timestamp '294000-12-31' + interval '1000 years'",
    "SELECT sum(at) FROM events",
    "SET TIME ZONE 'Mars/Olympus'",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("sql", QUERIES)
def test_timestamps_answer_as_postgresql_in_every_zone(both, zone, sql):
    shoal, postgres = both
    statements = [f"SET TIME ZONE '{zone}'", "SHOW TimeZone", sql]
    assert (session_answers(shoal, statements, text_types=TEXT_TYPES) ==
            session_answers(postgres, statements, text_types=TEXT_TYPES))


def test_time_zone_settings_read_and_show_as_postgresql(both):
    shoal, postgres = both
    statements = []
    for zone in ["america/new_york", "UTC", "Etc/GMT+3", "5", "-3.5", "EST5EDT", "Asia/Kathmandu"]:
        # Each text its own: psycopg prepares a text run five times, and PostgreSQL's cached plan keeps the
        # TimeZone its constants were folded in (Shoal binds again).
        statements += [f"SET TIME ZONE '{zone}'", "SHOW TimeZone",
                       f"SELECT '2024-07-01 12:00+00'::timestamptz::text, '2024-01-01 12:00'::timestamptz::text, "
                       f"'{zone}' AS zone"]
    statements += ["SET timezone = 'Asia/Tokyo'", "SELECT current_setting('TimeZone')"]
    assert session_answers(shoal, statements) == session_answers(postgres, statements)


def wire_answers(conninfo, binary):
    """psycopg's datetime parameters, results read back in text or binary, and COPY both ways."""
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute("SET TIME ZONE 'America/New_York'")
        cursor = connection.cursor(binary=binary)
        seen = []
        naive = datetime.datetime(2024, 3, 10, 2, 30, 15, 250000)
        aware = datetime.datetime(2024, 7, 1, 12, 0, tzinfo=berlin)
        cursor.execute("SELECT %s, %s, %s::timestamptz, %s::date, %s::timestamp",
                       (naive, aware, naive, datetime.date(2000, 2, 29), "2024-01-05 10:11:12.5"))
        seen.append((cursor.fetchall(), [column.type_code for column in cursor.description]))
        cursor.execute("SELECT id, at, atz FROM events WHERE at = %s OR atz = %s ORDER BY id",
                       (datetime.datetime(2024, 1, 5, 10, 11, 12, 500000),
                        datetime.datetime(1999, 10, 31, 5, 30, tzinfo=datetime.timezone.utc)))
        seen.append(cursor.fetchall())
        cursor.execute("SELECT at::text, atz::text FROM events WHERE id = 6")
        seen.append(cursor.fetchall())
        cursor.execute("CREATE TABLE stamp_copy (at timestamp, atz timestamptz)")
        try:
            with cursor.copy("COPY stamp_copy FROM STDIN") as copy:
                copy.write("2024-01-05 10:11:12.5\t2024-03-10 02:30\n\\N\t2024-01-05 10:11:12+05:30\n"
                           "infinity\t-infinity\n")
            with cursor.copy("COPY stamp_copy FROM STDIN (FORMAT csv)") as copy:
                copy.write("1999-12-31 23:59:59.999999,1999-12-31 23:59:59.999999 UTC\n")
            if binary:
                with cursor.copy("COPY stamp_copy FROM STDIN (FORMAT binary)") as copy:
                    copy.set_types(["timestamp", "timestamptz"])
                    copy.write_row((naive, aware))
            cursor.execute("SELECT at::text, atz::text FROM stamp_copy ORDER BY at NULLS FIRST, atz")
            seen.append(cursor.fetchall())
            with cursor.copy("COPY (SELECT * FROM stamp_copy ORDER BY at NULLS FIRST, atz) TO STDOUT") as copy:
                seen.append(b"".join(bytes(block) for block in copy))
            if binary:
                with cursor.copy("COPY (SELECT * FROM stamp_copy ORDER BY at NULLS FIRST, atz) TO STDOUT "
                                 "(FORMAT binary)") as copy:
                    seen.append(b"".join(bytes(block) for block in copy))  # byte for byte, infinity too
            try:
                with cursor.copy("COPY stamp_copy FROM STDIN") as copy:
                    copy.write("2024-02-30 10:00\t\\N\n")
            except psycopg.Error as error:
                seen.append(error.sqlstate)
        finally:
            cursor.execute("DROP TABLE stamp_copy")
        return seen


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_timestamps_travel_the_wire_and_copy_as_on_postgresql(both, binary):
    shoal, postgres = both
    assert wire_answers(shoal, binary) == wire_answers(postgres, binary)


def test_a_prepared_statement_reads_the_clock_and_the_zone_of_each_run(both):
    """pgjdbc prepares a statement once and runs it many times: now() and the TimeZone are those of each run."""
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        connection.execute("PREPARE stamp AS SELECT now(), now()::text, '2024-07-01 12:00+00'::timestamptz::text")
        first = connection.execute("EXECUTE stamp").fetchone()
        connection.execute("SET TIME ZONE 'Asia/Kolkata'")
        second = connection.execute("EXECUTE stamp").fetchone()
    assert second[0] > first[0]
    assert first[2] == "2024-07-01 12:00:00+00" and second[2] == "2024-07-01 17:30:00+05:30"
    assert second[1].endswith("+05:30")


def test_workers_group_in_the_session_zone(both):
    """The session's TimeZone travels with the plan: the workers cast and truncate in it (a zone at +12:45/+13:45,
    far from any worker's own), and the groups they make merge as PostgreSQL's."""
    shoal, _ = both
    sql = ("SELECT date_trunc('day', atz)::text, count(*), min(atz::text) FROM events "
           "GROUP BY 1 ORDER BY 1 NULLS FIRST")
    with psycopg.connect(shoal, autocommit=True) as connection:
        connection.execute("SET TIME ZONE 'Pacific/Chatham'")
        rows = connection.execute(sql).fetchall()
    assert rows == answer_in_zone(both[1], sql, "Pacific/Chatham")


def answer_in_zone(conninfo, sql, zone):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(f"SET TIME ZONE '{zone}'")
        return connection.execute(sql).fetchall()


def test_arrays_of_timestamptz_show_in_the_session_zone(both):
    """An array of timestamptz prints its elements in the session's TimeZone, as PostgreSQL does."""
    shoal, postgres = both
    for sql in ["SELECT ARRAY[atz]::text FROM events ORDER BY atz", "SELECT array_agg(atz ORDER BY atz)::text FROM events",
                "SELECT '{2024-01-01}'::timestamptz[]::text, array_to_string(ARRAY[now(), NULL], '; ', '-') IS NOT NULL"]:
        statements = ["SET TIME ZONE 'Asia/Kolkata'", sql]
        assert session_answers(shoal, statements) == session_answers(postgres, statements), sql


def test_what_would_show_in_the_wrong_zone_is_refused(both):
    """Timestamps inside JSON would print without the session's TimeZone (PostgreSQL prints them in it): Shoal
    refuses them with 0A000 rather than answer wrongly."""
    shoal, _ = both
    for sql in ["SELECT json_build_object('t', at) FROM events", "SELECT json_build_object('t', now())"]:
        assert session_answers(shoal, ["SET TIME ZONE 'Asia/Kolkata'", sql])[1] == (sql, "error", "0A000"), sql

@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_timestamp_precision_rounds_parameters_and_copy_as_postgresql(both, binary):
    """A Django-style table with timestamp(0) and time(2) columns: psycopg's datetime parameters (text or
    binary) and COPY rows are rounded as PostgreSQL rounds them when they are stored."""
    values = [
        (1, datetime.datetime(2024, 3, 10, 2, 30, 0, 500000), datetime.time(23, 59, 59, 999000)),
        (2, datetime.datetime(1980, 1, 1, 0, 0, 0, 500000), datetime.time(12, 0, 0, 5000)),
        (3, datetime.datetime(2000, 1, 1, 0, 0, 0, 500000), datetime.time(0, 0, 0, 4999)),
    ]
    answers = []
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as connection, connection.cursor(binary=binary) as cursor:
            cursor.execute("DROP TABLE IF EXISTS stamped")
            cursor.execute("CREATE TABLE stamped (id integer, at timestamp(0), t time(2))")
            for row in values:
                cursor.execute("INSERT INTO stamped VALUES (%s, %s, %s)", row)
            with cursor.copy("COPY stamped FROM STDIN") as copy:
                copy.write("4\t2024-02-29 23:59:59.5\t10:00:00.125\n5\t1999-12-31 23:59:59.5\t10:00:00.135\n")
            cursor.execute("SELECT id, at, at::text, t::text FROM stamped ORDER BY id")  # 24:00:00 is no Python time
            answers.append(cursor.fetchall())
            cursor.execute("DROP TABLE stamped")
    assert answers[0] == answers[1]
