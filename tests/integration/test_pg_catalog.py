"""Story: a BI tool browses the schema the way DBeaver or Metabase do, through pg_catalog and
information_schema, and sees for the same tables and views what PostgreSQL 15 shows; a table keeps its OID
across a restart of the cluster, so that a tool's cached metadata stays valid."""

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import answer, both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE cat_customers (id integer PRIMARY KEY, name varchar(25) NOT NULL, code char(10), "
    "balance numeric(15,2), score double precision, joined date, note text, active boolean, visits bigint)",
    "CREATE TABLE cat_orders (order_id bigint NOT NULL, customer integer, total numeric(12,2))",
    # DISTINCT makes the view read-only in PostgreSQL too, as every Shoal view is.
    "CREATE VIEW cat_names AS SELECT DISTINCT name, code FROM cat_customers",
]
DROP = ["DROP VIEW IF EXISTS cat_names", "DROP TABLE IF EXISTS cat_customers", "DROP TABLE IF EXISTS cat_orders"]

# Each query's answer must be PostgreSQL's. Catalog names (the database) and OIDs differ by design;
# PostgreSQL's index relations (relkind 'i') are not in Shoal yet.
QUERIES = [
    "SELECT table_schema, table_name, table_type, is_insertable_into, is_typed FROM information_schema.tables "
    "WHERE table_schema = 'public' AND table_name LIKE 'cat\\_%' ORDER BY table_name",
    "SELECT table_name, column_name, ordinal_position, column_default, is_nullable, data_type, "
    "character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale, "
    "datetime_precision, udt_schema, udt_name, dtd_identifier, is_identity, is_generated, is_updatable "
    "FROM information_schema.columns WHERE table_schema = 'public' AND table_name LIKE 'cat\\_%' "
    "ORDER BY table_name, ordinal_position",
    "SELECT table_schema, table_name, check_option, is_updatable FROM information_schema.views "
    "WHERE table_schema = 'public' AND table_name LIKE 'cat\\_%'",
    "SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT LIKE 'pg\\_toast%' "
    "ORDER BY schema_name",
    "SELECT c.relname, c.relkind, c.relnatts, n.nspname, c.relpersistence, c.relispopulated "
    "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v') AND c.relname LIKE 'cat\\_%' ORDER BY c.relname",
    "SELECT c.relname, a.attname, a.attnum, t.typname, a.atttypmod, a.attnotnull, a.attlen, a.attbyval, "
    "a.attalign, a.attstorage, a.attisdropped, a.attcollation "
    "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid "
    "JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = 'public' AND a.attnum > 0 AND c.relkind IN ('r', 'v') AND c.relname LIKE 'cat\\_%' "
    "ORDER BY c.relname, a.attnum",
    "SELECT schemaname, tablename, hasrules, hastriggers, rowsecurity FROM pg_tables "
    "WHERE schemaname = 'public' AND tablename LIKE 'cat\\_%' ORDER BY tablename",
    "SELECT schemaname, viewname FROM pg_catalog.pg_views WHERE viewname LIKE 'cat\\_%'",
    # The regproc columns as OIDs: Shoal's hold the OIDs, not a regproc type that prints names.
    "SELECT oid, typname, typnamespace, typlen, typbyval, typtype, typcategory, typispreferred, typdelim, typarray, "
    "typinput::oid, typoutput::oid, typreceive::oid, typsend::oid, typmodin::oid, typmodout::oid, typalign, "
    "typstorage, typcollation "
    "FROM pg_type WHERE typname IN ('bool', 'int4', 'int8', 'float8', 'numeric', 'date', 'text', 'varchar', "
    "'bpchar') ORDER BY oid",
    "SELECT oid, nspname FROM pg_namespace WHERE nspname IN ('pg_catalog', 'public') ORDER BY oid",
    "SELECT relname, oid FROM pg_class WHERE relname IN ('pg_class', 'pg_attribute', 'pg_type', 'pg_namespace', "
    "'pg_database') ORDER BY oid",
    "SELECT amname, amtype FROM pg_am WHERE amname = 'heap'",
    "SELECT encoding, datallowconn, datconnlimit, datistemplate FROM pg_database WHERE datname = current_database()",
    "SELECT c.relname, pg_catalog.pg_table_is_visible(c.oid) FROM pg_class c "
    "WHERE c.relname LIKE 'cat\\_%' AND c.relkind IN ('r', 'v') ORDER BY 1",
    "SELECT pg_table_is_visible(0), pg_table_is_visible(NULL), pg_table_is_visible(1259)",
    "SELECT pg_get_userbyid(123456), pg_get_userbyid(NULL)",
    "SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'public'",
    "SELECT c.relname, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
    "JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname LIKE 'cat\\_%' AND c.relkind IN ('r', 'v') "
    "AND a.attnum > 0 ORDER BY 1, a.attnum",
    "SELECT format_type(1042, NULL), format_type(1042, -1), format_type(1043, 3), format_type(1700, -1), "
    "format_type(1700, 2), format_type(99999, NULL), format_type(NULL, 1), format_type(23, 5), format_type(16, NULL)",
    "SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()",
    "SELECT pg_encoding_to_char(0), pg_encoding_to_char(999), pg_encoding_to_char(NULL)",
    "SELECT table_schema, table_name, constraint_name, constraint_type, is_deferrable, initially_deferred, enforced, "
    "nulls_distinct FROM information_schema.table_constraints WHERE table_name LIKE 'cat\\_%' "
    "AND constraint_type <> 'CHECK' ORDER BY 2, 3",
    # NOT NULL columns are CHECK constraints named after OIDs, which differ: compared by count.
    "SELECT table_name, constraint_type, count(*) FROM information_schema.table_constraints "
    "WHERE table_name LIKE 'cat\\_%' GROUP BY 1, 2 ORDER BY 1, 2",
    "SELECT table_name, constraint_name, column_name, ordinal_position, position_in_unique_constraint "
    "FROM information_schema.key_column_usage WHERE table_name LIKE 'cat\\_%' ORDER BY 1, 4",
    "SELECT rolname, rolsuper, rolinherit, rolcanlogin, rolconnlimit, rolpassword, oid FROM pg_roles "
    "WHERE rolname = 'pg_database_owner'",
    # Privileges, for a role that owns everything (PostgreSQL's superuser; every Shoal session until roles).
    "SELECT has_table_privilege('cat_customers', 'SELECT'), has_table_privilege('public.cat_customers', "
    "'select, insert'), has_table_privilege('cat_names', 'SELECT WITH GRANT OPTION'), "
    "has_table_privilege(current_user, 'cat_orders', 'UPDATE'), has_table_privilege('pg_catalog.pg_class', 'SELECT')",
    "SELECT has_table_privilege('nosuch', 'SELECT')",
    "SELECT has_table_privilege('cat_customers', 'FLY')",
    "SELECT has_table_privilege('nosuchuser', 'cat_customers', 'SELECT')",
    "SELECT has_table_privilege(NULL, 'SELECT'), has_table_privilege('cat_customers', NULL), "
    "has_table_privilege(999999, 'SELECT')",
    "SELECT c.relname, has_table_privilege(c.oid, 'SELECT, UPDATE') FROM pg_class c "
    "WHERE c.relname LIKE 'cat\\_%' AND c.relkind IN ('r', 'v') ORDER BY 1",
    "SELECT current_setting(1)",
    "SELECT has_table_privilege(1.5, 'SELECT')",
    "SELECT has_table_privilege('cat_customers', 7)",
    "SELECT has_schema_privilege('public', 'USAGE'), has_schema_privilege('public', 'create'), "
    "has_schema_privilege('information_schema', 'USAGE')",
    "SELECT has_schema_privilege('nosuch', 'USAGE')",
    "SELECT has_schema_privilege('public', 'SELECT')",
    "SELECT n.nspname, has_schema_privilege(n.oid, 'USAGE') FROM pg_namespace n "
    "WHERE n.nspname IN ('public', 'pg_catalog') ORDER BY 1",
    "SELECT has_database_privilege(current_database(), 'CONNECT'), "
    "has_database_privilege(current_database(), 'create, temp')",
    "SELECT has_database_privilege('nosuch', 'CONNECT')",
    "SELECT current_setting('DateStyle'), current_setting('nosuch', true), current_setting(NULL), "
    "current_setting('client_encoding', false)",
    "SELECT current_setting('nosuch')",
    # Columns named with their relation's schema, as SQLAlchemy names every catalog column.
    "SELECT pg_catalog.pg_class.relname, pg_catalog.pg_namespace.nspname FROM pg_catalog.pg_class "
    "JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace "
    "WHERE pg_catalog.pg_class.relkind = ANY (ARRAY['r', 'v']) AND pg_catalog.pg_class.relname LIKE 'cat/_%' "
    "ESCAPE '/' AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) ORDER BY 1",
    "SELECT public.cat_orders.order_id FROM public.cat_orders",
    "SELECT public.cat_orders.nosuch FROM cat_orders",
    "SELECT pg_catalog.c.relname FROM pg_class c",
    "SELECT other.cat_orders.order_id FROM cat_orders",
    "SELECT postgres.public.cat_orders.order_id FROM cat_orders",
    # Tablespaces, collations, and the relations of what Shoal has none of (their columns must match).
    "SELECT * FROM pg_tablespace ORDER BY oid",
    "SELECT oid, collname, collnamespace, collowner, collprovider, collisdeterministic, collencoding, collcollate, "
    "collctype, colliculocale, collversion FROM pg_collation "
    "WHERE collname IN ('default', 'C', 'POSIX', 'ucs_basic') ORDER BY oid",
    "SELECT * FROM pg_attrdef WHERE false",
    "SELECT count(*) FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid WHERE c.relname LIKE 'cat\\_%'",
    "SELECT * FROM pg_inherits",
    "SELECT * FROM pg_matviews",
    "SELECT * FROM pg_extension WHERE extname <> 'plpgsql'",
    "SELECT * FROM pg_enum",
    "SELECT * FROM pg_auth_members WHERE roleid >= 16384 OR member >= 16384",
    "SELECT * FROM pg_sequence WHERE false",
    # pg_settings, for settings whose facts and defaults Shoal shares with PostgreSQL 15.
    "SELECT name, setting, unit, category, short_desc, extra_desc, context, vartype, min_val, max_val, "
    "enumvals IS NULL, boot_val, reset_val, sourcefile, sourceline, pending_restart FROM pg_settings "
    "WHERE name IN ('statement_timeout', 'lock_timeout', 'extra_float_digits', 'IntervalStyle', 'bytea_output', "
    "'client_min_messages', 'geqo', 'jit', 'search_path', 'standard_conforming_strings', "
    "'default_transaction_isolation', 'max_identifier_length', 'integer_datetimes') ORDER BY name",
    "SELECT count(*) FROM pg_settings WHERE name IN ('is_superuser', 'session_authorization')",
    # pg_get_viewdef() gives what pg_views.definition shows (PostgreSQL deparses it; Shoal keeps it as written),
    # and NULL for what is no view.
    "SELECT pg_get_viewdef('cat_names'::regclass) = v.definition, pg_get_viewdef('cat_names', true) = v.definition, "
    "pg_get_viewdef(c.oid) = v.definition FROM pg_views v JOIN pg_class c ON c.relname = v.viewname "
    "WHERE v.viewname = 'cat_names'",
    "SELECT pg_get_viewdef(0) IS NULL, pg_get_viewdef('cat_customers'::regclass) IS NULL, "
    "pg_get_viewdef('pg_class'::regclass) IS NULL, pg_get_viewdef(NULL::oid) IS NULL",
    "SELECT pg_get_viewdef('nosuch')",
    "SELECT count(*) FROM tables",
    "SELECT count(*) FROM information_schema.nosuch",
    "SELECT count(*) FROM pg_catalog.nosuch",
]


# The shared Shoal cluster and the scratch PostgreSQL, each set up with SCHEMA.
both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_the_catalog_answers_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def test_oids_tie_the_catalog_together(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        table_oid, namespace = connection.execute(
            "SELECT oid, relnamespace FROM pg_class WHERE relname = 'cat_customers'").fetchone()
        assert table_oid >= 16384 and namespace == 2200
        attributes = connection.execute(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = %s", (table_oid,)).fetchone()[0]
        assert attributes == 9
        # Shoal's own views live in pg_catalog, found unqualified as before.
        assert connection.execute("SELECT count(*) FROM pg_catalog.shoal_nodes").fetchone()[0] >= 2
        assert connection.execute(
            "SELECT table_schema FROM information_schema.tables WHERE table_name = 'shoal_nodes'").fetchone() == (
                "pg_catalog",)
        # CREATE OR REPLACE keeps the view's OID, as in PostgreSQL; DROP and CREATE gives a table a new one.
        view_oid = connection.execute("SELECT oid FROM pg_class WHERE relname = 'cat_names'").fetchone()[0]
        connection.execute("CREATE OR REPLACE VIEW cat_names AS SELECT DISTINCT name, code FROM cat_customers")
        assert connection.execute("SELECT oid FROM pg_class WHERE relname = 'cat_names'").fetchone()[0] == view_oid
        assert view_oid != table_oid


def test_a_relation_keeps_its_oid_across_a_restart(tmp_path):
    local = LocalCluster(tmp_path, workers=1).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute("CREATE TABLE kept (a integer)")
            connection.execute("CREATE VIEW kept_view AS SELECT a FROM kept")
            before = connection.execute(
                "SELECT relname, oid FROM pg_class WHERE relname LIKE 'kept%' ORDER BY 1").fetchall()
        assert local.stop() == 0
        local = LocalCluster(tmp_path, workers=1).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            after = connection.execute(
                "SELECT relname, oid FROM pg_class WHERE relname LIKE 'kept%' ORDER BY 1").fetchall()
            columns = connection.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'kept_view'"
            ).fetchall()
        assert len(before) == 2 and after == before
        assert columns == [("a", "integer")]
    finally:
        local.kill()


def settings_in_a_session(conninfo):
    """What pg_settings says of a setting as a session sets and resets it, and of one the client set."""
    statements = [
        "SELECT setting, source, reset_val FROM pg_settings WHERE name IN ('statement_timeout', 'application_name') "
        "ORDER BY name",
        "SET statement_timeout = '5s'",
        "SET application_name = 'report'",
        "SELECT setting, unit, source, reset_val FROM pg_settings WHERE name IN ('statement_timeout', "
        "'application_name') ORDER BY name",
        "RESET ALL",
        "SELECT setting, source, reset_val FROM pg_settings WHERE name IN ('statement_timeout', 'application_name') "
        "ORDER BY name",
    ]
    return session_answers(conninfo + " application_name=bi-tool", statements)


def test_pg_settings_follow_the_session_as_on_postgresql(both):
    shoal, postgres = both
    assert settings_in_a_session(shoal) == settings_in_a_session(postgres)
