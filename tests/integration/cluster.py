"""Starting and stopping real Shoal clusters (`shoal local`) for the integration tests."""

import json
import os
import pathlib
import select
import signal
import subprocess
import time

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOAL_BINARY = os.environ.get("SHOAL_BINARY", str(REPO_ROOT / "build" / "release" / "cli" / "shoal"))
READY_TIMEOUT_S = 60
STOP_TIMEOUT_S = 15


def log_tail(path, lines=20):
    try:
        return "".join(pathlib.Path(path).read_text(errors="replace").splitlines(True)[-lines:])
    except OSError:
        return "(no log)"


class LocalCluster:
    """A `shoal local` process tree: one coordinator and N workers on free ports."""

    def __init__(self, data_dir, workers=2, extra_args=(), env=None):
        self.data_dir = pathlib.Path(data_dir)
        self.workers = workers
        self.extra_args = list(extra_args)
        self.env = env
        self.process = None
        self.port = None
        self.dsn = None
        self.output = []

    def start(self):
        try:
            return self._start()
        except BaseException:
            self.kill()  # never leave a half-started cluster behind
            raise

    def _start(self):
        self.process = subprocess.Popen(
            [SHOAL_BINARY, "local", "--workers", str(self.workers), "--pg-port", "0", "--data-dir", str(self.data_dir),
             *self.extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, **(self.env or {})})
        deadline = time.monotonic() + READY_TIMEOUT_S
        output = self.process.stdout.fileno()
        os.set_blocking(output, False)
        buffered = ""
        while time.monotonic() < deadline:
            select.select([output], [], [], 0.1)
            try:
                chunk = os.read(output, 65536)
            except BlockingIOError:
                chunk = b""
            if chunk:
                buffered += chunk.decode(errors="replace")
                for line in buffered.splitlines():
                    if line.startswith("ready: "):
                        self.dsn = line[len("ready: "):].strip()
                        self.port = int(self.dsn.rsplit(":", 1)[1].split("/")[0])
                        self.output.append(buffered)
                        return self
            elif self.process.poll() is not None:
                break
        self.kill()
        raise AssertionError(f"shoal local did not become ready:\n{buffered}\n--- coordinator log ---\n"
                             f"{log_tail(self.data_dir / 'logs' / 'coordinator.log')}")

    def conninfo(self):
        host = self.dsn.split("@", 1)[1].rsplit(":", 1)[0] if self.dsn else "127.0.0.1"
        return f"host={host} port={self.port} user=shoal dbname=shoal connect_timeout=10"

    def control_port(self):
        return json.loads((self.data_dir / "coordinator.ports.json").read_text())["control_port"]

    def child_pids(self):
        """Pids of the coordinator and workers: the children of the `shoal local` process."""
        children = pathlib.Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def worker_pid(self, node_name):
        for pid in self.child_pids():
            try:
                cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if node_name.encode() in cmdline:
                return pid
        raise AssertionError(f"no process for {node_name} among {self.child_pids()}")

    def stop(self):
        """SIGTERM, then wait; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self):
        if self.process and self.process.poll() is None:
            for pid in self.child_pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT_S)


def process_exists(pid):
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_until(predicate, timeout_s, interval_s=0.05):
    """Polls `predicate` until it is true or `timeout_s` passes; returns the elapsed seconds or None."""
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        if predicate():
            return time.monotonic() - start
        time.sleep(interval_s)
    return None


def run_sql(cluster, sql, *params):
    """Runs one statement in its own autocommit session; the rows it returns, or None for a command."""
    import psycopg

    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        cursor = connection.execute(sql, params or None)
        return cursor.fetchall() if cursor.description else None


def start_with_tpch(data_dir, workers=2, scale_factor=0.01, extra_args=()):
    """A started LocalCluster (`shoal local` with `extra_args`) with TPC-H loaded at `scale_factor`; the caller
    kills it."""
    local = LocalCluster(data_dir, workers=workers, extra_args=extra_args).start()
    try:
        run_sql(local, f"CALL tpch_load({scale_factor})")
    except BaseException:
        local.kill()
        raise
    return local
