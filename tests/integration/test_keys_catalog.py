"""Story: tools find a table's primary key and UNIQUE constraints in the catalogs: sqlsmith and SQLAlchemy read
pg_constraint, psql's \\d reads pg_index and prints pg_get_indexdef() and pg_get_constraintdef(), DBeaver lists
indexes from pg_class, JDBC's getIndexInfo and ORMs read information_schema. Shoal shows its keys as PostgreSQL 15
shows them (OIDs differ, so queries compare names)."""

import pytest

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE key_orders (id bigint PRIMARY KEY, note text)",
    "CREATE TABLE key_lines (line integer, \"Order\" bigint, qty integer, PRIMARY KEY (\"Order\", line))",
    "CREATE TABLE key_none (a integer)",
    # Keys sharing the column the table is distributed by (region), one UNIQUE constraint named.
    "CREATE TABLE key_accounts (region integer, id integer, login text, seat smallint, PRIMARY KEY (region, id), "
    "UNIQUE (region, login), CONSTRAINT key_accounts_seat UNIQUE (seat, region))",
    "CREATE TABLE key_unique_only (code varchar(8) UNIQUE, note text)",
]
DROP = ["DROP TABLE IF EXISTS key_orders", "DROP TABLE IF EXISTS key_lines", "DROP TABLE IF EXISTS key_none",
        "DROP TABLE IF EXISTS key_accounts", "DROP TABLE IF EXISTS key_unique_only"]
TABLES = "('key_orders', 'key_lines', 'key_none', 'key_accounts', 'key_unique_only')"

QUERIES = [
    "SELECT c.conname, c.contype, c.condeferrable, c.condeferred, c.convalidated, t.relname, c.contypid, "
    "c.conparentid, c.confrelid, c.confupdtype, c.confdeltype, c.confmatchtype, c.conislocal, c.coninhcount, "
    "c.connoinherit, c.conkey, c.confkey, c.conpfeqop, c.conexclop, c.conbin, i.relname AS index "
    f"FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class i ON i.oid = c.conindid "
    f"WHERE t.relname IN {TABLES} ORDER BY 1",
    "SELECT ic.relname, t.relname, x.indnatts, x.indnkeyatts, x.indisunique, x.indnullsnotdistinct, x.indisprimary, "
    "x.indisexclusion, x.indimmediate, x.indisclustered, x.indisvalid, x.indcheckxmin, x.indisready, x.indislive, "
    "x.indisreplident, x.indexprs, x.indpred FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid "
    f"JOIN pg_class ic ON ic.oid = x.indexrelid WHERE t.relname IN {TABLES} ORDER BY 1",
    "SELECT c.relname, c.relkind, a.amname, c.relnatts, c.relhasindex, c.relpersistence, c.relreplident, "
    "n.nspname FROM pg_class c JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE c.relname LIKE 'key_%' ORDER BY 1",
    "SELECT c.relname, a.attname, a.attnum, a.attnotnull, a.attstorage, format_type(a.atttypid, a.atttypmod) "
    "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname LIKE 'key_%pkey' ORDER BY 1, 3",
    "SELECT c.relname, a.attname, a.attnum, a.attnotnull, format_type(a.atttypid, a.atttypmod) "
    "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
    "WHERE c.relname IN ('key_accounts_region_login_key', 'key_accounts_seat', 'key_unique_only_code_key') "
    "ORDER BY 1, 3",
    "SELECT pg_get_indexdef(x.indexrelid), pg_get_indexdef(x.indexrelid, 0, true), "
    "pg_get_indexdef(x.indexrelid, 1, false), pg_get_indexdef(x.indexrelid, 2, true), "
    "pg_get_indexdef(x.indexrelid, 3, false) FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid "
    f"WHERE t.relname IN {TABLES} ORDER BY 1",
    "SELECT conname, pg_get_constraintdef(c.oid), pg_get_constraintdef(c.oid, true) FROM pg_constraint c "
    f"JOIN pg_class t ON t.oid = c.conrelid WHERE t.relname IN {TABLES} ORDER BY 1",
    "SELECT pg_get_indexdef(0), pg_get_constraintdef(0), pg_get_indexdef(NULL), pg_get_constraintdef(NULL, true)",
    "SELECT 'key_orders_pkey'::regclass::text, pg_table_is_visible('key_lines_pkey'::regclass)",
    # sqlsmith's query for a table's constraints.
    "select conname from pg_class t join pg_constraint c on (t.oid = c.conrelid) where contype in ('f', 'u', 'p') "
    "and relnamespace = (select oid from pg_namespace where nspname = 'public') and relname = 'key_lines'",
    "SELECT a.attname FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid "
    "AND a.attnum = ANY(c.conkey) WHERE c.conname = 'key_lines_pkey' ORDER BY 1",
    "SELECT t.relname, x.indisprimary FROM pg_class t LEFT JOIN pg_index x ON x.indrelid = t.oid "
    f"WHERE t.relname IN {TABLES} ORDER BY 1, 2",
    "SELECT table_name, constraint_name, constraint_type FROM information_schema.table_constraints "
    f"WHERE table_name IN {TABLES} AND constraint_type = 'PRIMARY KEY' ORDER BY 1",
    "SELECT table_name, constraint_name, constraint_type, is_deferrable, initially_deferred, enforced, "
    "nulls_distinct FROM information_schema.table_constraints "
    f"WHERE table_name IN {TABLES} AND constraint_type IN ('PRIMARY KEY', 'UNIQUE') ORDER BY 1, 2",
    "SELECT constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint "
    f"FROM information_schema.key_column_usage WHERE table_name IN {TABLES} ORDER BY 1, 4",
    "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'u' AND conname LIKE 'key_%' "
    "ORDER BY 1",
    "SELECT 'key_accounts_seat'::regclass::text, 'key_unique_only_code_key'::regclass::text",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_keys_show_in_the_catalog_as_on_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)
