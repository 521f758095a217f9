"""Story: a schema from PostgreSQL declares SMALLINT columns (status codes, quantities), and catalog queries cast to
int2 (SQLAlchemy's `attnum > 0::SMALLINT`). Shoal stores, loads, computes, groups, joins and sends smallint as
PostgreSQL 15 does: its own arithmetic that overflows at 32767, int2 on the wire in text and binary, int2[] arrays."""

import psycopg
import pytest

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE small_items (id smallint PRIMARY KEY, qty int2, code integer, price numeric(6,2))",
    "INSERT INTO small_items VALUES (1, 5, 10, 1.50), (2, -32768, 20, 2.00), (3, 32767, 30, NULL), (4, NULL, 40, 9.99), "
    "(5, 5, 5, 0.10), (6, 0, 6, 6.00), (7, 12, 7, 7.77)",
]
DROP = ["DROP TABLE IF EXISTS small_items"]

QUERIES = [
    "SELECT * FROM small_items ORDER BY id",
    "SELECT id + qty, id * 2, qty / 2, qty % 7, -qty, id + code, qty + 1.5, qty * 1.5::float8 FROM small_items "
    "WHERE qty > -32768 AND qty < 32767 ORDER BY id",
    "SELECT qty + qty FROM small_items WHERE id = 3",
    "SELECT qty * 2 FROM small_items WHERE id = 2",
    "SELECT sum(qty), avg(qty), min(qty), max(qty), count(qty), sum(id * id) FROM small_items",
    "SELECT qty, count(*), array_agg(id ORDER BY id) FROM small_items GROUP BY qty ORDER BY qty NULLS FIRST",
    "SELECT a.id, b.id FROM small_items a JOIN small_items b ON a.qty = b.id ORDER BY 1, 2",
    "SELECT a.id, b.code FROM small_items a JOIN small_items b ON a.id = b.code ORDER BY 1",
    "SELECT id FROM small_items WHERE qty = code OR id = 5.0 OR qty IN (12, 70000) ORDER BY 1",
    "SELECT id::int2, qty::int, qty::bigint, qty::numeric(8,1), qty::text, code::smallint, '77'::int2, 2.5::int2, "
    "3.5::float8::smallint, true::int::int2 FROM small_items WHERE id = 1",
    "SELECT '{1,NULL,-3}'::int2[], ARRAY[1::int2, 2::int2], (ARRAY[id, qty])[2] FROM small_items WHERE id = 1",
    "SELECT id FROM small_items WHERE id = ANY('{2,4}'::smallint[]) ORDER BY 1",
    "SELECT pg_typeof(id), pg_typeof(id + id), pg_typeof(id + 1), pg_typeof(id / 2::int2) FROM small_items LIMIT 1",
    "SELECT pg_typeof(sum(id)), pg_typeof(avg(id)), pg_typeof(min(id)) FROM small_items",
    "SELECT format_type(21, -1), format_type(1005, -1), 'smallint'::regtype::oid, 21::regtype, "
    "'int2[]'::regtype",
    "SELECT DATE '2024-02-28' + id FROM small_items WHERE id = 2",
    # Errors.
    "SELECT 40000::smallint",
    "SELECT '40000'::int2",
    "SELECT 'x'::int2",
    "SELECT code::smallint * 1000 FROM small_items WHERE id = 4",
    "INSERT INTO small_items VALUES (8, 32768, 1, 1)",
    "SELECT 1e10::float8::int2",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_smallint_answers_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def wire_answers(conninfo, binary):
    """Parameters typed int2 and results read back, in text or binary, and COPY both ways."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        cursor = connection.cursor(binary=binary)
        seen = []
        cursor.execute("SELECT id, qty FROM small_items WHERE id = %s::int2 OR qty = %s ORDER BY id", (3, -32768))
        seen.append((cursor.fetchall(), [column.type_code for column in cursor.description]))
        cursor.execute("SELECT %s::int2[], %s::smallint", ([1, None, 2], -7))
        seen.append(cursor.fetchall())
        cursor.execute("CREATE TABLE small_copy (a smallint, b smallint)")
        try:
            with cursor.copy("COPY small_copy FROM STDIN") as copy:
                copy.write("1\t-2\n32767\t\\N\n-32768\t0\n")
            with cursor.copy("COPY small_copy (a) FROM STDIN") as copy:
                copy.write_row((12,))
            cursor.execute("SELECT * FROM small_copy ORDER BY a")
            seen.append(cursor.fetchall())
            with cursor.copy("COPY (SELECT * FROM small_copy ORDER BY a) TO STDOUT") as copy:
                seen.append(b"".join(bytes(block) for block in copy))
            try:
                with cursor.copy("COPY small_copy FROM STDIN") as copy:
                    copy.write("40000\t1\n")
            except psycopg.Error as error:
                seen.append(error.sqlstate)
        finally:
            cursor.execute("DROP TABLE small_copy")
        return seen


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_smallint_travels_the_wire_and_copy_as_on_postgresql(both, binary):
    shoal, postgres = both
    assert wire_answers(shoal, binary) == wire_answers(postgres, binary)
