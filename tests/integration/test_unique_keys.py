"""Story: a table's PRIMARY KEY and UNIQUE constraints mean what they say. A duplicate key from INSERT, INSERT ...
SELECT, COPY or UPDATE fails with 23505 and leaves nothing behind (NULLs never collide in a UNIQUE key); a key
deleted may come back; INSERT ... ON CONFLICT DO NOTHING skips the rows that conflict and DO UPDATE changes the
rows they meet, on whichever key its target names. The workers check the keys where the rows live, so every key
must contain the table's distribution columns, and creating one that does not is refused. Single-session stories
are compared with PostgreSQL 15's answers; the two-session ones assert each outcome."""

import psycopg
import pytest

from postgres_oracle import both_servers_fixture, session_answers

SETUP = ["DROP TABLE IF EXISTS uk_items", "DROP TABLE IF EXISTS uk_pairs", "DROP TABLE IF EXISTS uk_plain",
         "DROP TABLE IF EXISTS uk_members", "DROP TABLE IF EXISTS uk_clash",
         "CREATE TABLE uk_items (id integer PRIMARY KEY, name text, qty integer)",
         "INSERT INTO uk_items SELECT g, 'item ' || g, g FROM generate_series(1, 50) g",
         "CREATE TABLE uk_pairs (a integer, b text, v integer, PRIMARY KEY (a, b))",
         "INSERT INTO uk_pairs VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 3)",
         # Two UNIQUE keys and no primary key: both contain team, which the table is distributed by.
         "CREATE TABLE uk_members (team integer, login text, seat integer, note text, UNIQUE (team, login), "
         "UNIQUE (team, seat))",
         "INSERT INTO uk_members VALUES (1, 'ann', 1, 'a'), (1, 'bob', 2, 'b'), (2, 'ann', 1, 'c'), (2, 'cid', 2, 'd')"]

ITEMS = "SELECT count(*), sum(id), sum(qty) FROM uk_items"

SESSIONS = {
    "a duplicate key fails with 23505 and adds nothing": [
        "INSERT INTO uk_items VALUES (7, 'again', 0)", "INSERT INTO uk_items VALUES (60, 'a', 1), (60, 'b', 2)",
        "INSERT INTO uk_items SELECT id + 45, name, qty FROM uk_items WHERE id <= 10", ITEMS,
        "INSERT INTO uk_pairs VALUES (1, 'z', 4), (2, 'y', 5)", "INSERT INTO uk_pairs VALUES (2, 'x', 6)",
        "INSERT INTO uk_pairs VALUES (NULL, 'x', 6)", "SELECT a, b, v FROM uk_pairs ORDER BY a, b",
        "DELETE FROM uk_pairs WHERE v >= 4",
    ],
    "UPDATE may keep a key, and may not make one collide": [
        "UPDATE uk_items SET qty = qty + 1 WHERE id <= 5", "UPDATE uk_items SET id = 4 WHERE id = 3",
        "UPDATE uk_items SET id = id + 1000 WHERE id <= 5", "UPDATE uk_items SET id = id - 1000 WHERE id > 1000",
        "UPDATE uk_items SET id = 1", ITEMS,
    ],
    "a deleted key may come back, in the same block or after": [
        "BEGIN", "DELETE FROM uk_items WHERE id = 10", "INSERT INTO uk_items SELECT 10, 'back', 0",
        "SELECT name FROM uk_items WHERE id = 10", "COMMIT", "SELECT name FROM uk_items WHERE id = 10",
        "DELETE FROM uk_items WHERE id = 11", "INSERT INTO uk_items VALUES (11, 'again', 0)",
        "SELECT id, name FROM uk_items WHERE id IN (10, 11) ORDER BY id",
    ],
    "an updated row keeps its key taken, in its block too": [
        "BEGIN", "UPDATE uk_items SET qty = 0 WHERE id = 20", "INSERT INTO uk_items SELECT 20, 'dup', 1", "ROLLBACK",
        "BEGIN", "UPDATE uk_items SET qty = 0 WHERE id = 21", "SAVEPOINT s",
        "INSERT INTO uk_items SELECT id, 'dup', 1 FROM uk_items WHERE id = 21", "ROLLBACK TO s", "COMMIT",
        "SELECT id, qty FROM uk_items WHERE id IN (20, 21) ORDER BY id",
    ],
    "a duplicate aborts the block, and ROLLBACK TO recovers it": [
        "BEGIN", "INSERT INTO uk_items SELECT 70, 'new', 1", "SAVEPOINT s", "INSERT INTO uk_items SELECT 1, 'dup', 1",
        "SELECT 1", "ROLLBACK TO s", "SELECT count(*) FROM uk_items WHERE id = 70", "ROLLBACK",
        "SELECT count(*) FROM uk_items WHERE id = 70",
    ],
    "ON CONFLICT DO NOTHING skips the conflicting rows": [
        "INSERT INTO uk_items VALUES (1, 'dup', 0), (80, 'new', 8) ON CONFLICT DO NOTHING",
        "INSERT INTO uk_items VALUES (81, 'a', 1), (81, 'b', 2) ON CONFLICT (id) DO NOTHING",
        "INSERT INTO uk_items SELECT id + 40, 'shifted', 0 FROM uk_items WHERE id <= 20 "
        "ON CONFLICT ON CONSTRAINT uk_items_pkey DO NOTHING",
        "SELECT id, name, qty FROM uk_items WHERE id > 40 ORDER BY id",
    ],
    "ON CONFLICT DO UPDATE changes the rows met": [
        "INSERT INTO uk_items VALUES (1, 'one', 100), (90, 'ninety', 9) "
        "ON CONFLICT (id) DO UPDATE SET name = excluded.name, qty = uk_items.qty + excluded.qty",
        "INSERT INTO uk_items AS t VALUES (2, 'two', 5) ON CONFLICT (id) DO UPDATE SET qty = t.qty * 10 "
        "WHERE t.qty > 100",
        "INSERT INTO uk_items AS t VALUES (2, 'two', 5) ON CONFLICT (id) DO UPDATE SET qty = qty * 10 "
        "WHERE t.qty < 100",
        "INSERT INTO uk_items VALUES (3, 'x', 1), (3, 'y', 2) ON CONFLICT (id) DO UPDATE SET qty = excluded.qty",
        "INSERT INTO uk_pairs VALUES (1, 'x', 10) ON CONFLICT (b, a) DO UPDATE SET v = excluded.v + uk_pairs.v",
        "INSERT INTO uk_items SELECT id, 'bulk', 1 FROM uk_items WHERE id BETWEEN 20 AND 30 "
        "ON CONFLICT (id) DO UPDATE SET name = excluded.name || '!'",
        "BEGIN", "INSERT INTO uk_items VALUES (4, 'in a block', 4) ON CONFLICT (id) DO UPDATE SET name = excluded.name",
        "SELECT name FROM uk_items WHERE id = 4", "ROLLBACK",
        "SELECT id, name, qty FROM uk_items WHERE id <= 4 OR id >= 20 ORDER BY id",
        "SELECT a, b, v FROM uk_pairs ORDER BY a, b",
    ],
    "what ON CONFLICT refuses": [
        "INSERT INTO uk_items VALUES (1) ON CONFLICT (name) DO NOTHING",
        "INSERT INTO uk_items VALUES (1) ON CONFLICT DO UPDATE SET qty = 1",
        "INSERT INTO uk_items VALUES (1) ON CONFLICT ON CONSTRAINT nosuch DO NOTHING",
        "INSERT INTO uk_items VALUES (1) ON CONFLICT (id) DO UPDATE SET nosuch = 1",
        "INSERT INTO uk_pairs VALUES (1, 'x', 1) ON CONFLICT (a) DO NOTHING",
        "CREATE TABLE uk_plain (id integer)", "INSERT INTO uk_plain VALUES (1) ON CONFLICT DO NOTHING",
        "INSERT INTO uk_plain VALUES (1) ON CONFLICT DO NOTHING", "SELECT count(*) FROM uk_plain",
        "DROP TABLE uk_plain",
    ],
    "a UNIQUE key refuses a duplicate, but never a NULL": [
        "INSERT INTO uk_members VALUES (1, 'ann', 9, 'again')", "INSERT INTO uk_members VALUES (1, 'dan', 2, 'seat')",
        "INSERT INTO uk_members VALUES (3, 'eve', 1, 'x'), (3, 'eve', 2, 'y')",
        "INSERT INTO uk_members SELECT team, login, seat + 10, note FROM uk_members WHERE team = 2",
        "INSERT INTO uk_members VALUES (1, NULL, NULL, 'n1'), (1, NULL, NULL, 'n2'), (NULL, 'ann', 1, 'n3')",
        "INSERT INTO uk_members VALUES (NULL, 'ann', 1, 'n4')",
        "SELECT team, login, seat, note FROM uk_members ORDER BY team, login, seat, note",
        "DELETE FROM uk_members WHERE login IS NULL OR team IS NULL",
    ],
    "UPDATE of a UNIQUE key's columns is checked, of others not": [
        "UPDATE uk_members SET seat = 1 WHERE login = 'bob'", "UPDATE uk_members SET login = 'ann' WHERE seat = 2",
        "UPDATE uk_members SET note = note || '!'", "UPDATE uk_members SET login = upper(login)",
        "UPDATE uk_members SET team = 1", "SELECT team, login, seat, note FROM uk_members ORDER BY team, login",
        "UPDATE uk_members SET login = lower(login), note = left(note, 1)",
    ],
    "ON CONFLICT picks its arbiter among the UNIQUE keys": [
        "INSERT INTO uk_members VALUES (1, 'ann', 5, 'n') ON CONFLICT (team, login) DO UPDATE SET note = 'met ann'",
        "INSERT INTO uk_members VALUES (1, 'bob', 7, 'n') ON CONFLICT (login, team) DO NOTHING",
        "INSERT INTO uk_members VALUES (2, 'zed', 2, 'n') ON CONFLICT ON CONSTRAINT uk_members_team_seat_key "
        "DO UPDATE SET note = excluded.login",
        "INSERT INTO uk_members VALUES (1, 'ann', 2, 'n') ON CONFLICT (team, seat) DO NOTHING",
        "INSERT INTO uk_members VALUES (1, 'fay', 1, 'n') ON CONFLICT (team, login) DO NOTHING",
        "INSERT INTO uk_members VALUES (2, 'ann', 8, 'n'), (2, 'gus', 2, 'n') ON CONFLICT DO NOTHING",
        "INSERT INTO uk_members VALUES (1, 'ann', 1, 'n') ON CONFLICT (team) DO NOTHING",
        "INSERT INTO uk_members VALUES (1, 'ann', 1, 'n') ON CONFLICT ON CONSTRAINT uk_members_pkey DO NOTHING",
        "SELECT team, login, seat, note FROM uk_members ORDER BY team, login",
        "UPDATE uk_members SET note = left(note, 1)",
    ],
    "a key goes with a column it names, and keys are named as PostgreSQL names them": [
        "CREATE TABLE uk_plain (k integer, a integer, b integer, UNIQUE (k, a), UNIQUE (k, b), UNIQUE (k, a), "
        "CONSTRAINT uk_plain_named UNIQUE (b, k))",
        "SELECT conname, contype, conkey FROM pg_constraint WHERE conrelid = 'uk_plain'::regclass ORDER BY 1",
        "INSERT INTO uk_plain VALUES (1, 1, 1), (1, 2, 2)", "INSERT INTO uk_plain VALUES (1, 3, 2)",
        "ALTER TABLE uk_plain DROP COLUMN b", "INSERT INTO uk_plain VALUES (1, 3), (1, 4)",
        "INSERT INTO uk_plain VALUES (1, 1)",
        "SELECT conname, contype, conkey FROM pg_constraint WHERE conrelid = 'uk_plain'::regclass ORDER BY 1",
        "DROP TABLE uk_plain",
        "CREATE TABLE uk_plain (k integer, j integer, CONSTRAINT uk_plain_k_key UNIQUE (k, j), UNIQUE (k))",
        "CREATE TABLE IF NOT EXISTS uk_plain (k integer, j integer, CONSTRAINT uk_plain_k_key UNIQUE (k, j))",
        "SELECT conname FROM pg_constraint WHERE conrelid = 'uk_plain'::regclass ORDER BY 1",
        "CREATE TABLE uk_clash (k integer, CONSTRAINT uk_plain_k_key UNIQUE (k))",
        "CREATE TABLE uk_clash (k integer UNIQUE, j integer, UNIQUE (j, k))",
        "SELECT conname FROM pg_constraint WHERE conrelid = 'uk_clash'::regclass ORDER BY 1",
        "DROP TABLE uk_plain", "DROP TABLE uk_clash",
    ],
}


both = both_servers_fixture(SETUP, SETUP[:5])


@pytest.mark.parametrize("name", SESSIONS)
def test_keys_answer_as_postgresql(both, name):
    shoal, postgres = both
    assert session_answers(shoal, SESSIONS[name]) == session_answers(postgres, SESSIONS[name])


def error_of(conninfo, sql):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        with pytest.raises(psycopg.Error) as raised:
            connection.execute(sql)
    diagnostic = raised.value.diag
    return raised.value.sqlstate, diagnostic.message_primary, diagnostic.message_detail


def test_the_duplicate_key_error_reads_as_postgresqls(both):
    for sql in ["INSERT INTO uk_items VALUES (5, 'dup', 0)", "INSERT INTO uk_pairs VALUES (1, 'y', 0)",
                "INSERT INTO uk_members VALUES (2, 'cid', 7, 'dup')", "INSERT INTO uk_members VALUES (2, 'hal', 1, 'dup')"]:
        assert error_of(both[0], sql) == error_of(both[1], sql)


def test_copy_of_a_duplicate_key_loads_nothing(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        before = connection.execute(ITEMS).fetchone()
        with pytest.raises(psycopg.errors.UniqueViolation):
            with connection.cursor().copy("COPY uk_items FROM STDIN") as copy:
                copy.write("500\tfresh\t1\n501\tfresh\t1\n12\tdup\t1\n")
        assert connection.execute(ITEMS).fetchone() == before
        with connection.cursor().copy("COPY uk_items FROM STDIN") as copy:
            copy.write("500\tfresh\t1\n501\tfresh\t1\n")
        assert connection.execute("SELECT count(*) FROM uk_items WHERE id >= 500").fetchone() == (2,)
        connection.execute("DELETE FROM uk_items WHERE id >= 500")


def test_a_key_the_workers_cannot_check_is_refused(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        for options in ["distribution = 'hash(g)'", "distribution = 'random'"]:
            with pytest.raises(psycopg.errors.FeatureNotSupported) as refused:
                connection.execute(f"CREATE TABLE uk_refused (id integer PRIMARY KEY, g integer) WITH ({options})")
            assert "could land on different workers" in refused.value.diag.message_primary
        # A UNIQUE key that shares no column with the primary key: the table is distributed by the primary key.
        with pytest.raises(psycopg.errors.FeatureNotSupported) as refused:
            connection.execute("CREATE TABLE uk_refused (id integer PRIMARY KEY, email text UNIQUE)")
        assert refused.value.diag.message_primary == (
            'table "uk_refused" cannot have a UNIQUE constraint (email): it is distributed by hash(id), and rows '
            'with equal keys could land on different workers')
        # On a subset of the key's columns, or on every worker, the key is checked.
        connection.execute("CREATE TABLE uk_subset (a integer, b integer, PRIMARY KEY (a, b)) "
                            "WITH (distribution = 'hash(a)')")
        connection.execute("CREATE TABLE uk_everywhere (id integer PRIMARY KEY, email text UNIQUE) "
                           "WITH (distribution = 'replicated')")
        try:
            connection.execute("INSERT INTO uk_subset SELECT g % 10, g FROM generate_series(1, 100) g")
            connection.execute("INSERT INTO uk_everywhere SELECT g, 'user' || g FROM generate_series(1, 100) g")
            with pytest.raises(psycopg.errors.UniqueViolation):
                connection.execute("INSERT INTO uk_subset VALUES (3, 13)")
            with pytest.raises(psycopg.errors.UniqueViolation):
                connection.execute("INSERT INTO uk_everywhere VALUES (42, 'new')")
            with pytest.raises(psycopg.errors.UniqueViolation):
                connection.execute("INSERT INTO uk_everywhere VALUES (142, 'user7')")
            connection.execute("INSERT INTO uk_everywhere VALUES (7, 'x'), (101, 'y'), (102, 'user8') "
                               "ON CONFLICT DO NOTHING")
            assert connection.execute("SELECT count(*) FROM uk_everywhere").fetchone() == (101,)
        finally:
            connection.execute("DROP TABLE uk_subset, uk_everywhere")


def test_two_sessions_inserting_one_key_never_both_succeed(both):
    shoal, _ = both
    with psycopg.connect(shoal) as first, psycopg.connect(shoal) as second:
        first.execute("INSERT INTO uk_items SELECT 600, 'first', 1")
        # The first has not decided yet: the second cannot know whether the key will be taken.
        with pytest.raises(psycopg.errors.SerializationFailure):
            second.execute("INSERT INTO uk_items SELECT 600, 'second', 1")
        second.rollback()
        first.commit()
        with pytest.raises(psycopg.errors.UniqueViolation):
            second.execute("INSERT INTO uk_items SELECT 600, 'second', 1")
        second.rollback()
        # A key whose insert rolled back is free again.
        first.execute("INSERT INTO uk_items SELECT 601, 'first', 1")
        first.rollback()
        second.execute("INSERT INTO uk_items SELECT 601, 'second', 1")
        second.commit()
        with psycopg.connect(shoal, autocommit=True) as reader:
            assert reader.execute("SELECT id, name FROM uk_items WHERE id >= 600 ORDER BY id").fetchall() == [
                (600, "first"), (601, "second")]
            reader.execute("DELETE FROM uk_items WHERE id >= 600")


def test_a_duplicate_among_buffered_inserts_fails_the_commit(both):
    """In a block, INSERT ... VALUES rows wait in the write buffer (so that executemany is fast): a duplicate
    among them is reported by the statement that sends them, here COMMIT, and nothing of the block stays."""
    shoal, _ = both
    with psycopg.connect(shoal) as connection:
        connection.cursor().executemany("INSERT INTO uk_items VALUES (%s, 'many', 1)",
                                        [(key,) for key in range(700, 800)] + [(3,)])
        with pytest.raises(psycopg.errors.UniqueViolation):
            connection.commit()
        assert connection.execute("SELECT count(*) FROM uk_items WHERE id >= 700").fetchone() == (0,)


def test_do_update_under_repeatable_read_refuses_a_row_committed_after_its_snapshot(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as writer, psycopg.connect(shoal) as upserter:
        upserter.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        upserter.execute("SELECT count(*) FROM uk_items").fetchone()
        writer.execute("INSERT INTO uk_items VALUES (900, 'late', 1)")
        with pytest.raises(psycopg.errors.SerializationFailure):
            upserter.execute("INSERT INTO uk_items VALUES (900, 'mine', 2) ON CONFLICT (id) DO UPDATE SET qty = 2")
        upserter.rollback()
        upserter.execute("INSERT INTO uk_items VALUES (900, 'mine', 2) ON CONFLICT (id) DO UPDATE SET qty = 2")
        upserter.commit()
        assert writer.execute("SELECT name, qty FROM uk_items WHERE id = 900").fetchone() == ("late", 2)
        writer.execute("DELETE FROM uk_items WHERE id = 900")
