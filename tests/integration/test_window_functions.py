"""Story: an analyst computes running totals per customer, ranks each customer's orders, keeps the top three per
group, compares each order with the previous one and smooths amounts over a moving window. Shoal answers as
PostgreSQL 15 does, over rows spread across the workers; a window repartitions its input on the PARTITION BY
columns, runs where the rows are when the table is already hashed on them, and goes to the coordinator only
without PARTITION BY."""

import psycopg
import pytest

from postgres_oracle import answer, both_servers_fixture, shoal_conninfo

ROWS = [(i, i * 7 % 97, f"2024-{1 + i % 12:02d}-{1 + i * 5 % 28:02d}", (i * 37 % 1000) / 4, f"r{i % 5}")
        for i in range(1, 2001)]
SCHEMA = [
    "CREATE TABLE window_orders (id integer PRIMARY KEY, customer integer, day date, amount numeric(10,2), "
    "region text)",
    "INSERT INTO window_orders VALUES "
    + ", ".join(f"({i}, {c}, DATE '{d}', {a}, '{r}')" for i, c, d, a, r in ROWS),
]
DROP = ["DROP TABLE IF EXISTS window_orders"]

QUERIES = [
    # Running total per customer, ties on the day broken by id.
    "SELECT id, customer, sum(amount) OVER (PARTITION BY customer ORDER BY day, id) FROM window_orders "
    "ORDER BY customer, day, id",
    # Top three orders per region.
    "SELECT region, id, amount FROM (SELECT region, id, amount, row_number() OVER (PARTITION BY region "
    "ORDER BY amount DESC, id) AS rn FROM window_orders) ranked WHERE rn <= 3 ORDER BY region, rn",
    # Ranks with ties, over the whole table and per customer.
    "SELECT id, rank() OVER (ORDER BY amount DESC), dense_rank() OVER (PARTITION BY customer ORDER BY amount) "
    "FROM window_orders ORDER BY id",
    # The previous and next order of the same customer.
    "SELECT id, lag(amount) OVER w, lead(day, 1, DATE '2099-01-01') OVER w FROM window_orders "
    "WINDOW w AS (PARTITION BY customer ORDER BY day, id) ORDER BY id",
    # Moving sums and counts: rows, a value range of days, peer groups.
    "SELECT id, sum(amount) OVER (PARTITION BY region ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING), "
    "count(*) OVER (PARTITION BY region ORDER BY day RANGE BETWEEN INTERVAL '7 days' PRECEDING AND CURRENT ROW), "
    "max(amount) OVER (PARTITION BY customer ORDER BY day GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) "
    "FROM window_orders ORDER BY id",
    # Share of the customer's total and quartiles.
    "SELECT id, round(amount * 100 / sum(amount) OVER (PARTITION BY customer), 6), ntile(4) OVER (ORDER BY amount, id) "
    "FROM window_orders ORDER BY id",
    # Windows over grouped rows: each region's monthly total and its running total.
    "SELECT region, date_trunc('month', day) AS month, sum(amount), "
    "sum(sum(amount)) OVER (PARTITION BY region ORDER BY date_trunc('month', day)) "
    "FROM window_orders GROUP BY region, date_trunc('month', day) ORDER BY 1, 2",
    # First and last of a frame, with EXCLUDE.
    "SELECT id, first_value(amount) OVER w, last_value(amount) OVER w, nth_value(id, 2) OVER w "
    "FROM window_orders WINDOW w AS (PARTITION BY region ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING "
    "EXCLUDE CURRENT ROW) ORDER BY id",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_window_queries_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def plan_of(conninfo, sql):
    kind, _, rows = answer(conninfo, "EXPLAIN " + sql)
    assert kind == "rows", rows
    return "\n".join(row[0] for row in rows)


def test_a_window_repartitions_on_its_partition_by_columns(both):
    shoal, _ = both
    plan = plan_of(shoal, "SELECT id, sum(amount) OVER (PARTITION BY customer ORDER BY id) FROM window_orders")
    assert "WindowAgg" in plan and "repartition on (customer)" in plan, plan


def test_a_window_without_partition_by_runs_on_the_coordinator(both):
    shoal, _ = both
    plan = plan_of(shoal, "SELECT id, row_number() OVER (ORDER BY id) FROM window_orders")
    coordinator_part = plan.split("Fragment")[0]
    assert "WindowAgg" in coordinator_part and "repartition" not in plan, plan


def test_a_window_over_a_table_hashed_on_its_partition_key_moves_no_rows(both):
    """The table is hashed on customer: every customer's rows are on one worker, and the window runs there."""
    shoal, _ = both
    statements = [
        "DROP TABLE IF EXISTS window_by_customer",
        "CREATE TABLE window_by_customer (id integer, customer integer, amount numeric(10,2)) "
        "WITH (distribution = 'hash(customer)')",
        "INSERT INTO window_by_customer VALUES " + ", ".join(f"({i}, {c}, {a})" for i, c, _, a, _ in ROWS[:500]),
    ]
    with psycopg.connect(shoal, autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)
        sql = ("SELECT customer, id, sum(amount) OVER (PARTITION BY customer ORDER BY id) FROM window_by_customer")
        plan = plan_of(shoal, sql)
        assert "WindowAgg" in plan and "repartition" not in plan, plan
        # The window runs in the workers' fragment, below the gather.
        assert plan.index("WindowAgg") > plan.index("Fragment"), plan
        rows = connection.execute(sql + " ORDER BY customer, id").fetchall()
        expected = {}
        running = {}
        for i, c, _, a, _ in sorted(ROWS[:500], key=lambda r: (r[1], r[0])):
            running[c] = running.get(c, 0) + a
            expected[(c, i)] = running[c]
        assert len(rows) == 500
        assert all(float(total) == pytest.approx(expected[(c, i)]) for c, i, total in rows)
        connection.execute("DROP TABLE window_by_customer")
