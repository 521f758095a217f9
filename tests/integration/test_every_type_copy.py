"""Story: a nightly export moves a table that holds every type issue 26 added (smallint, real, timestamp,
timestamptz, time, interval, uuid, bytea, json, jsonb and arrays of them) between PostgreSQL 15 and Shoal with COPY, in
text and in CSV. What Shoal writes out is byte for byte what PostgreSQL writes for the same rows, and after the
cluster restarts, COPY gives back the very same bytes."""

import io

import psycopg

from cluster import LocalCluster

COLUMNS = ("id integer, s smallint, r real, d double precision, ts timestamp, tz timestamptz, t time, "
           "iv interval, u uuid, b bytea, j json, jb jsonb, ia integer[], ta text[], na numeric(6,2)[], "
           "ra real[], da date[], tza timestamptz[], iva interval[], ua uuid[], ba bytea[]")

# Rows in PostgreSQL's COPY text format: every type's extremes, escapes and NULLs.
ROWS = "\n".join([
    "1\t32767\t3.4028235e+38\t1.7976931348623157e+308\t294246-12-31 23:59:59.999999\t2024-03-10 02:30:00+00"
    "\t24:00:00\t178956970 years 7 mons 2147483647 days 2562047788:00:54.775807"
    "\tffffffff-ffff-ffff-ffff-ffffffffffff\t\\\\x00ff5c\t{\"a\": [1, 2.50]}\t{\"b\": null, \"a\": \"\\\\u00e9\"}"
    "\t{1,NULL,-2147483648}\t{\"\",NULL,\"quote\\\\\"d\",\"tab\\\\there\"}\t{1.50,NULL}\t{Infinity,-0,1.1}"
    "\t{2024-02-29,0001-01-01}"
    "\t{\"2024-03-10 02:30:00+00\",infinity}\t{\"1 day\",-00:00:01,NULL}\t{ffffffff-ffff-ffff-ffff-ffffffffffff,NULL}"
    "\t" r'{"\\\\x00ff",NULL,"\\\\x"}',
    "2\t-32768\t-1e-45\t-4.9e-324\t4713-11-24 00:00:00 BC\t-infinity\t00:00:00\t-00:00:00.000001"
    "\t00000000-0000-0000-0000-000000000000\t\\\\x\t[]\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
    "3" + "\t\\N" * 20,
    "4\t0\tNaN\tNaN\tinfinity\tinfinity\t12:34:56.789\t1 mon -1 days +02:00:00"
    "\ta0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\t\\\\x0a0d\t\"caf\\\\u00e9\"\t100\t{7}\t{a,b}\t{9999.99}\t{NaN}"
    "\t{1970-01-01}\t{\"4713-11-24 00:00:00+00 BC\"}\t{\"-178956970 years -8 mons\"}"
    "\t{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}\t{abc}",
]) + "\n"


def load(conninfo):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute("SET TimeZone = 'UTC'")
        connection.execute("DROP TABLE IF EXISTS every_type")
        connection.execute(f"CREATE TABLE every_type ({COLUMNS})")
        with connection.cursor() as cursor, cursor.copy("COPY every_type FROM STDIN") as copy:
            copy.write(ROWS)


def copy_out(conninfo, form):
    buffer = io.BytesIO()
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute("SET TimeZone = 'UTC'")
        with connection.cursor() as cursor:
            sql = f"COPY (SELECT * FROM every_type ORDER BY id) TO STDOUT{form}"
            with cursor.copy(sql) as copy:
                for data in copy:
                    buffer.write(data)
    return buffer.getvalue()


def test_every_new_type_copies_as_postgresql_and_outlives_a_restart(postgres, tmp_path):
    load(postgres.conninfo())
    expected = {form: copy_out(postgres.conninfo(), form) for form in ("", " WITH (FORMAT csv)")}
    local = LocalCluster(tmp_path, workers=2).start()
    try:
        load(local.conninfo())
        for form, text in expected.items():
            assert copy_out(local.conninfo(), form) == text, form
        # What was read in CSV reads back the same.
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute(f"CREATE TABLE every_type_csv ({COLUMNS})")
            with connection.cursor() as cursor, cursor.copy("COPY every_type_csv FROM STDIN WITH (FORMAT csv)") as copy:
                copy.write(expected[" WITH (FORMAT csv)"])
            assert connection.execute(
                "SELECT count(*) FROM every_type a JOIN every_type_csv b ON a.id = b.id "
                "AND a.u IS NOT DISTINCT FROM b.u AND a.b IS NOT DISTINCT FROM b.b").fetchone() == (4,)
        assert local.stop() == 0
        local = LocalCluster(tmp_path, workers=2).start()
        for form, text in expected.items():
            assert copy_out(local.conninfo(), form) == text, f"after the restart: {form}"
    finally:
        local.kill()
        with psycopg.connect(postgres.conninfo(), autocommit=True) as connection:
            connection.execute("DROP TABLE IF EXISTS every_type")
