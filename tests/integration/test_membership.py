"""Workers join the coordinator, stay alive by heartbeats, and are seen going down."""

import json
import os
import signal
import subprocess
import time

import psycopg
import pytest

from cluster import SHOAL_BINARY, process_exists, wait_until


def nodes(cluster):
    """shoal_nodes keyed by node name: (node_id, role, address, state, seconds_since_heartbeat)."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        rows = connection.execute(
            "SELECT name, node_id, role, address, state, seconds_since_heartbeat FROM shoal_nodes").fetchall()
    return {row[0]: row[1:] for row in rows}


def test_workers_appear_in_shoal_nodes(cluster):
    """Right after `ready`, the coordinator and both workers are listed and up."""
    listed = nodes(cluster)
    assert sorted(listed) == ["coordinator", "worker-1", "worker-2"]
    assert listed["coordinator"][:3] == (0, "coordinator", f"127.0.0.1:{cluster.port}")
    assert sorted(listed[name][0] for name in ("worker-1", "worker-2")) == [1, 2]
    for name in ("worker-1", "worker-2"):
        _, role, address, state, seconds = listed[name]
        assert (role, state) == ("worker", "up")
        assert address.startswith("127.0.0.1:")
        assert 0 <= seconds < 2


def test_killed_worker_shows_down_within_3_seconds(own_cluster):
    """`kill -9` of a worker: shoal_nodes shows it down within 3 s while queries keep working (with
    --no-restart, as on a host without a supervisor)."""
    cluster = own_cluster(workers=2, extra_args=["--no-restart"])
    victim = cluster.worker_pid("worker-1")
    os.kill(victim, signal.SIGKILL)
    killed_at = time.monotonic()

    def worker_one_down():
        return nodes(cluster)["worker-1"][3] == "down"

    elapsed = wait_until(worker_one_down, timeout_s=3.0)
    assert elapsed is not None, f"worker-1 still shown as {nodes(cluster)['worker-1'][3]} 3 s after kill -9"
    assert time.monotonic() - killed_at <= 3.0
    assert nodes(cluster)["worker-2"][3] == "up"
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT 1 + 1").fetchone() == (2,)


def test_a_killed_worker_is_restarted(own_cluster):
    """`kill -9` of a worker: `shoal local` starts it again after a second, as systemd would, and says so; it
    comes back under its name, with its data, and queries need it again."""
    cluster = own_cluster(workers=2)
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        connection.execute("CREATE TABLE restart_probe (id integer) WITH (distribution = 'hash(id)')")
        connection.execute("INSERT INTO restart_probe VALUES " + ", ".join(f"({i})" for i in range(1, 1001)))
    victim = cluster.worker_pid("worker-1")
    old_address = nodes(cluster)["worker-1"][2]
    os.kill(victim, signal.SIGKILL)

    def back_up():
        # The new process listens on a port of its own: it is back once shoal_nodes shows it there.
        _, _, address, state, _ = nodes(cluster)["worker-1"]
        return address != old_address and state == "up"

    assert wait_until(back_up, timeout_s=10) is not None, "worker-1 was not restarted"
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        rejoins = dict(connection.execute("SELECT name, rejoins FROM shoal_nodes").fetchall())
    assert rejoins == {"coordinator": 0, "worker-1": 1, "worker-2": 0}
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT count(*), sum(id) FROM restart_probe").fetchone() == (1000, 500500)
    # What `shoal local` said meanwhile (its output is not read after "ready").
    said = os.read(cluster.process.stdout.fileno(), 1 << 20).decode(errors="replace")
    assert "worker-1 was killed by signal 9" in said and "restarting worker-1 in 1 s" in said, said
    assert "restarted worker-1" in said, said


def test_a_table_dropped_while_a_worker_is_down_leaves_no_storage_on_it(own_cluster):
    """DROP TABLE while worker-1 is down: the drop answers at once, the coordinator keeps what worker-1 missed
    in its catalog, and once `shoal local` has restarted worker-1 its files of the table are gone too."""
    cluster = own_cluster(workers=2)
    storage = cluster.data_dir / "worker-1" / "storage"
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        connection.execute("CREATE TABLE drop_probe (id integer) WITH (distribution = 'hash(id)')")
        connection.execute("INSERT INTO drop_probe VALUES " + ", ".join(f"({i})" for i in range(1, 101)))
        assert any(storage.iterdir()), "worker-1 holds none of the table"
        old_address = nodes(cluster)["worker-1"][2]
        os.kill(cluster.worker_pid("worker-1"), signal.SIGKILL)
        connection.execute("DROP TABLE drop_probe")

    def dropped_on_return():
        _, _, address, state, _ = nodes(cluster)["worker-1"]
        return address != old_address and state == "up" and not any(storage.iterdir())

    assert wait_until(dropped_on_return, timeout_s=15) is not None, list(storage.iterdir())


def test_sigterm_stops_the_whole_cluster_without_orphans(own_cluster):
    """SIGTERM to `shoal local` stops the coordinator and every worker, and it exits 0."""
    cluster = own_cluster(workers=2)
    children = cluster.child_pids()
    assert len(children) == 3
    assert cluster.stop() == 0
    assert wait_until(lambda: not any(process_exists(pid) for pid in children), timeout_s=5) is not None


def test_killing_shoal_local_takes_its_children_along(own_cluster):
    """Even `kill -9` of `shoal local` leaves no orphans: the children follow their parent."""
    cluster = own_cluster(workers=1)
    children = cluster.child_pids()
    cluster.process.kill()
    cluster.process.wait(timeout=10)
    assert wait_until(lambda: not any(process_exists(pid) for pid in children), timeout_s=10) is not None


@pytest.fixture
def cluster_secret(tmp_path):
    path = tmp_path / "cluster-secret"
    subprocess.run([SHOAL_BINARY, "secret", "init", str(path)], check=True, capture_output=True, timeout=30)
    return path


@pytest.fixture
def bare_coordinator(tmp_path, cluster_secret):
    port_file = tmp_path / "ports.json"
    process = subprocess.Popen(
        [SHOAL_BINARY, "coordinator", "--pg-port", "0", "--control-port", "0", "--port-file", str(port_file),
         "--cluster-id", "alpha", "--cluster-secret-file", str(cluster_secret)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_until(port_file.exists, timeout_s=30) is not None
    yield {**json.loads(port_file.read_text()), "secret": cluster_secret}
    process.terminate()
    process.wait(timeout=15)


@pytest.mark.parametrize("extra_flags, message", [
    (["--cluster-id", "beta"], "cluster id mismatch"),
    (["--cluster-id", "alpha", "--debug-protocol-version", "99"], "protocol version mismatch"),
    (["--cluster-id", "alpha", "--cluster-secret-file", "OTHER"], "not a member of this cluster"),
])
def test_mismatched_worker_is_refused_clearly(bare_coordinator, tmp_path, extra_flags, message):
    """A worker of another cluster, protocol version or secret is refused, says why, and exits 2; the refusal
    does not tell it the coordinator's cluster id."""
    other_secret = tmp_path / "other-secret"
    subprocess.run([SHOAL_BINARY, "secret", "init", str(other_secret)], check=True, timeout=30)
    flags = [str(other_secret) if flag == "OTHER" else flag for flag in extra_flags]
    if "--cluster-secret-file" not in flags:
        flags += ["--cluster-secret-file", str(bare_coordinator["secret"])]
    worker = subprocess.run(
        [SHOAL_BINARY, "worker", "--coordinator", f"127.0.0.1:{bare_coordinator['control_port']}", *flags],
        capture_output=True, text=True, timeout=30)
    assert worker.returncode == 2
    assert message in worker.stderr
    if "beta" in flags:
        assert "alpha" not in worker.stderr


@pytest.mark.parametrize("subcommand", ["coordinator", "worker", "local"])
def test_every_subcommand_has_help(subcommand):
    result = subprocess.run([SHOAL_BINARY, subcommand, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    assert "--" in result.stdout
