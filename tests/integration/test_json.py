"""Story: SQLAlchemy reflects a table's columns with a query that builds each identity column's options with
json_build_object, and a dashboard builds JSON from a table's rows. Shoal answers json_build_object and the json
type (text holding one valid JSON value, checked as it enters) as PostgreSQL 15 does, over rows spread across
two workers; a table keeps json and jsonb columns (types_json.test has their operators)."""

import pytest

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE json_items (id integer PRIMARY KEY, name varchar(20), flag boolean, price numeric(8,2), "
    "ratio double precision, day date, code char(3))",
    "INSERT INTO json_items VALUES (1, 'bolt', true, 1.50, 0.25, '2024-02-29', 'ab'), "
    "(2, 'say \"hi\"\\\\', false, NULL, '1e300', NULL, NULL), (3, E'tab\\there\\nline', NULL, 10.00, 'NaN', "
    "'1999-12-31', 'xyz'), (4, NULL, true, -0.01, '-Infinity', '2000-01-01', 'q')",
]
DROP = ["DROP TABLE IF EXISTS json_items"]

QUERIES = [
    "SELECT id, json_build_object('id', id, 'name', name, 'flag', flag, 'price', price, 'ratio', ratio, 'day', day, "
    "'code', code)::text FROM json_items ORDER BY id",
    "SELECT json_build_object('ids', array_agg(id ORDER BY id), 'n', count(*))::text FROM json_items",
    "SELECT json_build_object()::text, json_build_object('a', NULL)::text, json_build_object(1, 2, true, 'x')::text",
    "SELECT json_build_object('nested', json_build_object('k', ARRAY['x', NULL]), 'raw', '[1, 2 ]'::json)::text",
    "SELECT pg_typeof(json_build_object('a', 1)), pg_typeof('{}'::json), format_type(114, -1), 'json'::regtype::oid",
    "SELECT '{\"a\": [1, 2.5, \"x\", null, true]}'::json::text, ' 3 '::json::text, '\"s\"'::json::text",
    "SELECT name::json FROM json_items WHERE id = 1",
    "SELECT '{a}'::json",
    "SELECT '{\"a\": 1'::json",
    "SELECT ''::json",
    "SELECT '{}'::json = '{}'::json",
    "SELECT 1::json",
    "SELECT json_build_object('a')",
    "SELECT json_build_object(NULL, 1)",
    "SELECT json_build_object(ARRAY[1], 2)",
    "SELECT json_build_object('1'::json, 2)",
    "SELECT json_build_object(day, 1, price, 2, ratio, 3, flag, 4)::text FROM json_items WHERE id = 1",
    "SELECT json_build_object(name, id)::text FROM json_items ORDER BY id",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_json_answers_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def test_json_columns_hold_documents_as_postgresql(both):
    statements = ["DROP TABLE IF EXISTS json_docs", "CREATE TABLE json_docs (id integer, doc json, body jsonb)",
                  "INSERT INTO json_docs VALUES (1, '{\"id\": 1, \"name\": \"bolt\"}', '{\"name\": \"bolt\", \"id\": 1}'), "
                  "(2, ' [1, 2.50] ', '[1, 2.50, {\"b\": 1, \"a\": null}]'), (3, NULL, 'null'), "
                  "(4, '\"t\\u00e9\"', '\"t\\u00e9\"')"]
    answers = []
    for conninfo in both:
        for statement in statements:
            assert answer(conninfo, statement)[0] != "error", statement
        answers.append(answer(conninfo, "SELECT id, doc::text, body::text, body ->> 'name' FROM json_docs ORDER BY id"))
        answer(conninfo, "DROP TABLE json_docs")
    assert answers[0] == answers[1]
