"""Story: a dashboard shows distinct visitors per site and the median and 99th-percentile page latency,
computed with approx_count_distinct(visitor) and approx_percentile(latency, 0.99) so that neither needs every
value of a group on one node. PostgreSQL has no such functions, so the scratch PostgreSQL 15 answers the exact
questions (count(DISTINCT ...) and percentile_disc) and Shoal's approximations are held to their promises:
exact up to 512 distinct values and within 3 standard errors (2.4 %) above; each percentile within 1 % of
percentile_disc's value. The answers are the same on two workers and on three, as the sketches merge exactly."""

import random

import psycopg
import pytest

from cluster import run_sql
from postgres_oracle import answer, both_servers_fixture, shoal_conninfo

# site -> distinct visitors; 512 is the sketch's exact limit.
SITES = {"tiny": 5, "small": 400, "edge": 512, "large": 3000, "huge": 20000}


def visit_rows():
    generator = random.Random(2026)
    rows = []
    for site, visitors in SITES.items():
        for visitor in range(visitors):
            for _ in range(1 + visitor % 2):
                latency = "NULL" if generator.random() < 0.01 else repr(round(generator.lognormvariate(4, 1.2), 3))
                code = generator.choice([200, 200, 200, 404, 500])
                rows.append(f"('{site}', {visitor * 7919 % 100003}, 'v{visitor}', {latency}, {code}, "
                            f"DATE '2026-11-01' + {visitor % 30}, {visitor % 1000}.{visitor % 100:02d})")
    generator.shuffle(rows)
    return rows


ROWS = visit_rows()
SCHEMA = [
    "CREATE TABLE visits (site text, visitor integer, name text, latency double precision, code integer, "
    "day date, amount numeric(8,2))",
] + ["INSERT INTO visits VALUES " + ", ".join(ROWS[i:i + 4000]) for i in range(0, len(ROWS), 4000)]
DROP = ["DROP TABLE IF EXISTS visits"]

both = both_servers_fixture(DROP + SCHEMA, DROP)


def rows_of(conninfo, sql):
    outcome = answer(conninfo, sql)
    assert outcome[0] == "rows", (sql, outcome)
    return outcome[2]


def assert_close_count(approximate, exact, what):
    if exact <= 512:
        assert approximate == exact, f"{what}: {approximate} for {exact} distinct values (must be exact)"
    else:
        assert abs(approximate - exact) <= 0.024 * exact, f"{what}: {approximate} for {exact} distinct values"


@pytest.mark.parametrize("column", ["visitor", "name", "day", "amount", "code"])
def test_distinct_counts_per_site_keep_their_promise(both, column):
    shoal, postgres = both
    approximate = rows_of(shoal, f"SELECT site, approx_count_distinct({column}) FROM visits GROUP BY site ORDER BY 1")
    exact = rows_of(postgres, f"SELECT site, count(DISTINCT {column}) FROM visits GROUP BY site ORDER BY 1")
    assert [site for site, _ in approximate] == [site for site, _ in exact]
    for (site, estimate), (_, count) in zip(approximate, exact):
        assert_close_count(estimate, count, f"{column} of {site}")
    [(overall,)] = rows_of(shoal, f"SELECT approx_count_distinct({column}) FROM visits")
    [(total,)] = rows_of(postgres, f"SELECT count(DISTINCT {column}) FROM visits")
    assert_close_count(overall, total, f"{column} overall")


@pytest.mark.parametrize("fraction", [0, 0.01, 0.5, 0.9, 0.99, 1])
def test_percentiles_per_site_are_within_one_percent_of_percentile_disc(both, fraction):
    shoal, postgres = both
    approximate = rows_of(shoal, f"SELECT site, approx_percentile(latency, {fraction}) FROM visits "
                                 "GROUP BY site ORDER BY 1")
    exact = rows_of(postgres, f"SELECT site, percentile_disc({fraction}) WITHIN GROUP (ORDER BY latency) "
                              "FROM visits GROUP BY site ORDER BY 1")
    assert len(approximate) == len(exact) == len(SITES)
    for (site, estimate), (_, value) in zip(approximate, exact):
        assert abs(estimate - value) <= 0.01 * abs(value) * (1 + 1e-9), (site, fraction, estimate, value)


def test_filters_distinct_having_and_empty_groups(both):
    shoal, postgres = both
    approximate = rows_of(shoal, "SELECT site, approx_count_distinct(visitor) FILTER (WHERE code = 200), "
                                 "approx_count_distinct(DISTINCT day), approx_percentile(visitor, 0.5) "
                                 "FILTER (WHERE code = 404) FROM visits GROUP BY site "
                                 "HAVING approx_count_distinct(visitor) > 100 ORDER BY 1")
    exact = rows_of(postgres, "SELECT site, count(DISTINCT visitor) FILTER (WHERE code = 200), "
                              "count(DISTINCT day), percentile_disc(0.5) WITHIN GROUP (ORDER BY visitor) "
                              "FILTER (WHERE code = 404) FROM visits GROUP BY site "
                              "HAVING count(DISTINCT visitor) > 100 ORDER BY 1")
    assert [row[0] for row in approximate] == [row[0] for row in exact] == ["edge", "huge", "large", "small"]
    for (site, filtered, days, median), (_, exact_filtered, exact_days, exact_median) in zip(approximate, exact):
        assert_close_count(filtered, exact_filtered, f"filtered visitors of {site}")
        assert days == exact_days == 30
        assert abs(median - exact_median) <= 0.01 * exact_median, (site, median, exact_median)
    # No rows: the count is 0 (as count's is) and the percentile NULL; all-NULL input counts 0 too.
    assert rows_of(shoal, "SELECT approx_count_distinct(visitor), approx_percentile(latency, 0.5) "
                          "FROM visits WHERE site = 'none'") == [(0, None)]
    assert rows_of(shoal, "SELECT approx_count_distinct(latency), approx_percentile(latency, 0.5) "
                          "FROM visits WHERE latency IS NULL") == [(0, None)]
    assert rows_of(shoal, "SELECT approx_percentile(latency, NULL) FROM visits") == [(None,)]
    # A correlated subquery over no rows gives 0, as count does.
    assert rows_of(shoal, "SELECT s.site, (SELECT approx_count_distinct(v.visitor) FROM visits v "
                          "WHERE v.site = s.site AND v.code = 999) FROM (SELECT DISTINCT site FROM visits) s "
                          "ORDER BY 1 LIMIT 2") == [("edge", 0), ("huge", 0)]


def test_the_sketches_travel_between_two_phases(both):
    """Unlike count(DISTINCT x), the groups never need to meet whole: each worker sketches its rows and only
    the sketches are exchanged."""
    shoal, _ = both
    plan = "\n".join(row[0] for row in rows_of(
        shoal, "EXPLAIN SELECT site, approx_count_distinct(visitor), approx_percentile(latency, 0.9) "
               "FROM visits GROUP BY site"))
    assert "distinct_sketch(" in plan and "quantile_sketch(" in plan, plan
    assert "approx_count_distinct(PARTIALS" in plan and "approx_percentile(PARTIALS" in plan, plan


def test_three_workers_answer_as_two(both, own_cluster):
    shoal, _ = both
    queries = ["SELECT site, approx_count_distinct(visitor), approx_count_distinct(name), "
               "approx_percentile(latency, 0.5), approx_percentile(latency, 0.99) FROM visits GROUP BY site ORDER BY 1",
               "SELECT approx_count_distinct(visitor), approx_percentile(amount, 0.25) FROM visits"]
    three = own_cluster(workers=3)
    run_sql(three, "CREATE ROLE postgres SUPERUSER LOGIN")  # logged in as below, as on the shared cluster
    for sql in DROP + SCHEMA:
        run_sql(three, sql)
    other = f"host=127.0.0.1 port={three.port} user=postgres dbname=postgres connect_timeout=10"
    for sql in queries:
        assert rows_of(other, sql) == rows_of(shoal, sql), sql


@pytest.mark.parametrize("sql, sqlstate", [
    ("SELECT approx_percentile(latency, 1.5) FROM visits", "22003"),
    ("SELECT approx_percentile(latency, -0.1) FROM visits", "22003"),
    ("SELECT approx_percentile(latency, code) FROM visits", "0A000"),
    ("SELECT approx_percentile(name, 0.5) FROM visits", "42883"),
    ("SELECT approx_percentile(latency, 'x') FROM visits", "22P02"),
    ("SELECT approx_percentile(latency) FROM visits", "42883"),
    ("SELECT approx_count_distinct(*) FROM visits", "42883"),
    ("SELECT approx_count_distinct(visitor, code) FROM visits", "42883"),
    ("SELECT approx_count_distinct('{\"a\": 1}'::json) FROM visits", "42883"),
    ("SELECT site FROM visits WHERE approx_count_distinct(visitor) > 1", "42803"),
])
def test_what_is_refused(both, sql, sqlstate):
    shoal, _ = both
    assert answer(shoal, sql) == ("error", sqlstate)


def test_a_prepared_fraction_must_be_known_when_binding(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            connection.execute("SELECT approx_percentile(latency, %s) FROM visits", [0.5])
