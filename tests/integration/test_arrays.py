"""Story: drivers and catalog queries use arrays: psycopg sends a Python list for `= ANY(%s)`, psql builds
`ARRAY[...]` and joins it with array_to_string, catalogs compare with `'{0}'`. Shoal's one-dimensional
arrays answer as PostgreSQL 15 does, in text and binary, errors included."""

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE array_items (id integer PRIMARY KEY, name varchar(20), price numeric(8,2))",
    "INSERT INTO array_items VALUES (1, 'bolt', 0.25), (2, 'nut', 0.10), (3, 'gear', 12.50), (4, NULL, NULL)",
]
DROP = ["DROP TABLE IF EXISTS array_items"]

QUERIES = [
    # Constructors, literals and their text output (quoting, NULL, empty strings, escapes).
    "SELECT ARRAY[1,2,3], ARRAY['a','b c',NULL,'',E'q\"\\\\'], ARRAY[true,false], ARRAY['NULL','null','x']",
    "SELECT '{1,2,3}'::int[], '{}'::text[], '{ a , \"b\" , NULL }'::text[], '{1,NULL}'::bigint[] = '{1,NULL}'",
    "SELECT '{\"a\\\\\"b\",\"c\\\\\\\\d\"}'::text[], ARRAY['2024-02-29'::date], ARRAY[1.5::float8, -2]",
    "SELECT ARRAY[]::int[], ARRAY[1,2]::text[], '{1,2}'::text[]::int[], ARRAY[1,2]::text, '{7}'::_int4",
    # Functions.
    "SELECT array_to_string(ARRAY[1,NULL,3], ','), array_to_string(ARRAY[1,NULL,3], ',', '*'), "
    "array_to_string(NULL::int[], ','), array_to_string(ARRAY['a','b'], NULL)",
    "SELECT array_length(ARRAY[1,2],1), array_length('{}'::int[],1), array_length(ARRAY[1],2), "
    "cardinality('{}'::int[]), cardinality(ARRAY[5,6]), array_upper(ARRAY[4,5,6],1), array_lower(ARRAY[4],1), "
    "array_upper('{}'::text[], 1)",
    "SELECT (ARRAY[10,20,30])[2], (ARRAY[10,20,30])[0], (ARRAY[10,20,30])[4], (ARRAY['x'])[NULL]",
    "SELECT ARRAY[1,2] || ARRAY[3], ARRAY[1] || 2, 0 || ARRAY[1], ARRAY['a'] || 'b', '{x}' || ARRAY['y'], "
    "ARRAY[1] || NULL::int[], NULL::int[] || ARRAY[2]",
    # Quantified comparisons, with PostgreSQL's NULL rules.
    "SELECT 2 = ANY(ARRAY[1,2]), 3 = ANY('{1,2}'), 3 = ANY('{1,NULL}'::int[]), 1 = ANY('{1,NULL}'::int[]), "
    "1 <> ALL('{1,2}'::int[]), NULL::int = ANY('{}'::int[]), NULL::int = ALL('{}'::int[]), 5 > ALL('{1,2}'::int[]), "
    "2 = ANY(NULL::int[])",
    "SELECT 'b' = ANY('{a,b}'::text[]), 'bolt' = ANY(ARRAY['bolt','nut']::varchar[]), 2.5 = ANY('{1,2.5}'::numeric[])",
    # Over a table's rows, as a filter, a grouping input and an output column.
    "SELECT name FROM array_items WHERE id = ANY('{1,3,9}') ORDER BY 1",
    "SELECT count(*) FROM array_items WHERE id <> ALL(ARRAY[1,2]) AND name IS NOT NULL",
    "SELECT ARRAY[id, id * 10], ARRAY[name], array_length(ARRAY[name, 'x'], 1) FROM array_items ORDER BY id",
    "SELECT ARRAY[id] = '{2}' AS two, count(*) FROM array_items GROUP BY 1 ORDER BY 1",
    "SELECT id FROM array_items WHERE price = ANY(ARRAY[0.25, 12.5]) ORDER BY 1",
    # current_schemas(), which pgjdbc's getSchemas calls.
    "SELECT current_schemas(true), current_schemas(false), current_schemas(NULL), "
    "'public' = ANY(current_schemas(false))",
    "SELECT replace((current_schemas(true))[1], 'pg_', 'pg_toast_'), replace('abcabc', 'b', 'XY'), "
    "replace('abc', '', 'z'), replace(NULL, 'a', 'b'), replace('aaa', 'aa', 'b'), replace('x', 'x', '')",
    # Errors.
    "SELECT '{1,a}'::int[]",
    "SELECT '{1,2'::int[]",
    "SELECT '1,2'::int[]",
    "SELECT ARRAY[1, 'x']",
    "SELECT ARRAY[]",
    "SELECT 1 = ANY(5)",
    "SELECT (5)[1]",
    "SELECT array_length(5, 1)",
    "SELECT ARRAY[1] || ARRAY['a'::text]",
]


# The shared Shoal cluster and the scratch PostgreSQL, each set up with SCHEMA.
both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_arrays_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def list_parameter_answers(conninfo, binary):
    """Python lists as parameters, as psycopg sends them, in text or binary; array results read back."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        cursor = connection.cursor(binary=binary)
        seen = []
        for ids in ([1, 3], [2], [], [1, None]):
            cursor.execute("SELECT id FROM array_items WHERE id = ANY(%s) ORDER BY id", (ids,))
            seen.append(cursor.fetchall())
        cursor.execute("SELECT name FROM array_items WHERE name = ANY(%s) ORDER BY 1", (["nut", "gear", "x"],))
        seen.append(cursor.fetchall())
        cursor.execute("SELECT %s::text[], %s::int[] || 4", (["a", None, "b c"], [1, 2]))
        seen.append(cursor.fetchall())
        cursor.execute("SELECT ARRAY[id, id + 1], ARRAY[name] FROM array_items ORDER BY id")
        seen.append(cursor.fetchall())
        return seen


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_list_parameters_and_array_results_as_on_postgresql(both, binary):
    shoal, postgres = both
    assert list_parameter_answers(shoal, binary) == list_parameter_answers(postgres, binary)



def copy_out(conninfo, sql):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        with connection.cursor() as cursor, cursor.copy(sql) as copy:
            return b"".join(bytes(data) for data in copy)


TAGGED = "CREATE TABLE tagged (id integer, tags text[], scores numeric(6,2)[], hits bigint[], seen date[])"
TAGGED_ROWS = [(1, ["red", "big top", None, ""], [1.5, None], [1, 2, 3], None),
               (2, [], [], [], []),
               (3, None, None, None, None),
               (4, ['quote"d', "back\\slash", "comma,", "{brace}"], [9999.99], [-9223372036854775808], None)]
TAGGED_TEXT = "SELECT id, tags::text, scores::text, hits::text, seen::text FROM tagged ORDER BY id"


def test_array_columns_copy_in_and_out_as_postgresql(both):
    """A table of tags and scores: psycopg writes lists into array columns, and COPY in text and CSV writes them
    out as PostgreSQL does and reads them back."""
    shoal, postgres = both
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute("DROP TABLE IF EXISTS tagged")
            connection.execute(TAGGED)
            for row in TAGGED_ROWS:
                connection.execute("INSERT INTO tagged VALUES (%s, %s, %s, %s, %s)", row)
    try:
        assert answer(shoal, TAGGED_TEXT) == answer(postgres, TAGGED_TEXT)
        for form in ("", " WITH (FORMAT csv)"):
            out = f"COPY (SELECT id, tags, scores, hits, seen FROM tagged ORDER BY id) TO STDOUT{form}"
            text = copy_out(shoal, out)
            assert text == copy_out(postgres, out), form
            with psycopg.connect(shoal, autocommit=True) as connection:
                connection.execute("DROP TABLE IF EXISTS tagged_copy")
                connection.execute(TAGGED.replace("tagged", "tagged_copy"))
                with connection.cursor() as cursor, cursor.copy(f"COPY tagged_copy FROM STDIN{form}") as copy:
                    copy.write(text)
            assert copy_out(shoal, out.replace("FROM tagged ", "FROM tagged_copy ")) == text
    finally:
        for conninfo in both:
            with psycopg.connect(conninfo, autocommit=True) as connection:
                connection.execute("DROP TABLE IF EXISTS tagged")
                connection.execute("DROP TABLE IF EXISTS tagged_copy")


def test_array_columns_outlive_a_restart(tmp_path):
    local = LocalCluster(tmp_path, workers=2).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute(TAGGED)
            for row in TAGGED_ROWS:
                connection.execute("INSERT INTO tagged VALUES (%s, %s, %s, %s, %s)", row)
            before = connection.execute(TAGGED_TEXT).fetchall()
        assert local.stop() == 0
        local = LocalCluster(tmp_path, workers=2).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute(TAGGED_TEXT).fetchall() == before
            assert connection.execute("SELECT id FROM tagged WHERE 'red' = ANY(tags)").fetchall() == [(1,)]
            assert connection.execute("SELECT id FROM tagged WHERE hits = '{}' OR tags IS NULL ORDER BY id").fetchall() \
                == [(2,), (3,)]
            assert connection.execute("SELECT tags FROM tagged WHERE id = 1").fetchone() == (["red", "big top", None, ""],)
    finally:
        local.kill()
