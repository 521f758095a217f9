"""Story: an ETL job cleans customer names with trim and initcap, pads codes with lpad, cuts e-mail addresses
with split_part and regexp_replace, hashes keys with md5 and filters with ILIKE. Shoal's string functions
answer as PostgreSQL 15's: characters (not bytes) for lengths and positions, the same NULL rules (concat
skips NULLs, the rest return NULL), Unicode case mapping as under C.UTF-8, and the same errors."""

import pytest

from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE people (id integer, name text, email varchar(60), code char(6), n integer, b bigint)",
    "INSERT INTO people VALUES "
    "(1, '  ada lovelace ', 'ada@example.com', 'A1', 5, 255), "
    "(2, 'ÉMILE zola', 'emile.zola@mail.fr', 'B22', -3, -1), "
    "(3, '', '', '', 0, 0), "
    "(4, NULL, NULL, NULL, NULL, NULL), "
    "(5, 'xx--yy--zz', 'a@b@c', 'C333', 12, 9223372036854775807), "
    "(6, 'straße ñandú', 'ñ@ü.de', 'D4444', 1, 4096)",
]
DROP = ["DROP TABLE IF EXISTS people"]

QUERIES = [
    "SELECT id, concat(name, '|', n, '|', b), concat_ws('-', name, n, NULL, code), concat(NULL, NULL), "
    "concat(true, 1.50, false) FROM people ORDER BY id",
    "SELECT id, lpad(code, 8, '*'), rpad(code, 8, 'ab'), lpad(name, 4), rpad(name, 3), lpad(code, n), "
    "rpad('x', 5, '') FROM people ORDER BY id",
    "SELECT id, btrim(name), ltrim(name), rtrim(name), btrim(name, ' a'), trim(both 'x' from name), "
    "trim(leading from name), trim(trailing ' e' from name), trim(name) FROM people ORDER BY id",
    "SELECT id, split_part(email, '@', 1), split_part(email, '@', 2), split_part(email, '@', -1), "
    "split_part(email, '@', 3), split_part(name, '--', 2), split_part(name, '', 1) FROM people ORDER BY id",
    "SELECT id, strpos(email, '@'), position('o' in name), strpos(name, ''), strpos(name, 'ñ') FROM people "
    "ORDER BY id",
    "SELECT id, initcap(name), upper(name), lower(name), reverse(name), md5(name), repeat(code, 2), "
    "repeat(code, -1) FROM people ORDER BY id",
    "SELECT id, starts_with(email, 'a'), left(name, 3), right(name, 3), left(name, -3), right(name, -3), "
    "left(name, n), ascii(name), ascii(email) FROM people ORDER BY id",
    "SELECT id, to_hex(n), to_hex(b), chr(n + 64) FROM people WHERE n > 0 ORDER BY id",
    "SELECT to_hex(-1), to_hex(-1::bigint), to_hex(0), chr(233), chr(8364), chr(128512), ascii('€')",
    "SELECT id, regexp_replace(email, '@.*$', ''), regexp_replace(name, '[aeiou]', '_', 'g'), "
    "regexp_replace(name, '(\\w+) (\\w+)', '\\2, \\1'), regexp_replace(email, 'A', 'x', 'gi'), "
    "regexp_replace(name, 'x*', '.', 'g') FROM people ORDER BY id",
    "SELECT id, regexp_match(email, '(.*)@(.*)'), regexp_match(email, '\\.'), regexp_match(name, '(x)?(-+)'), "
    "(regexp_match(email, '@(.*)'))[1] FROM people ORDER BY id",
    "SELECT regexp_replace('abcabc', 'b', '[\\&\\1\\\\\\q]', 'g'), regexp_replace('aaa', 'a*', 'X', 'g'), "
    "regexp_replace('abc', '', '-', 'g'), regexp_replace('a.b.c', '.', '!'), "
    "regexp_replace(E'one\\ntwo', '^t', 'T', 'gn'), regexp_replace(E'one\\ntwo', '^t', 'T', 'g')",
    "SELECT id FROM people WHERE name ILIKE '%ZOLA%' OR email ILIKE 'ADA@%' OR name ILIKE 'straSSe%' ORDER BY id",
    "SELECT id, name NOT ILIKE '%É%', name ILIKE '%é%', code ILIKE 'c_33' FROM people ORDER BY id",
    "SELECT 'A_B' ILIKE 'a#_b' ESCAPE '#', 'AXB' ILIKE 'a#_b' ESCAPE '#', 'A%' NOT ILIKE 'a!%' ESCAPE '!'",
    "SELECT split_part(email, '@', 2) AS domain, count(*), string_agg(initcap(name), ', ' ORDER BY id) "
    "FROM people GROUP BY 1 ORDER BY 1",
    "SELECT pg_typeof(strpos('a', 'b')), pg_typeof(lpad('a', 2)), pg_typeof(regexp_match('a', 'a')), "
    "pg_typeof(starts_with('a', 'b')), pg_typeof(concat(1)), pg_typeof(ascii('a'))",
    # Errors, each PostgreSQL's.
    "SELECT split_part(email, '@', 0) FROM people WHERE id = 1",
    "SELECT chr(0)",
    "SELECT chr(-1)",
    "SELECT chr(1114112)",
    "SELECT chr(55296)",
    "SELECT repeat('x', 2000000000)",
    "SELECT lpad('ab', 300000000)",
    "SELECT regexp_replace('abc', 'b', 'x', 'z')",
    "SELECT regexp_match('abc', 'b', 'g')",
    "SELECT regexp_replace('abc', '(', 'x')",
    "SELECT lpad(123, 5)",
    "SELECT lpad('a', 5::bigint)",
    "SELECT concat()",
    "SELECT left(name, 1.5) FROM people",
    "SELECT 1 ILIKE 'x'",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_string_library_answers_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])
