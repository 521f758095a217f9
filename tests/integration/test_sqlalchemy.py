"""Story: an analyst's notebook connects with SQLAlchemy 2 (psycopg dialect), browses the schema with
inspect(), reads a query into pandas and appends a DataFrame to a table, and gets what PostgreSQL 15 gives
for the same tables: schema, table and view names, columns, keys, indexes and comments as inspect() reflects
them, and pandas' reads and appends."""

import datetime
import decimal

import pandas
import pytest
from sqlalchemy import create_engine, inspect, text

from postgres_oracle import set_up_both

SETUP = [
    "DROP VIEW IF EXISTS sa_big_orders", "DROP TABLE IF EXISTS sa_orders", "DROP TABLE IF EXISTS sa_customers",
    "DROP TABLE IF EXISTS sa_accounts",
    "DROP SCHEMA IF EXISTS sa_staging CASCADE",
    "CREATE TABLE sa_customers (c_region char(2), c_name text, c_since date, c_id integer, "
    "PRIMARY KEY (c_name, c_region, c_id))",
    "CREATE TABLE sa_orders (o_id bigint PRIMARY KEY, o_customer varchar(25) NOT NULL, o_total numeric(12,2), "
    "o_date date)",
    "INSERT INTO sa_orders VALUES (1, 'alice', 120.50, '2024-01-05'), (2, 'bob', 80.00, '2024-01-06'), "
    "(3, 'carol', NULL, NULL)",
    "CREATE VIEW sa_big_orders AS SELECT o_id, o_total FROM sa_orders WHERE o_total > 100",
    "CREATE TABLE sa_accounts (a_id integer PRIMARY KEY, a_login varchar(20), a_email text, "
    "UNIQUE (a_id, a_login), CONSTRAINT sa_accounts_email UNIQUE (a_email, a_id))",
    "COMMENT ON TABLE sa_orders IS 'Orders from the web shop'",
    # A schema of the analyst's own, with a table of the same name as public's.
    "CREATE SCHEMA sa_staging",
    "CREATE TABLE sa_staging.sa_orders (load_id integer PRIMARY KEY, note varchar(20))",
    "CREATE VIEW sa_staging.sa_notes AS SELECT note FROM sa_staging.sa_orders",
]


@pytest.fixture(scope="module")
def engines(cluster, postgres):
    set_up_both(cluster, postgres, SETUP)
    shoal = create_engine(f"postgresql+psycopg://postgres@127.0.0.1:{cluster.port}/postgres")
    oracle = create_engine(f"postgresql+psycopg://postgres@/postgres?host={postgres.directory}&port={postgres.port}")
    yield shoal, oracle
    with shoal.connect() as connection:
        connection.execute(text("DROP SCHEMA sa_staging CASCADE"))
        connection.commit()
    shoal.dispose()
    oracle.dispose()


def browse(engine):
    """What a schema browser built on SQLAlchemy asks for on connect."""
    with engine.connect() as connection:
        one = connection.execute(text("SELECT 1 + 1")).scalar()
    inspector = inspect(engine)
    return {
        "one": one,
        "schemas": inspector.get_schema_names(),
        # Without ORDER BY in SQLAlchemy's query, both list in their catalog's order.
        "tables": sorted(name for name in inspector.get_table_names() if name.startswith("sa_")),
        "views": sorted(name for name in inspector.get_view_names() if name.startswith("sa_")),
        "has_table": (inspector.has_table("sa_orders"), inspector.has_table("sa_nosuch")),
        "comment": inspector.get_table_comment("sa_orders"),
    }


def test_sqlalchemy_connects_and_browses_as_on_postgresql(engines):
    shoal, oracle = engines
    assert browse(shoal) == browse(oracle)


def test_sqlalchemy_reflects_columns_as_on_postgresql(engines):
    """get_columns builds each identity column's options with json_build_object (Shoal has no identity
    columns: NULL) and reads defaults, comments and collations in correlated subqueries."""
    shoal, oracle = engines

    def columns(engine, table):  # SQLAlchemy's type objects compare by identity: compare their repr
        return [{key: repr(value) if key == "type" else value for key, value in column.items()}
                for column in inspect(engine).get_columns(table)]

    for table in ("sa_orders", "sa_customers", "sa_big_orders"):
        assert columns(shoal, table) == columns(oracle, table), table


def test_sqlalchemy_reflects_keys_as_on_postgresql(engines):
    """get_pk_constraint reads pg_index.indkey (an int2vector) with unnest and generate_subscripts in its select
    list, array_agg(... ORDER BY ...) and bool_and; get_unique_constraints reads pg_constraint of contype 'u';
    foreign keys: Shoal has none."""
    shoal, oracle = engines
    for table in ("sa_orders", "sa_customers", "sa_accounts"):
        for reflect in ("get_pk_constraint", "get_unique_constraints", "get_foreign_keys"):
            assert getattr(inspect(shoal), reflect)(table) == getattr(inspect(oracle), reflect)(table), (table, reflect)


def test_sqlalchemy_reflects_indexes_as_on_postgresql(engines):
    """get_indexes reads pg_index's vectors, pg_opclass and pg_get_indexdef; the primary key's own index is left
    out, a UNIQUE constraint's shows as a unique index with duplicates_constraint."""
    shoal, oracle = engines
    for table in ("sa_orders", "sa_customers", "sa_accounts"):
        assert inspect(shoal).get_indexes(table) == inspect(oracle).get_indexes(table), table


def test_pandas_reads_a_query_as_on_postgresql(engines):
    shoal, oracle = engines
    query = "SELECT o_id, o_customer, o_total, o_date FROM sa_orders ORDER BY o_id"
    frames = [pandas.read_sql(query, engine) for engine in (shoal, oracle)]
    pandas.testing.assert_frame_equal(frames[0], frames[1])
    assert frames[0]["o_customer"].tolist() == ["alice", "bob", "carol"]
    assert frames[0]["o_total"].tolist()[:2] == [decimal.Decimal("120.50"), decimal.Decimal("80.00")]


def test_pandas_reads_a_whole_table_through_reflection_as_on_postgresql(engines):
    """read_sql_table reflects the table (get_columns) before it selects from it."""
    shoal, oracle = engines
    frames = [pandas.read_sql_table("sa_orders", engine).sort_values("o_id", ignore_index=True)
              for engine in (shoal, oracle)]
    pandas.testing.assert_frame_equal(frames[0], frames[1])


def test_pandas_appends_a_data_frame_as_on_postgresql(engines):
    shoal, oracle = engines
    new_orders = pandas.DataFrame({
        "o_id": [10, 11],
        "o_customer": ["dave", "erin"],
        "o_total": [5.25, None],
        "o_date": [datetime.date(2024, 2, 1), datetime.date(2024, 2, 2)],
    })
    read_back = []
    for engine in (shoal, oracle):
        new_orders.to_sql("sa_orders", engine, if_exists="append", index=False)
        read_back.append(pandas.read_sql("SELECT * FROM sa_orders WHERE o_id >= 10 ORDER BY o_id", engine))
    pandas.testing.assert_frame_equal(read_back[0], read_back[1])
    assert read_back[0]["o_customer"].tolist() == ["dave", "erin"]


def test_sqlalchemy_reflects_a_schema_of_its_own_as_on_postgresql(engines):
    """Every inspect() call with schema=: the names in it, columns, key and indexes of its table (which shares
    its name with public's), and a DataFrame appended into it."""
    shoal, oracle = engines

    def reflected(engine):
        inspector = inspect(engine)
        return {
            "schemas": "sa_staging" in inspector.get_schema_names(),
            "tables": inspector.get_table_names(schema="sa_staging"),
            "views": inspector.get_view_names(schema="sa_staging"),
            "has_table": inspector.has_table("sa_orders", schema="sa_staging"),
            "columns": [{key: repr(value) if key == "type" else value for key, value in column.items()}
                        for column in inspector.get_columns("sa_orders", schema="sa_staging")],
            "key": inspector.get_pk_constraint("sa_orders", schema="sa_staging"),
            "indexes": inspector.get_indexes("sa_orders", schema="sa_staging"),
        }

    assert reflected(shoal) == reflected(oracle)
    loads = pandas.DataFrame({"load_id": [1, 2], "note": ["first", None]})
    read_back = []
    for engine in (shoal, oracle):
        loads.to_sql("sa_orders", engine, schema="sa_staging", if_exists="append", index=False)
        read_back.append(pandas.read_sql("SELECT * FROM sa_staging.sa_orders ORDER BY load_id", engine))
    pandas.testing.assert_frame_equal(read_back[0], read_back[1])
    assert read_back[0]["load_id"].tolist() == [1, 2] and read_back[0]["note"][0] == "first"
