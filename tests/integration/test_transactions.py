"""Story: a psycopg user's transactions mean what they say. Rows written in a block are the block's until COMMIT:
ROLLBACK leaves none behind, ROLLBACK TO SAVEPOINT undoes only what came after the savepoint, the session reads
its own writes and nobody else does. UPDATE and DELETE change rows in place, atomically across the workers. Two
sessions that change one row: the second fails with 40001 (first writer wins), so no update is lost. Each
single-session story is checked against PostgreSQL 15's answers; the two-session ones assert each outcome."""

import threading
import time

import psycopg
import pytest

from cluster import wait_until
from postgres_oracle import session_answers, set_up_both

SETUP = ["DROP TABLE IF EXISTS tx_accounts", "DROP TABLE IF EXISTS tx_gone",
         "CREATE TABLE tx_accounts (id integer, owner text, balance integer)",
         "INSERT INTO tx_accounts SELECT g, 'owner ' || (g % 7), 100 FROM generate_series(1, 200) g",
         "CREATE TABLE tx_gone (id integer)", "INSERT INTO tx_gone VALUES (3), (5), (7)"]

TOTALS = "SELECT count(*), sum(balance), sum(id) FROM tx_accounts"

SESSIONS = {
    "ROLLBACK leaves no row behind": [
        "BEGIN", "INSERT INTO tx_accounts VALUES (1000, 'new', 5)", TOTALS,
        "UPDATE tx_accounts SET balance = 0 WHERE id <= 10", "DELETE FROM tx_accounts WHERE id > 190", TOTALS,
        "ROLLBACK", TOTALS,
    ],
    "COMMIT keeps every change, and the session read its own writes before it": [
        "BEGIN", "INSERT INTO tx_accounts VALUES (1001, 'new', 7)",
        "SELECT owner, balance FROM tx_accounts WHERE id = 1001",
        "UPDATE tx_accounts SET balance = balance + 1 WHERE id = 1001",
        "SELECT owner, balance FROM tx_accounts WHERE id = 1001", "DELETE FROM tx_accounts WHERE id = 1001",
        "SELECT count(*) FROM tx_accounts WHERE id = 1001", "INSERT INTO tx_accounts VALUES (1002, 'kept', 9)",
        "COMMIT", "SELECT id, owner, balance FROM tx_accounts WHERE id > 1000 ORDER BY id",
        "DELETE FROM tx_accounts WHERE id = 1002",
    ],
    "ROLLBACK TO SAVEPOINT undoes the writes after it, and keeps those before": [
        "BEGIN", "INSERT INTO tx_accounts VALUES (2001, 'before', 1)", "SAVEPOINT s",
        "INSERT INTO tx_accounts VALUES (2002, 'after', 2)", "UPDATE tx_accounts SET balance = -1 WHERE id = 2001",
        "DELETE FROM tx_accounts WHERE id <= 50", TOTALS, "ROLLBACK TO SAVEPOINT s", TOTALS,
        "SELECT id, owner, balance FROM tx_accounts WHERE id > 2000 ORDER BY id",
        "SAVEPOINT t", "INSERT INTO tx_accounts VALUES (2003, 'released', 3)", "RELEASE SAVEPOINT t",
        "COMMIT", "SELECT id, owner, balance FROM tx_accounts WHERE id > 2000 ORDER BY id",
        "DELETE FROM tx_accounts WHERE id > 2000",
    ],
    "a failed statement aborts the block until ROLLBACK TO recovers it": [
        "BEGIN", "SAVEPOINT s", "UPDATE tx_accounts SET balance = balance / 0 WHERE id = 1",
        "SELECT 1", "ROLLBACK TO s", "UPDATE tx_accounts SET balance = 50 WHERE id = 1",
        "SELECT balance FROM tx_accounts WHERE id = 1", "ROLLBACK", "SELECT balance FROM tx_accounts WHERE id = 1",
    ],
    "UPDATE and DELETE with joins, subqueries and RETURNING": [
        "BEGIN",
        "UPDATE tx_accounts SET balance = tx_accounts.balance + g.id FROM tx_gone g WHERE tx_accounts.id = g.id",
        "SELECT id, balance FROM tx_accounts WHERE id < 10 ORDER BY id",
        "DELETE FROM tx_accounts USING tx_gone WHERE tx_accounts.id = tx_gone.id + 1",
        "DELETE FROM tx_accounts WHERE id IN (SELECT id * 10 FROM tx_gone) RETURNING id, owner",
        "UPDATE tx_accounts SET owner = upper(owner), balance = DEFAULT WHERE id BETWEEN 11 AND 13",
        "SELECT id, owner, balance FROM tx_accounts WHERE id BETWEEN 1 AND 15 ORDER BY id",
        "UPDATE tx_accounts SET id = id + 10000 WHERE id = 12", TOTALS,
        "UPDATE tx_accounts SET nosuch = 1", "ROLLBACK", TOTALS,
    ],
    "TRUNCATE in a block: ROLLBACK brings the rows back": [
        "BEGIN", "TRUNCATE tx_gone", "SELECT count(*) FROM tx_gone", "INSERT INTO tx_gone VALUES (9)",
        "SELECT id FROM tx_gone", "ROLLBACK", "SELECT id FROM tx_gone ORDER BY id",
    ],
    "a statement never reads the rows it writes itself": [
        "BEGIN", "INSERT INTO tx_gone SELECT id + 100 FROM tx_gone", "INSERT INTO tx_gone SELECT id + 1000 FROM tx_gone",
        "UPDATE tx_gone SET id = id + 1", "INSERT INTO tx_gone VALUES (1)", "UPDATE tx_gone SET id = id * 2",
        "SELECT id FROM tx_gone ORDER BY id", "ROLLBACK",
    ],
    "what PostgreSQL refuses": [
        "UPDATE tx_accounts SET balance = 'many'", "UPDATE tx_accounts SET balance = 1, balance = 2",
        "DELETE FROM nosuch_table", "UPDATE tx_accounts SET id = 1 WHERE nosuch = 2",
    ],
}


@pytest.fixture(scope="module")
def both(cluster, postgres):
    shoal, oracle = set_up_both(cluster, postgres, SETUP)
    yield shoal, oracle
    session_answers(shoal, SETUP[:2])


@pytest.mark.parametrize("name", SESSIONS)
def test_a_transaction_answers_as_postgresql(both, name):
    shoal, postgres = both
    assert session_answers(shoal, SESSIONS[name]) == session_answers(postgres, SESSIONS[name])


RETURNING = [
    "UPDATE tx_accounts SET balance = balance + id WHERE id <= 5 RETURNING id, balance, balance - id AS before",
    "UPDATE tx_accounts AS a SET owner = g.id::text FROM tx_gone g WHERE a.id = g.id RETURNING *",
    "UPDATE tx_accounts SET balance = balance * 2 WHERE id = 2 RETURNING tx_accounts.*, 'fixed', balance > 200",
    "UPDATE tx_accounts SET id = id + 5000 WHERE id BETWEEN 6 AND 8 RETURNING id - 5000 AS old_id, id",
    "UPDATE tx_accounts SET balance = 0 WHERE id = -1 RETURNING id",
    "DELETE FROM tx_accounts WHERE id > 5000 RETURNING *",
    "UPDATE tx_accounts SET balance = 1 RETURNING nosuch",
    "UPDATE tx_accounts SET balance = 1 RETURNING count(*)", "DELETE FROM tx_accounts RETURNING sum(balance)",
    "DELETE FROM tx_accounts RETURNING rank() OVER (ORDER BY id)",
]


def returned(conninfo):
    """Each RETURNING statement's tag, columns and rows (sorted: neither server promises an order), in a block
    that rolls back; then the same with a parameter, as drivers send it (Parse, Describe, Execute)."""
    answers = []
    with psycopg.connect(conninfo) as connection:
        for sql in RETURNING:
            try:
                cursor = connection.execute(sql)
                answers.append((sql, cursor.statusmessage, [column.name for column in cursor.description],
                                sorted(cursor.fetchall())))
            except psycopg.Error as error:
                answers.append((sql, error.sqlstate))
                connection.rollback()
        for sql in ["UPDATE tx_accounts SET balance = balance - %s WHERE id = 9 RETURNING id, balance",
                    "DELETE FROM tx_accounts WHERE id = %s RETURNING owner, balance"]:
            cursor = connection.execute(sql, (9,))
            answers.append((sql, cursor.statusmessage, [column.name for column in cursor.description],
                            cursor.fetchall()))
        connection.rollback()
    return answers


def test_update_and_delete_returning_give_the_changed_rows_as_postgresql(both):
    """UPDATE's RETURNING reads the new row (and the FROM tables' rows it met); DELETE's the deleted one."""
    shoal, postgres = both
    assert returned(shoal) == returned(postgres)


def test_update_returning_gives_the_values_stored_and_refuses_what_it_cannot_read(both):
    """A volatile SET expression runs once per row: RETURNING gives what was stored. A subquery in RETURNING
    would read the row as it was, so it is refused (0A000) rather than answered wrong."""
    shoal, _ = both
    with psycopg.connect(shoal) as connection:
        returned = connection.execute("UPDATE tx_accounts SET owner = gen_random_uuid()::text, "
                                      "balance = (random() * 1000)::integer WHERE id <= 20 "
                                      "RETURNING id, owner, balance").fetchall()
        stored = connection.execute("SELECT id, owner, balance FROM tx_accounts WHERE id <= 20").fetchall()
        assert len(returned) == 20 and sorted(returned) == sorted(stored)
        connection.rollback()
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            connection.execute("UPDATE tx_accounts SET balance = 0 WHERE id = 1 "
                               "RETURNING (SELECT count(*) FROM tx_gone WHERE tx_gone.id = tx_accounts.balance)")
        connection.rollback()


def total(connection):
    return connection.execute("SELECT count(*), sum(balance) FROM tx_accounts").fetchone()


def test_other_sessions_never_see_uncommitted_rows(both):
    shoal, _ = both
    with psycopg.connect(shoal) as writer, psycopg.connect(shoal, autocommit=True) as reader:
        before = total(reader)
        writer.execute("INSERT INTO tx_accounts VALUES (3001, 'pending', 1000)")
        writer.execute("UPDATE tx_accounts SET balance = balance + 1")
        assert total(writer) == (before[0] + 1, before[1] + 1000 + before[0] + 1)
        assert total(reader) == before  # no dirty read
        writer.rollback()
        assert total(reader) == before
        writer.execute("INSERT INTO tx_accounts VALUES (3001, 'committed', 1000)")
        writer.commit()
        assert total(reader) == (before[0] + 1, before[1] + 1000)
        writer.execute("DELETE FROM tx_accounts WHERE id = 3001")
        writer.commit()


def test_the_second_writer_of_a_row_fails_with_40001_and_the_first_commit_stands(both):
    shoal, _ = both
    with psycopg.connect(shoal) as first, psycopg.connect(shoal) as second:
        first.execute("UPDATE tx_accounts SET balance = 1 WHERE id = 100")
        with pytest.raises(psycopg.errors.SerializationFailure):
            second.execute("UPDATE tx_accounts SET balance = 2 WHERE id = 100")
        second.rollback()
        first.commit()
        # A transaction whose snapshot predates that commit may not overwrite it either.
        second.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        assert second.execute("SELECT balance FROM tx_accounts WHERE id = 100").fetchone() == (1,)
        first.execute("UPDATE tx_accounts SET balance = 3 WHERE id = 100")
        first.commit()
        assert second.execute("SELECT balance FROM tx_accounts WHERE id = 100").fetchone() == (1,)
        with pytest.raises(psycopg.errors.SerializationFailure):
            second.execute("DELETE FROM tx_accounts WHERE id = 100")
        second.rollback()
        assert second.execute("SELECT balance FROM tx_accounts WHERE id = 100").fetchone() == (3,)
        second.execute("UPDATE tx_accounts SET balance = 100 WHERE id = 100")
        second.commit()


def test_read_committed_sees_each_commit_and_repeatable_read_keeps_its_snapshot(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as writer, psycopg.connect(shoal) as committed, \
            psycopg.connect(shoal) as repeatable:
        repeatable.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        before = total(repeatable)
        assert total(committed) == before
        writer.execute("INSERT INTO tx_accounts VALUES (4001, 'late', 1)")
        assert total(committed) == (before[0] + 1, before[1] + 1)
        assert total(repeatable) == before
        repeatable.commit()
        assert total(repeatable) == (before[0] + 1, before[1] + 1)
        writer.execute("DELETE FROM tx_accounts WHERE id = 4001")


def test_serializable_runs_as_repeatable_read_and_says_so(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        notices = []
        connection.add_notice_handler(lambda diagnostic: notices.append(diagnostic.message_primary))
        connection.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        assert connection.execute("SHOW transaction_isolation").fetchone() == ("serializable",)
        connection.execute("ROLLBACK")
        assert any("REPEATABLE READ" in notice for notice in notices)


def test_concurrent_increments_with_retries_lose_no_update(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as connection:
        start = connection.execute("SELECT balance FROM tx_accounts WHERE id = 150").fetchone()[0]
    increments_per_session, failures = 10, []

    def increment():
        with psycopg.connect(shoal) as session:
            done = 0
            while done < increments_per_session:
                try:
                    session.execute("UPDATE tx_accounts SET balance = balance + 1 WHERE id = 150")
                    session.commit()
                    done += 1
                except psycopg.errors.SerializationFailure:
                    session.rollback()
                except Exception as error:  # noqa: BLE001 (reported below)
                    failures.append(error)
                    return

    threads = [threading.Thread(target=increment) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    with psycopg.connect(shoal, autocommit=True) as connection:
        assert connection.execute("SELECT balance FROM tx_accounts WHERE id = 150").fetchone() == (
            start + 4 * increments_per_session,)
        assert connection.execute("SELECT count(*) FROM tx_accounts WHERE id = 150").fetchone() == (1,)


def test_a_client_that_disconnects_mid_transaction_leaves_nothing(both):
    shoal, _ = both
    with psycopg.connect(shoal, autocommit=True) as reader:
        before = total(reader)
        session = psycopg.connect(shoal)
        session.execute("INSERT INTO tx_accounts VALUES (5001, 'gone', 1)")
        session.execute("UPDATE tx_accounts SET balance = 0 WHERE id = 1")
        session.close()  # without COMMIT
        assert total(reader) == before

        def row_is_free():
            # Its row lock goes with it (once the coordinator has seen the connection close).
            try:
                reader.execute("UPDATE tx_accounts SET balance = balance WHERE id = 1")
                return True
            except psycopg.errors.SerializationFailure:
                return False

        assert wait_until(row_is_free, 10) is not None


def test_executemany_of_10000_rows_commits_within_5_seconds(both):
    """psycopg's executemany in its default transaction: the rows wait in the block's write buffer and reach
    the workers together, before the block's next read or its COMMIT."""
    shoal, _ = both
    rows = [(10000 + i, f"bulk {i}", i % 50) for i in range(10000)]
    with psycopg.connect(shoal) as connection:
        started = time.monotonic()
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO tx_accounts VALUES (%s, %s, %s)", rows)
        assert connection.execute("SELECT count(*) FROM tx_accounts WHERE id >= 10000").fetchone() == (10000,)
        connection.commit()
        elapsed = time.monotonic() - started
        assert connection.execute("SELECT count(*), sum(balance) FROM tx_accounts WHERE id >= 10000").fetchone() == (
            10000, sum(row[2] for row in rows))
        connection.execute("DELETE FROM tx_accounts WHERE id >= 10000")
        connection.commit()
    assert elapsed < 5, f"executemany of 10,000 rows took {elapsed:.1f} s"


REGIONS = "CREATE TABLE tx_regions (id integer, name text, rate numeric(4,2))"
REGION_ROWS = "INSERT INTO tx_regions VALUES (1, 'north', 1.50), (2, 'south', 2.25), (3, 'east', NULL), " \
              "(4, 'dup', 1.00), (4, 'dup', 1.00), (5, NULL, 0.50)"
# tx_spread is hash-distributed: joined with it, each worker reads its own copy of tx_regions.
SPREAD = ["DROP TABLE IF EXISTS tx_spread", "CREATE TABLE tx_spread (k integer PRIMARY KEY)",
          "INSERT INTO tx_spread SELECT generate_series(1, 40)"]
EVERY_COPY = "SELECT s.k, r.id, r.name, r.rate FROM tx_spread s JOIN tx_regions r ON r.id = s.k % 7 " \
             "ORDER BY 1, 2, 3, 4"

REPLICATED_SESSIONS = {
    "UPDATE and DELETE of a replicated table change every copy, and ROLLBACK none": [
        "BEGIN", "UPDATE tx_regions SET rate = rate + 1 WHERE id <= 2", "DELETE FROM tx_regions WHERE rate IS NULL",
        "SELECT id, name, rate FROM tx_regions ORDER BY id", EVERY_COPY, "ROLLBACK",
        "SELECT id, name, rate FROM tx_regions ORDER BY id", EVERY_COPY,
        "UPDATE tx_regions SET rate = rate * 2 WHERE name = 'dup'", "UPDATE tx_regions SET name = 'west' WHERE id = 3",
        "DELETE FROM tx_regions WHERE name IS NULL", EVERY_COPY,
    ],
    "rows equal in every column change together, found through any copy": [
        "UPDATE tx_regions r SET rate = 7 FROM tx_spread s WHERE s.k = r.id + 30",
        "UPDATE tx_regions SET id = 6 WHERE id = 4 RETURNING id, name", EVERY_COPY,
        "DELETE FROM tx_regions USING tx_spread s WHERE s.k = tx_regions.id * 5",
        "SELECT id, name, rate FROM tx_regions ORDER BY id", EVERY_COPY,
        "BEGIN", "TRUNCATE tx_regions", "SELECT count(*) FROM tx_regions", "ROLLBACK", "SELECT count(*) FROM tx_regions",
    ],
}


@pytest.fixture(scope="module")
def replicated(cluster, postgres):
    """tx_regions, replicated on Shoal (a plain table on PostgreSQL), and tx_spread."""
    shoal, oracle = set_up_both(cluster, postgres, SPREAD)
    for conninfo, options in ((shoal, " WITH (distribution = 'replicated')"), (oracle, "")):
        session_answers(conninfo, ["DROP TABLE IF EXISTS tx_regions", REGIONS + options, REGION_ROWS])
    yield shoal, oracle
    session_answers(shoal, ["DROP TABLE tx_regions", "DROP TABLE tx_spread"])


@pytest.mark.parametrize("name", REPLICATED_SESSIONS)
def test_a_replicated_table_changes_as_on_postgresql(replicated, name):
    shoal, postgres = replicated
    assert session_answers(shoal, REPLICATED_SESSIONS[name]) == session_answers(postgres, REPLICATED_SESSIONS[name])
