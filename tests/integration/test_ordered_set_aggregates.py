"""Story: an SRE reports the median and the 90th and 99th percentile latency per service, the most common
status per service, and the latency at or above which a tenth of the requests fall:
`percentile_cont(0.9) WITHIN GROUP (ORDER BY latency)`, percentile_disc and mode(). Shoal answers as
PostgreSQL 15 does across two workers, with NULLs, DESC orders, FILTER, text and date values, empty groups,
and PostgreSQL's errors for a fraction outside [0, 1] and for WITHIN GROUP on an ordinary aggregate."""

import random

import pytest

from postgres_oracle import both_servers_fixture, session_answers


def request_rows():
    generator = random.Random(2026)
    rows = []
    for request in range(1500):
        service = generator.choice(["api", "auth", "search", "billing"])
        latency = "NULL" if generator.random() < 0.03 else str(round(generator.lognormvariate(3, 0.8), 3))
        status = generator.choice([200, 200, 200, 200, 404, 500, 301])
        day = f"'2026-11-{1 + request % 28:02d}'"
        rows.append(f"({request}, '{service}', {latency}, {status}, {request % 7}, {day})")
    return rows


SCHEMA = [
    "CREATE TABLE requests (id integer, service text, latency double precision, status integer, "
    "shard integer, day date)",
    "INSERT INTO requests VALUES " + ", ".join(request_rows()),
    "INSERT INTO requests VALUES (9000, 'idle', NULL, NULL, NULL, NULL)",
]
DROP = ["DROP TABLE IF EXISTS requests"]

QUERIES = [
    "SELECT service, percentile_cont(0.5) WITHIN GROUP (ORDER BY latency), "
    "percentile_cont(0.9) WITHIN GROUP (ORDER BY latency), percentile_cont(0.99) WITHIN GROUP (ORDER BY latency), "
    "percentile_disc(0.5) WITHIN GROUP (ORDER BY latency), mode() WITHIN GROUP (ORDER BY status) "
    "FROM requests GROUP BY service ORDER BY service",
    "SELECT percentile_cont(0) WITHIN GROUP (ORDER BY latency), percentile_cont(1) WITHIN GROUP (ORDER BY latency), "
    "percentile_disc(0) WITHIN GROUP (ORDER BY latency), percentile_disc(1) WITHIN GROUP (ORDER BY latency) "
    "FROM requests",
    "SELECT service, percentile_cont(0.1) WITHIN GROUP (ORDER BY latency DESC), "
    "percentile_disc(0.25) WITHIN GROUP (ORDER BY day DESC), mode() WITHIN GROUP (ORDER BY shard DESC) "
    "FROM requests GROUP BY service ORDER BY service",
    "SELECT shard, percentile_disc(0.5) WITHIN GROUP (ORDER BY service), mode() WITHIN GROUP (ORDER BY service), "
    "percentile_cont(0.75) WITHIN GROUP (ORDER BY status) FROM requests GROUP BY shard ORDER BY shard",
    "SELECT service, percentile_cont(0.5) WITHIN GROUP (ORDER BY latency) FILTER (WHERE status = 200), "
    "mode() WITHIN GROUP (ORDER BY status) FILTER (WHERE latency > 30) FROM requests GROUP BY service "
    "ORDER BY service",
    "SELECT service FROM requests GROUP BY service "
    "HAVING percentile_cont(0.5) WITHIN GROUP (ORDER BY latency) > 20 ORDER BY service",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY latency), mode() WITHIN GROUP (ORDER BY status) "
    "FROM requests WHERE id < 0",
    "SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY latency), percentile_disc(0.5) WITHIN GROUP (ORDER BY id) "
    "FROM requests",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY id) + 1, percentile_disc('0.3') WITHIN GROUP (ORDER BY id) "
    "FROM requests",
    # What PostgreSQL refuses.
    "SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY latency) FROM requests",
    "SELECT percentile_disc(-0.1) WITHIN GROUP (ORDER BY latency) FROM requests",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY service) FROM requests",
    "SELECT percentile_cont(0.5) FROM requests",
    "SELECT count(*) WITHIN GROUP (ORDER BY latency) FROM requests",
    "SELECT sum(latency) WITHIN GROUP (ORDER BY latency) FROM requests",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY latency, status) FROM requests",
    "SELECT mode(status) WITHIN GROUP (ORDER BY status) FROM requests",
    "SELECT id FROM requests WHERE mode() WITHIN GROUP (ORDER BY status) > 1",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_ordered_set_aggregates_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])


def test_explain_shows_the_percentile_where_whole_groups_meet(both):
    """The values of a group must meet on one node: the plan repartitions on the group key (or gathers), never
    splits a percentile into partial ones."""
    shoal, _ = both
    plan = "\n".join(row[0] for row in session_answers(shoal, [
        "EXPLAIN SELECT service, percentile_cont(0.5) WITHIN GROUP (ORDER BY latency) FROM requests "
        "GROUP BY service"])[0][3])
    assert "repartition on" in plan, plan
    assert "percentile_cont(" in plan, plan
