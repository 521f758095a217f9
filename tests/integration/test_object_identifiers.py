"""Story: catalog queries written for PostgreSQL name relations and types through the object identifier
types, as psql, psycopg and JDBC drivers do: `'orders'::regclass`, `c.oid::regclass::text`,
`to_regtype(%s)`. Shoal answers them as PostgreSQL 15 does, errors included. OIDs of user relations differ
between the two servers by design, so the queries compare names, not numbers."""

import psycopg
import pytest
from psycopg.types import TypeInfo

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE oid_parts (id integer PRIMARY KEY, name text)",
    'CREATE TABLE "Oid Mixed" (a integer)',
    "CREATE VIEW oid_view AS SELECT DISTINCT name FROM oid_parts",
]
DROP = ["DROP VIEW IF EXISTS oid_view", "DROP TABLE IF EXISTS oid_parts", 'DROP TABLE IF EXISTS "Oid Mixed"']

QUERIES = [
    # regclass: a name in, the name (qualified when not on the search path) out.
    "SELECT 'oid_parts'::regclass, 'public.oid_parts'::regclass::text, '\"Oid Mixed\"'::regclass, "
    "'OID_PARTS'::regclass::text, ' oid_view '::regclass::text",
    "SELECT 'pg_catalog.pg_class'::regclass::oid, 'pg_type'::regclass::oid, 'pg_class'::regclass = 1259",
    "SELECT c.relname, c.oid::regclass, c.oid::pg_catalog.regclass::pg_catalog.text FROM pg_class c "
    "WHERE c.relname IN ('oid_parts', 'oid_view', 'Oid Mixed', 'pg_class', 'columns') ORDER BY 1, 3",
    "SELECT c.relname FROM pg_class c WHERE c.oid = 'oid_parts'::regclass",
    "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = 'public.oid_parts'::regclass AND a.attnum > 0 "
    "ORDER BY a.attnum",
    "SELECT 'nosuch'::regclass",
    "SELECT 'public.nosuch'::regclass",
    "SELECT 'oid_parts'::regclass::integer > 16383",
    # regtype: SQL's type names in, format_type's names out.
    "SELECT 'integer'::regtype, 'int8'::regtype::text, 'character varying'::regtype, "
    "'pg_catalog.numeric'::regtype::oid, 'varchar(10)'::regtype, 'double precision'::regtype::oid, "
    "'bool'::regtype::text, 'char(3)'::regtype",
    "SELECT t.typname, t.oid::regtype, t.oid::regtype::text FROM pg_type t "
    "WHERE t.oid IN (16, 20, 23, 25, 701, 1042, 1043, 1082, 1700) ORDER BY 1",
    "SELECT 'hstore'::regtype",
    "SELECT 'int4 junk'::regtype",
    "SELECT 'regclass'::regtype::oid, 'oid'::regtype::oid",
    # regnamespace and regrole.
    "SELECT 'public'::regnamespace, 'pg_catalog'::regnamespace::oid, 'information_schema'::regnamespace::text",
    "SELECT n.nspname FROM pg_namespace n WHERE n.oid = 'public'::regnamespace",
    "SELECT 'nosuch'::regnamespace",
    "SELECT 'pg_database_owner'::regrole::text",
    "SELECT 'nosuch'::regrole",
    # OID 0, unknown OIDs, NULL, oid itself.
    "SELECT 0::regclass, 0::regtype, '-'::regclass::oid, NULL::regclass, 99999::regclass, 99999::regtype",
    "SELECT '12'::oid, 4000000000::oid, 23::oid::regtype",
    "SELECT 'abc'::oid",
    "SELECT 1.5::regclass",
    # to_regclass() and friends: NULL where the cast would fail.
    "SELECT to_regclass('oid_parts')::text, to_regclass('nosuch'), to_regtype('integer'), to_regtype('hstore'), "
    "to_regnamespace('public')::oid, to_regnamespace('nosuch'), to_regrole('nosuch'), to_regclass(NULL)",
    "SELECT to_regclass(1)",
]


# The shared Shoal cluster and the scratch PostgreSQL, each set up with SCHEMA.
both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_object_identifiers_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def parameter_answers(conninfo):
    """Names sent as parameters, as drivers send them: resolved once the value is known."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        seen = [connection.execute("SELECT %s::regclass::text, %s::regtype::text",
                                   ("oid_parts", "numeric")).fetchone()]
        for name in ("oid_parts", "nosuch"):
            seen.append(connection.execute("SELECT to_regclass(%s)::text", (name,)).fetchone())
        try:
            connection.execute("SELECT %s::regclass", ("nosuch",))
        except psycopg.Error as error:
            seen.append(error.sqlstate)
        # The prepared statement keeps resolving each execution's value anew.
        statement = "SELECT relname FROM pg_class WHERE oid = %s::regclass"
        for name in ("oid_parts", "oid_view", "oid_parts"):
            seen.append(connection.execute(statement, (name,), prepare=True).fetchone())
    return seen


def test_names_sent_as_parameters_resolve_as_on_postgresql(both):
    shoal, postgres = both
    assert parameter_answers(shoal) == parameter_answers(postgres)


def type_infos(conninfo):
    """psycopg's TypeInfo.fetch, which adapters use to find a type's OID (to_regtype with a parameter)."""
    with psycopg.connect(conninfo) as connection:
        found = []
        for name in ("text", "numeric", "date", "hstore"):
            info = TypeInfo.fetch(connection, name)
            found.append(None if info is None else (info.name, info.oid, info.regtype))
        return found


def test_psycopg_type_info_finds_types_as_on_postgresql(both):
    shoal, postgres = both
    assert type_infos(shoal) == type_infos(postgres)
