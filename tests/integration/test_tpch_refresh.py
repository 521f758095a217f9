"""Story: TPC-H's refresh functions run between query streams, and the 22 queries stay right after each refresh.

A 2-worker cluster loads TPC-H SF 0.01 (partitioned), and an in-memory DuckDB gets a copy of every table, read back
out of Shoal with COPY TO STDOUT and typed as Shoal's catalog types it. Then query streams of the 22 queries
alternate with the spec's refresh functions (TPC-H 2.5):

- RF1 (new sales) inserts SF * 1500 = 15 orders with 1 to 7 lineitems each, made in Python by dbgen's rules
  (seeded), under order keys of the sparse key space that dbgen leaves free (it loads 8 keys of every 32), in one
  transaction: with multi-row INSERT ... VALUES the first time, with COPY FROM STDIN the second.
- RF2 (old sales) deletes 15 orders and their lineitems in one transaction: the first time with DELETE ... IN
  (list), among them the orders atop Q3's and Q18's answers (so that top-N answers change too); the second time
  with DELETE ... USING a temporary table and = ANY(array), among them orders the RF1s inserted.

The same rows go into DuckDB, and after every refresh each query's answer from Shoal matches DuckDB's over its own
copy (same row count; decimals exact, doubles within 1e-9 relative). Each refresh also leaves the expected row
counts in orders and lineitem; an RF1 that is rolled back leaves them as they were, and while an RF1 is open
another session still counts the old rows (snapshot isolation)."""

import datetime
import random
from decimal import Decimal

import duckdb
import psycopg
import pytest

from tpch_answers import TPCH, cell, run_query, same, statements

SCALE_FACTOR = 0.01
ORDERS_PER_REFRESH = round(SCALE_FACTOR * 1500)
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
START_DATE, END_DATE, CURRENT_DATE = datetime.date(1992, 1, 1), datetime.date(1998, 12, 31), datetime.date(1995, 6, 17)
PRIORITIES = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"]
INSTRUCTIONS = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]
MODES = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]
WORDS = ["furiously", "special", "requests", "sleep", "quickly", "final", "deposits", "among", "the", "carefully",
         "regular", "accounts", "haggle", "blithely", "ironic", "pinto", "beans", "boost", "slyly", "pending", "nag"]


class Refreshed:
    """The cluster, DuckDB's copy of its data, and what the refreshes did so far."""

    def __init__(self, cluster, oracle):
        self.cluster, self.oracle = cluster, oracle
        self.counts = duckdb_counts(oracle)
        self.inserted = []  # order keys the RF1s inserted
        self.random = random.Random(2024)


@pytest.fixture(scope="module")
def tpch(tmp_path_factory):
    from cluster import LocalCluster

    directory = tmp_path_factory.mktemp("tpch-refresh")
    local = LocalCluster(directory / "cluster", workers=2).start()
    try:
        oracle = duckdb.connect(config={"autoinstall_known_extensions": False})
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute(f"CALL tpch_load({SCALE_FACTOR}, 0, 'partitioned')")
            for table in TABLES:
                copy_into_duckdb(connection, oracle, table, directory / f"{table}.tsv")
        yield Refreshed(local, oracle)
    finally:
        local.kill()


def copy_into_duckdb(connection, oracle, table, path):
    """Copies `table` out of Shoal into DuckDB, with the column types of Shoal's catalog (CHAR(n) as trimmed text)."""
    columns = connection.execute(
        "SELECT column_name, data_type, numeric_precision, numeric_scale FROM information_schema.columns "
        "WHERE table_name = %s ORDER BY ordinal_position", [table]).fetchall()
    kinds = {"integer": "INTEGER", "bigint": "BIGINT", "date": "DATE"}
    types = {name: f"DECIMAL({precision},{scale})" if kind == "numeric" else kinds.get(kind, "VARCHAR")
             for name, kind, precision, scale in columns}
    with path.open("wb") as out, connection.cursor().copy(f"COPY {table} TO STDOUT") as copy:
        for chunk in copy:
            out.write(chunk)
    spec = ", ".join(f"'{name}': '{kind}'" for name, kind in types.items())
    select = ", ".join(f"rtrim({name}) AS {name}" if kind == "character" else name for name, kind, _, _ in columns)
    oracle.execute(f"CREATE TABLE {table} AS SELECT {select} FROM read_csv('{path}', delim='\\t', header=false, "
                   f"quote='', escape='', nullstr='\\N', columns={{{spec}}})")
    shoal_rows = connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    assert oracle.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == shoal_rows, table


def shoal_counts(connection):
    return tuple(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("orders", "lineitem"))


def duckdb_counts(oracle):
    return tuple(oracle.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("orders", "lineitem"))


def duckdb_rows(oracle, query):
    rows = None
    for statement in statements((TPCH / "queries" / f"q{query:02d}.sql").read_text()):
        cursor = oracle.execute(statement)
        if not statement.lower().startswith(("create", "drop")):
            rows = [[cell(value) for value in row] for row in cursor.fetchall()]
    return rows


def difference(got, expected):
    """None when the rows are the same, else the first difference."""
    if len(got) != len(expected):
        return f"{len(got)} rows, DuckDB {len(expected)}"
    for index, (got_row, expected_row) in enumerate(zip(got, expected, strict=True)):
        if len(got_row) != len(expected_row) or not all(map(same, got_row, expected_row)):
            return f"row {index}: {got_row} != DuckDB {expected_row}"
    return None


def assert_stream_matches_duckdb(state, stream):
    """Runs the 22 queries (in a seeded order per stream) on Shoal and on DuckDB; every answer must match."""
    order = random.Random(stream).sample(range(1, 23), 22)
    problems = []
    for query in order:
        try:
            got = run_query(state.cluster.conninfo(), query)
        except psycopg.Error as error:
            problems.append(f"Q{query:02d} failed: {error}")
            continue
        problem = difference(got, duckdb_rows(state.oracle, query))
        if problem:
            problems.append(f"Q{query:02d}: {problem}")
    assert not problems, f"stream {stream} after {state.counts}:\n" + "\n".join(problems)


def assert_counts(state, expected):
    with psycopg.connect(state.cluster.conninfo(), autocommit=True) as connection:
        assert shoal_counts(connection) == expected
    assert duckdb_counts(state.oracle) == expected
    state.counts = expected


def comment(rng, shortest, longest):
    text = ""
    while len(text) < longest:
        text += rng.choice(WORDS) + " "
    return text[:rng.randint(shortest, longest)]


def new_sales(state, slot):
    """RF1's rows (orders, lineitems) by dbgen's rules, under free keys of the sparse key space: 32 * n + 8 * slot + j
    (dbgen loads slot 0), spread over the loaded keys and a little above them."""
    rng, oracle = state.random, state.oracle
    used = {key for (key,) in oracle.execute("SELECT o_orderkey FROM orders").fetchall()}
    blocks = rng.sample(range(max(used) // 32 + 4), ORDERS_PER_REFRESH)
    keys = sorted(32 * block + 8 * slot + rng.randrange(8) for block in blocks)
    assert not used & set(keys)
    # dbgen gives every third customer no orders.
    customers = [key for (key,) in oracle.execute(
        "SELECT c_custkey FROM customer WHERE c_custkey % 3 <> 0 ORDER BY c_custkey").fetchall()]
    prices = dict(oracle.execute("SELECT p_partkey, p_retailprice FROM part").fetchall())
    suppliers = dict(oracle.execute("SELECT ps_partkey, list(ps_suppkey ORDER BY ps_suppkey) FROM partsupp "
                                    "GROUP BY ps_partkey").fetchall())
    partkeys, orders, lines = sorted(prices), [], []
    for key in keys:
        ordered = START_DATE + datetime.timedelta(rng.randint(0, (END_DATE - START_DATE).days - 151))
        cents, statuses = 0, set()
        for number in range(1, rng.randint(1, 7) + 1):
            part = rng.choice(partkeys)
            quantity, discount, tax = rng.randint(1, 50), rng.randint(0, 10), rng.randint(0, 8)
            shipped = ordered + datetime.timedelta(rng.randint(1, 121))
            committed = ordered + datetime.timedelta(rng.randint(30, 90))
            received = shipped + datetime.timedelta(rng.randint(1, 30))
            status = "O" if shipped > CURRENT_DATE else "F"
            statuses.add(status)
            price = quantity * prices[part]
            cents += int(price * 100) * (100 - discount) // 100 * (100 + tax) // 100  # dbgen's o_totalprice
            lines.append((key, part, rng.choice(suppliers[part]), number, Decimal(quantity), price,
                          Decimal(discount) / 100, Decimal(tax) / 100,
                          rng.choice("RA") if received <= CURRENT_DATE else "N", status, shipped, committed, received,
                          rng.choice(INSTRUCTIONS), rng.choice(MODES), comment(rng, 10, 43)))
        orders.append((key, rng.choice(customers), statuses.pop() if len(statuses) == 1 else "P", Decimal(cents) / 100,
                       ordered, rng.choice(PRIORITIES), f"Clerk#{rng.randint(1, 1000):09d}", 0, comment(rng, 19, 78)))
    return orders, lines


def insert_values(connection, table, rows):
    values = ", ".join("(" + ", ".join(["%s"] * len(rows[0])) + ")" for _ in rows)
    connection.execute(f"INSERT INTO {table} VALUES {values}", [value for row in rows for value in row])


def copy_rows(connection, table, rows):
    with connection.cursor().copy(f"COPY {table} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def rf1(state, slot, write, commit=True):
    """Runs RF1 in one Shoal transaction (`write` puts the rows in) and, when it commits, in DuckDB."""
    orders, lines = new_sales(state, slot)
    before = state.counts
    after = (before[0] + len(orders), before[1] + len(lines))
    with psycopg.connect(state.cluster.conninfo(), autocommit=True) as writer, \
            psycopg.connect(state.cluster.conninfo(), autocommit=True) as reader:
        writer.execute("BEGIN")
        write(writer, "orders", orders)
        write(writer, "lineitem", lines)
        assert shoal_counts(writer) == after, "the transaction reads its own rows"
        assert shoal_counts(reader) == before, "another session does not see the open RF1"
        writer.execute("COMMIT" if commit else "ROLLBACK")
    if not commit:
        assert_counts(state, before)
        return
    state.oracle.executemany(f"INSERT INTO orders VALUES ({', '.join(['?'] * 9)})", orders)
    state.oracle.executemany(f"INSERT INTO lineitem VALUES ({', '.join(['?'] * 16)})", lines)
    state.inserted += [row[0] for row in orders]
    assert_counts(state, after)


def old_sales(state, also=()):
    """RF2's order keys: `also`, then a seeded sample of the other orders."""
    keys = sorted(key for (key,) in state.oracle.execute("SELECT o_orderkey FROM orders").fetchall())
    present = set(keys)
    also = sorted({key for key in also if key in present})
    others = [key for key in keys if key not in also]
    return sorted(also + state.random.sample(others, ORDERS_PER_REFRESH - len(also)))


def rf2(state, keys, delete):
    """Runs RF2 in one Shoal transaction (`delete` removes the orders and their lineitems) and in DuckDB."""
    listed = ", ".join(map(str, keys))
    lines = state.oracle.execute(f"SELECT count(*) FROM lineitem WHERE l_orderkey IN ({listed})").fetchone()[0]
    with psycopg.connect(state.cluster.conninfo(), autocommit=True) as connection:
        assert delete(connection, keys) == (len(keys), lines), "rows deleted (orders, lineitem)"
    state.oracle.execute(f"DELETE FROM lineitem WHERE l_orderkey IN ({listed})")
    state.oracle.execute(f"DELETE FROM orders WHERE o_orderkey IN ({listed})")
    assert_counts(state, (state.counts[0] - len(keys), state.counts[1] - lines))


def delete_in_list(connection, keys):
    listed = ", ".join(map(str, keys))
    with connection.transaction():
        lines = connection.execute(f"DELETE FROM lineitem WHERE l_orderkey IN ({listed})").rowcount
        return connection.execute(f"DELETE FROM orders WHERE o_orderkey IN ({listed})").rowcount, lines


def delete_using_and_any(connection, keys):
    connection.execute("CREATE TEMP TABLE rf2_keys (orderkey BIGINT)")  # DDL: before the block, not in it
    insert_values(connection, "rf2_keys", [(key,) for key in keys])
    with connection.transaction():
        lines = connection.execute("DELETE FROM lineitem USING rf2_keys WHERE l_orderkey = rf2_keys.orderkey").rowcount
        return connection.execute("DELETE FROM orders WHERE o_orderkey = ANY(%s)", [list(keys)]).rowcount, lines


def test_stream_0_before_any_refresh(tpch):
    assert_stream_matches_duckdb(tpch, 0)


def test_rf1_rolled_back_leaves_the_tables_as_they_were(tpch):
    rf1(tpch, slot=3, write=insert_values, commit=False)


def test_stream_1_after_rf1_with_insert_values(tpch):
    rf1(tpch, slot=1, write=insert_values)
    assert_stream_matches_duckdb(tpch, 1)


def test_stream_2_after_rf2_with_delete_in_list(tpch):
    # Among the orders deleted: the top three of Q3's answer and Q18's, so that top-N answers change too.
    top = [int(row[0]) for row in duckdb_rows(tpch.oracle, 3)[:3]]
    top += [int(row[2]) for row in duckdb_rows(tpch.oracle, 18)]
    rf2(tpch, old_sales(tpch, also=top), delete_in_list)
    assert_stream_matches_duckdb(tpch, 2)


def test_stream_3_after_rf1_with_copy_from_stdin(tpch):
    rf1(tpch, slot=2, write=copy_rows)
    assert_stream_matches_duckdb(tpch, 3)


def test_stream_4_after_rf2_with_delete_using_and_any(tpch):
    rf2(tpch, old_sales(tpch, also=tpch.inserted[::3]), delete_using_and_any)
    assert_stream_matches_duckdb(tpch, 4)
