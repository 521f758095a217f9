"""Story: tools build SQL text with the quoting functions (sqlsmith names every type with quote_ident and
format('%I.%I', ...), ORMs quote literals) and everyday SQL replaces substrings. Shoal answers as PostgreSQL 15
does, NULLs and errors included, also over a table's rows on the workers."""

import pytest

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE str_names (id integer PRIMARY KEY, name text, note varchar(20))",
    "INSERT INTO str_names VALUES (1, 'orders', 'plain'), (2, 'Mixed Case', 'it''s'), (3, 'select', NULL), "
    "(4, NULL, 'back\\slash'), (5, 'int', '')",
]
DROP = ["DROP TABLE IF EXISTS str_names"]

QUERIES = [
    "SELECT quote_literal('a''b'), quote_literal(E'a\\\\b'), quote_literal(NULL), quote_nullable(NULL), "
    "quote_nullable(42), quote_literal(2.50), quote_literal(DATE '2024-02-29')",
    "SELECT quote_ident('Foo'), quote_ident('select'), quote_ident('int'), quote_ident('a b'), quote_ident('left'), "
    "quote_ident('abort'), quote_ident('x_1'), quote_ident('1x'), quote_ident(''), quote_ident('a\"b')",
    "SELECT format('%s-%I-%L', 'x', 'Y z', 'it''s'), format('%2$s %1$s', 'a', 'b'), format('[%5s][%-5s]', 'ab', 'cd'), "
    "format('%s', NULL), format('%L', NULL), format('100%%'), format(NULL), format('%s %s', 1, 2.5)",
    "SELECT format('%1$s %s', 'a', 'b'), format('%*s|', 4, 'a'), format('%-*s|', 4, 'a'), format('%3$s', 1, 2, 3), "
    "format('%s', ARRAY[1, 2]), format('%I.%I', 'pg_catalog', 'int4')",
    "SELECT format('%I', NULL)",
    "SELECT format('%s')",
    "SELECT format('%x', 1)",
    "SELECT format('%0$s', 1)",
    "SELECT format('abc%')",
    "SELECT replace('abcabc', 'b', 'XY'), replace('abc', '', 'z'), replace(NULL, 'a', 'b'), replace('aaa', 'aa', 'b'), "
    "replace('x', 'x', '')",
    # Over rows, on the workers.
    "SELECT id, quote_ident(name), quote_literal(note), quote_nullable(note), format('%I=%L', name, note), "
    "replace(name, 'e', 'E') FROM str_names ORDER BY id",
    "SELECT count(*) FROM str_names WHERE quote_ident(name) <> name",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_string_functions_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)
