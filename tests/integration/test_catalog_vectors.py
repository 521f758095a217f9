"""Story: drivers read which columns make a key from pg_index's vectors: SQLAlchemy unnests indkey beside
generate_subscripts(indkey, 1), psql and JDBC test attnum = ANY(indkey) and read indkey[0]. Shoal's int2vector and
oidvector columns, and the pg_opclass rows they name, answer as PostgreSQL 15's do: subscripts from 0, text form
"1 2", btree operator classes and collations per key column."""

import pytest

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE vec_keys (a varchar(5), b char(2), c text, d integer, e bigint, f date, g numeric(5,1), "
    "h smallint, i boolean, j double precision, PRIMARY KEY (a, b, c, d))",
    "CREATE TABLE vec_wide (e bigint, f date, g numeric(5,1), h smallint, i boolean, j double precision, "
    "PRIMARY KEY (j, i, h, g, f, e))",
]
DROP = ["DROP TABLE IF EXISTS vec_keys", "DROP TABLE IF EXISTS vec_wide"]

KEYS = "indrelid IN ('vec_keys'::regclass, 'vec_wide'::regclass)"

QUERIES = [
    f"SELECT indrelid::regclass::text, indkey, indcollation, indclass, indoption, indnatts FROM pg_index "
    f"WHERE {KEYS} ORDER BY 1",
    f"SELECT indkey[0], indkey[1], indkey[5], indkey[6], indkey[-1], array_lower(indkey, 1), array_upper(indkey, 1), "
    f"array_length(indkey, 1), cardinality(indclass) FROM pg_index WHERE {KEYS} ORDER BY 1",
    f"SELECT indrelid::regclass::text, unnest(indkey) AS attnum, generate_subscripts(indkey, 1) AS ord, "
    f"unnest(indclass) FROM pg_index WHERE {KEYS} ORDER BY 1, 3",
    f"SELECT c.relname, a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
    f"JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.{KEYS} ORDER BY 1, 2",
    "SELECT '1 2  3'::int2vector, ' 7 '::int2vector, ''::int2vector, '23 1043'::oidvector, "
    "'1 2'::int2vector = '1 2'::int2vector, ('4 5'::int2vector)[1], 5 = ANY('4 5'::int2vector)",
    "SELECT pg_typeof('1'::int2vector), pg_typeof('1'::oidvector), format_type(22, -1), format_type(30, NULL), "
    "'int2vector'::regtype::oid, 30::regtype",
    "SELECT typname, typcategory, typelem, typlen FROM pg_type WHERE oid IN (22, 30) ORDER BY 1",
    # The operator classes indclass names, as pg_opclass lists them.
    f"SELECT o.* FROM pg_opclass o WHERE o.oid IN (SELECT unnest(indclass) FROM pg_index WHERE {KEYS}) ORDER BY 1",
    f"SELECT i.indrelid::regclass::text, o.opcname, o.opcdefault, t.typname FROM pg_index i "
    f"JOIN pg_opclass o ON o.oid = ANY(i.indclass) JOIN pg_type t ON t.oid = o.opcintype WHERE i.{KEYS} "
    f"ORDER BY 1, 2",
    # Errors.
    "SELECT '1 x'::int2vector",
    "SELECT '1 99999'::int2vector",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_catalog_vectors_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


@pytest.mark.parametrize("sql", [
    "SELECT '1 2'::int2vector::int2[], ('1 2'::int2vector::int2[])[0], array_upper('1 2'::int2vector::int2[], 1)",
    "SELECT array_lower('7'::int2vector::int2[], 1), cardinality('7 8 9'::int2vector::int2[])",
    "SELECT ''::int2vector::int2[], array_upper(''::int2vector::int2[], 1)",
    "SELECT x FROM unnest('5 6'::oidvector::oid[]) x ORDER BY 1",
])
def test_a_vector_cast_to_an_array_keeps_its_subscripts_from_0(both, sql):
    """PostgreSQL's cast keeps the first subscript 0 ([0:1]={1,2}), as psql's \\d reads pg_publication_rel.prattrs."""
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def test_an_array_from_a_vector_does_not_mix_with_arrays_from_1(both):
    """Shoal keeps the first subscript in the type: such an array neither compares with nor casts to one whose
    subscripts start at 1 (PostgreSQL compares their bounds too)."""
    shoal, _ = both
    assert answer(shoal, "SELECT '1 2'::int2vector::int2[] = ARRAY[1, 2]::int2[]")[0:2] == ("error", "42883")
    assert answer(shoal, "SELECT '1 2'::int2vector::int4[]") == ("error", "42846")