"""Story: an operator runs etcd as it should be run in production: TLS with client certificates
(--client-cert-auth) and authentication enabled. A coordinator and a worker given the CA, a client certificate
and an etcd user (--etcd-ca, --etcd-cert, --etcd-key, --etcd-user, --etcd-password-file) keep their membership
and catalog there: the worker joins, a table created survives in etcd, and queries run; the auth token, which
this etcd expires after 2 s, is renewed as it goes. A coordinator with the wrong password stops at once saying
so; one without TLS, or without a client certificate, never gets in. Without --etcd-ca the coordinator warns
that etcd is reached in plaintext. (issue 27, internal traffic: "etcd connections take TLS and credentials")"""

import json
import os
import shutil
import socket
import subprocess
import time

import psycopg
import pytest

from cluster import SHOAL_BINARY, wait_until

PASSWORD = "etcd-root-password"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SecuredEtcd:
    def __init__(self, directory):
        self.directory = directory
        self.certs = directory / "certs"
        made = subprocess.run([SHOAL_BINARY, "certs", "init", str(self.certs)], capture_output=True, text=True,
                              timeout=30)
        assert made.returncode == 0, made.stderr
        self.port, peer = free_port(), free_port()
        self.endpoint = f"127.0.0.1:{self.port}"
        client_url = f"https://{self.endpoint}"
        self.log = open(directory / "etcd.log", "w")
        self.process = subprocess.Popen(
            ["etcd", "--data-dir", str(directory / "etcd-data"), "--listen-client-urls", client_url,
             "--advertise-client-urls", client_url, "--listen-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", f"default=http://127.0.0.1:{peer}",
             "--cert-file", str(self.certs / "node.crt"), "--key-file", str(self.certs / "node.key"),
             "--trusted-ca-file", str(self.certs / "ca.crt"), "--client-cert-auth", "--auth-token-ttl", "2"],
            stdout=self.log, stderr=subprocess.STDOUT)
        assert wait_until(lambda: self.etcdctl("endpoint", "health").returncode == 0, 20), "etcd did not start"
        for command in (["user", "add", f"root:{PASSWORD}"], ["auth", "enable"]):
            done = self.etcdctl(*command)
            assert done.returncode == 0, done.stderr

    def etcdctl(self, *arguments, user=None):
        command = ["etcdctl", "--endpoints", f"https://{self.endpoint}", "--cacert", str(self.certs / "ca.crt"),
                   "--cert", str(self.certs / "node.crt"), "--key", str(self.certs / "node.key")]
        if user:
            command += ["--user", user]
        return subprocess.run(command + list(arguments), capture_output=True, text=True, timeout=20,
                              env={**os.environ, "ETCDCTL_API": "3"})

    def flags(self, password_file, tls=True, client_certificate=True, user="root"):
        flags = ["--etcd", self.endpoint]
        if tls:
            flags += ["--etcd-ca", str(self.certs / "ca.crt")]
        if tls and client_certificate:
            flags += ["--etcd-cert", str(self.certs / "node.crt"), "--etcd-key", str(self.certs / "node.key")]
        if user:
            flags += ["--etcd-user", user, "--etcd-password-file", str(password_file)]
        return flags

    def stop(self):
        self.process.kill()
        self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def etcd(tmp_path_factory):
    server = SecuredEtcd(tmp_path_factory.mktemp("secured-etcd"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def secrets(tmp_path_factory):
    directory = tmp_path_factory.mktemp("etcd-secrets")
    subprocess.run([SHOAL_BINARY, "secret", "init", str(directory / "cluster-secret")], check=True, timeout=30)
    for name, text in {"right": PASSWORD, "wrong": "not-the-password"}.items():
        (directory / name).write_text(text + "\n")
        (directory / name).chmod(0o600)
    return directory


def start_coordinator(etcd, secrets, directory, **flags):
    directory.mkdir(exist_ok=True)
    log = open(directory / "coordinator.log", "w")
    process = subprocess.Popen(
        [SHOAL_BINARY, "coordinator", "--cluster-id", "etcd-secured", "--pg-port", "0", "--control-port", "0",
         "--port-file", str(directory / "ports.json"), "--data-dir", str(directory),
         "--cluster-secret-file", str(secrets / "cluster-secret"),
         *etcd.flags(secrets / flags.pop("password", "right"), **flags)],
        stdout=log, stderr=subprocess.STDOUT)
    return process, directory / "coordinator.log"


def stop(process):
    if process.poll() is None:
        process.kill()
    process.wait()


def test_a_cluster_keeps_its_membership_and_catalog_in_a_secured_etcd(etcd, secrets, tmp_path):
    coordinator, log = start_coordinator(etcd, secrets, tmp_path / "coordinator")
    worker_log = open(tmp_path / "worker.log", "w")
    worker = subprocess.Popen(
        [SHOAL_BINARY, "worker", "--cluster-id", "etcd-secured", "--node-name", "worker-1", "--listen-port", "0",
         "--data-dir", str(tmp_path / "worker"), "--cluster-secret-file", str(secrets / "cluster-secret"),
         "--lease-ttl", "3", *etcd.flags(secrets / "right")],
        stdout=worker_log, stderr=subprocess.STDOUT)
    try:
        ports = tmp_path / "coordinator" / "ports.json"
        assert wait_until(lambda: ports.exists() and ports.read_text().strip(), 30), log.read_text()
        conninfo = f"host=127.0.0.1 port={json.loads(ports.read_text())['pg_port']} user=shoal dbname=shoal"

        def workers_up():
            with psycopg.connect(conninfo, autocommit=True) as connection:
                return connection.execute(
                    "SELECT count(*) FROM shoal_nodes WHERE role = 'worker' AND state = 'up'").fetchone()[0] == 1

        assert wait_until(workers_up, 30), (tmp_path / "worker.log").read_text()
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute("CREATE TABLE kept_in_etcd (k integer, v text)")
            connection.execute("INSERT INTO kept_in_etcd VALUES (1, 'one'), (2, 'two')")
            # Past the token's 2 s life: every process renews its token and carries on.
            time.sleep(5)
            assert connection.execute("SELECT sum(k) FROM kept_in_etcd").fetchone() == (3,)
            connection.execute("CREATE TABLE made_after_the_token_expired (k integer)")
        # The catalog is in etcd, readable only with credentials.
        listed = etcd.etcdctl("get", "--prefix", "--keys-only", "", user=f"root:{PASSWORD}")
        assert listed.returncode == 0, listed.stderr
        assert "etcd-secured" in listed.stdout
        anonymous = subprocess.run(
            ["etcdctl", "--endpoints", f"https://{etcd.endpoint}", "--cacert", str(etcd.certs / "ca.crt"),
             "get", "--prefix", ""], capture_output=True, text=True, timeout=20, env={**os.environ, "ETCDCTL_API": "3"})
        assert anonymous.returncode != 0
        assert worker.poll() is None and coordinator.poll() is None
        assert "reached in plaintext" not in log.read_text()
    finally:
        stop(worker)
        stop(coordinator)
        worker_log.close()


@pytest.mark.parametrize("how, flags, expected", [
    ("the wrong password", {"password": "wrong"}, "authentication failed"),
    ("no TLS", {"tls": False}, "did not let user"),
    ("TLS without a client certificate", {"client_certificate": False}, "did not let user"),
])
def test_a_coordinator_without_the_right_credentials_never_gets_in(etcd, secrets, tmp_path, how, flags, expected):
    coordinator, log = start_coordinator(etcd, secrets, tmp_path / "coordinator", **flags)
    try:
        coordinator.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"a coordinator with {how} kept running: {log.read_text()[-2000:]}")
    finally:
        stop(coordinator)
    assert coordinator.returncode != 0
    assert expected in log.read_text(), log.read_text()[-2000:]
    assert not (tmp_path / "coordinator" / "ports.json").exists() or \
        not (tmp_path / "coordinator" / "ports.json").read_text().strip()


def test_a_coordinator_warns_that_a_plaintext_etcd_is_plaintext(tmp_path):
    if shutil.which("etcd") is None:
        pytest.fail("etcd-server is not installed (deploy/install-deps.sh installs it)")
    port, peer = free_port(), free_port()
    url = f"http://127.0.0.1:{port}"
    with open(tmp_path / "etcd.log", "w") as etcd_log:
        server = subprocess.Popen(
            ["etcd", "--data-dir", str(tmp_path / "etcd-data"), "--listen-client-urls", url,
             "--advertise-client-urls", url, "--listen-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", f"default=http://127.0.0.1:{peer}"], stdout=etcd_log, stderr=subprocess.STDOUT)
        try:
            subprocess.run([SHOAL_BINARY, "secret", "init", str(tmp_path / "secret")], check=True, timeout=30)
            with open(tmp_path / "coordinator.log", "w") as log:
                coordinator = subprocess.Popen(
                    [SHOAL_BINARY, "coordinator", "--pg-port", "0", "--control-port", "0", "--etcd",
                     f"127.0.0.1:{port}", "--cluster-secret-file", str(tmp_path / "secret"),
                     "--port-file", str(tmp_path / "ports.json")], stdout=log, stderr=subprocess.STDOUT)
                try:
                    assert wait_until(lambda: "reached in plaintext" in (tmp_path / "coordinator.log").read_text(),
                                      30), (tmp_path / "coordinator.log").read_text()
                finally:
                    stop(coordinator)
        finally:
            stop(server)
