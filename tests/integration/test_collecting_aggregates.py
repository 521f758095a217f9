"""Story: an analyst lists each group's members with string_agg(name, ', ' ORDER BY name) or array_agg, and
psql's \\du and \\d build their lists with ARRAY(SELECT ... ORDER BY 1). Shoal collects the values of each
group where the group is (repartitioned on the keys across the workers) and answers as PostgreSQL 15 does:
in the aggregate's or the subquery's order, with NULLs kept by array_agg and skipped by string_agg."""

import pytest

from postgres_oracle import answer, both_servers_fixture

ROWS = [(i, f"item{i % 37:02d}", i % 5 if i % 11 else None, f"t{i % 3}" if i % 13 else None) for i in range(1, 301)]
SCHEMA = [
    "CREATE TABLE collect_items (id integer PRIMARY KEY, name varchar(12), grp integer, tag text)",
    "INSERT INTO collect_items VALUES "
    + ", ".join(f"({i}, '{n}', {'NULL' if g is None else g}, {'NULL' if t is None else repr(t)})" for i, n, g, t in ROWS),
]
DROP = ["DROP TABLE IF EXISTS collect_items"]

QUERIES = [
    # Grouped, over rows spread across the workers, in the aggregate's order.
    "SELECT grp, string_agg(name, ',' ORDER BY id) FROM collect_items GROUP BY grp ORDER BY grp",
    "SELECT grp, array_agg(id ORDER BY id DESC) FROM collect_items WHERE id < 60 GROUP BY 1 ORDER BY 1",
    "SELECT tag, array_agg(grp ORDER BY grp NULLS FIRST, id), array_agg(grp ORDER BY grp DESC NULLS LAST, id) "
    "FROM collect_items WHERE id % 7 = 0 GROUP BY tag ORDER BY tag",
    "SELECT grp, count(*), string_agg(tag, '' ORDER BY id), array_agg(tag ORDER BY id) FROM collect_items "
    "WHERE id BETWEEN 20 AND 40 GROUP BY grp ORDER BY grp",
    # DISTINCT: each value once, in ascending order unless the ORDER BY says otherwise.
    "SELECT array_agg(DISTINCT grp), array_agg(DISTINCT tag ORDER BY tag DESC), string_agg(DISTINCT tag, '|') "
    "FROM collect_items",
    "SELECT grp, string_agg(DISTINCT name, ';' ORDER BY name) FROM collect_items WHERE id < 100 GROUP BY grp "
    "ORDER BY grp",
    # Without GROUP BY, over no rows (NULL), beside other aggregates, inside expressions.
    "SELECT array_agg(id ORDER BY id), string_agg(name, ',') FROM collect_items WHERE id < 0",
    "SELECT count(*), sum(id), string_agg(name, '-' ORDER BY id DESC) FROM collect_items WHERE id <= 10",
    "SELECT (array_agg(name ORDER BY id DESC))[1], array_length(array_agg(id), 1), "
    "cardinality(array_agg(tag)) FROM collect_items",
    "SELECT string_agg(tag, NULL ORDER BY id), string_agg(name, ', ' ORDER BY id) FROM collect_items WHERE id < 8",
    "SELECT grp FROM collect_items GROUP BY grp HAVING 'item05' = ANY(array_agg(name)) ORDER BY 1",
    # bool_and, bool_or and every: the extremes of booleans; not over other types, and min/max not over booleans.
    "SELECT grp, bool_and(id > 10), bool_or(tag = 't1'), every(name IS NOT NULL) FROM collect_items "
    "GROUP BY grp ORDER BY grp",
    "SELECT bool_and(id > 0), bool_or(id < 0), bool_and(NULL::boolean) FROM collect_items",
    "SELECT bool_and(id) FROM collect_items",
    "SELECT min(id > 3) FROM collect_items",
    # ARRAY(subquery): uncorrelated and correlated, ordered by its ORDER BY, empty as {}.
    "SELECT ARRAY(SELECT id FROM collect_items WHERE id % 50 = 0 ORDER BY id DESC)",
    "SELECT ARRAY(SELECT name FROM collect_items WHERE id < 0), ARRAY(SELECT id FROM collect_items ORDER BY id LIMIT 3)",
    "SELECT ARRAY(SELECT tag FROM collect_items WHERE id < 30 ORDER BY tag NULLS FIRST, id LIMIT 4 OFFSET 1)",
    "SELECT c.id, ARRAY(SELECT i.id FROM collect_items i WHERE i.grp = c.id ORDER BY i.id DESC) "
    "FROM collect_items c WHERE c.id <= 6 ORDER BY c.id",
    "SELECT c.id, ARRAY(SELECT i.name FROM collect_items i WHERE i.id = c.id + 1) AS next FROM collect_items c "
    "WHERE c.id > 297 ORDER BY 1",
    "SELECT pg_catalog.array_to_string(ARRAY(SELECT name FROM collect_items WHERE grp = 1 AND id < 40 ORDER BY 1), ',')",
    # Errors, with PostgreSQL's SQLSTATEs.
    "SELECT array_agg(DISTINCT grp ORDER BY id) FROM collect_items",
    "SELECT string_agg(id, ',') FROM collect_items",
    "SELECT string_agg(name) FROM collect_items",
    "SELECT ARRAY(SELECT id, name FROM collect_items)",
]

# The shared Shoal cluster and the scratch PostgreSQL, each set up with SCHEMA.
both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_collecting_aggregates_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def test_collection_runs_where_the_groups_are(both):
    """A grouped array_agg is repartitioned on its keys and collected on the workers, not gathered first."""
    shoal, _ = both
    kind, _, rows = answer(shoal, "EXPLAIN SELECT grp, array_agg(id ORDER BY id) FROM collect_items GROUP BY grp")
    plan = "\n".join(row[0] for row in rows)
    assert kind == "rows" and "array_agg(id ORDER BY id)" in plan, plan
    assert "repartition on (" in plan, plan


def test_a_limit_inside_a_correlated_array_subquery_answers_as_postgresql(both):
    """A per-row LIMIT decorrelates as a row_number() per outer value: the first two items of each group."""
    shoal, postgres = both
    sql = ("SELECT c.id, ARRAY(SELECT i.id FROM collect_items i WHERE i.grp = c.id ORDER BY i.id LIMIT 2) "
           "FROM collect_items c WHERE c.id <= 6 ORDER BY c.id")
    assert answer(shoal, sql) == answer(postgres, sql)
