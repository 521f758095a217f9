"""Story: eight sessions move money between accounts for a minute while the workers are killed with kill -9 one
after the other (`shoal local` starts each again). Transfers fail while a worker is down (08006, or 40001 when
they meet another transfer) and are retried; none is ever half applied: every snapshot read during the run,
and the table after it, holds the same total. SHOAL_BANK_SECONDS sets the length (60 by default)."""

import os
import random
import signal
import threading
import time

import psycopg

from cluster import wait_until

SECONDS = float(os.environ.get("SHOAL_BANK_SECONDS", "60"))
ACCOUNTS = 100
OPENING = 1000


def test_transfers_keep_the_total_while_workers_are_killed(own_cluster):
    cluster = own_cluster(workers=2)
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        connection.execute("CREATE TABLE accounts (id integer, balance integer)")
        connection.execute(f"INSERT INTO accounts SELECT g, {OPENING} FROM generate_series(1, {ACCOUNTS}) g")
    total = ACCOUNTS * OPENING
    stop = threading.Event()
    committed, retried, reads, wrong = [0], [0], [0], []
    lock = threading.Lock()

    def transfers(seed):
        chooser = random.Random(seed)
        session = None
        while not stop.is_set():
            try:
                if session is None or session.closed:
                    session = psycopg.connect(cluster.conninfo(), connect_timeout=5)
                a, b = chooser.sample(range(1, ACCOUNTS + 1), 2)
                amount = chooser.randint(1, 50)
                session.execute("UPDATE accounts SET balance = balance - %s WHERE id = %s", (amount, a))
                session.execute("UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, b))
                session.commit()
                with lock:
                    committed[0] += 1
            except psycopg.Error:
                with lock:
                    retried[0] += 1
                try:
                    session.rollback()
                except Exception:  # noqa: BLE001 (a broken connection: the next loop reconnects)
                    session = None
                time.sleep(0.01)

    def auditor():
        while not stop.is_set():
            try:
                with psycopg.connect(cluster.conninfo(), autocommit=True, connect_timeout=5) as connection:
                    while not stop.is_set():
                        seen = connection.execute("SELECT count(*), sum(balance) FROM accounts").fetchone()
                        with lock:
                            reads[0] += 1
                            if seen != (ACCOUNTS, total):
                                wrong.append(seen)
            except psycopg.Error:
                time.sleep(0.05)

    threads = [threading.Thread(target=transfers, args=(seed,)) for seed in range(8)]
    threads.append(threading.Thread(target=auditor))
    for thread in threads:
        thread.start()
    started = time.monotonic()
    killed = []
    try:
        for victim in ("worker-1", "worker-2"):
            time.sleep(SECONDS / 3)
            pid = cluster.worker_pid(victim)
            os.kill(pid, signal.SIGKILL)
            killed.append(victim)

            def back(name=victim, old=pid):
                try:
                    return cluster.worker_pid(name) != old
                except AssertionError:
                    return False

            assert wait_until(back, 30) is not None, f"{victim} was not started again"
        time.sleep(max(0.0, SECONDS - (time.monotonic() - started)))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    assert killed == ["worker-1", "worker-2"]
    assert wrong == [], f"snapshots saw a transfer half applied: {wrong[:5]}"

    def settled():
        try:
            with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
                return connection.execute("SELECT count(*), sum(balance) FROM accounts").fetchone() is not None
        except psycopg.Error:
            return False

    assert wait_until(settled, 30) is not None
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT count(*), sum(balance) FROM accounts").fetchone() == (ACCOUNTS, total)
    assert committed[0] > 100, f"only {committed[0]} transfers committed ({retried[0]} retried)"
    assert reads[0] > 50, f"only {reads[0]} audits ran"
    print(f"{committed[0]} transfers committed, {retried[0]} retried, {reads[0]} audits")
