import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from cluster import LocalCluster, run_sql  # noqa: E402
from postgres_oracle import postgres  # noqa: E402,F401  (the fixture, for every test module)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """One shared cluster of a coordinator and two workers, for tests that do not harm it."""
    local = LocalCluster(tmp_path_factory.mktemp("shared-cluster"), workers=2).start()
    # Some suites log in as postgres, the scratch PostgreSQL's user, so that session_user and current_user
    # answer alike on both servers; a login needs its role.
    run_sql(local, "CREATE ROLE postgres SUPERUSER LOGIN")
    yield local
    assert local.stop() == 0, "shoal local should exit 0 on SIGTERM"


@pytest.fixture
def own_cluster(tmp_path):
    """A cluster of its own, for tests that kill nodes."""
    clusters = []

    def start(workers=2, data_dir=None, extra_args=(), env=None):
        directory = data_dir or tmp_path / f"cluster-{len(clusters)}"
        local = LocalCluster(directory, workers=workers, extra_args=extra_args, env=env).start()
        clusters.append(local)
        return local

    yield start
    for local in clusters:
        local.kill()
