#!/usr/bin/env bash
# Installs everything Shoal needs to build, run and test on Debian 12.
# Idempotent: when everything is present it only checks, which takes a few seconds.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian packages named in DESIGN.md, plus the build tools.
debian_packages=(
  build-essential cmake ninja-build ccache pkg-config clang-format
  rdma-core libibverbs-dev librdmacm-dev ibverbs-utils libnuma-dev libssl-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  llvm-15-dev libpg-query-dev libre2-dev
  # Time zones of timestamptz: Howard Hinnant's date/tz over Debian's tzdata (/usr/share/zoneinfo).
  libhowardhinnant-date-dev tzdata
  etcd-server etcd-client
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libcpp-httplib-dev
  postgresql-client
  # A scratch PostgreSQL 15 is the semantic oracle of the SQL tests (tests/integration/postgres_oracle.py).
  postgresql-15
  # pgjdbc's client suite (tests/integration/test_pgjdbc.py): javac, and Maven to fetch the driver.
  default-jdk-headless maven
  # The SQL fuzzer of tests/integration/test_sqlsmith.py: random queries must never crash or hang a cluster.
  sqlsmith
  # The libFuzzer targets of tests/fuzz (the fuzz preset): clang, with libFuzzer and the sanitizers' runtimes.
  clang-15
  python3-venv iproute2 procps
  # The soft-RoCE VM of the RDMA tests (deploy/rxe-vm): its emulator, and what its image is built from.
  qemu-system-x86 busybox-static xz-utils kmod cpio ibverbs-providers
)

missing=()
for package in "${debian_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python tools for the integration tests, in a git-ignored venv.
venv="$repo_root/.venv"
python_requirements="$repo_root/deploy/requirements-test.txt"
stamp="$venv/.requirements.stamp"
if [[ ! -x "$venv/bin/python" ]]; then
  echo "install-deps: creating Python venv in $venv"
  python3 -m venv "$venv"
fi
if [[ ! -f "$stamp" ]] || ! cmp -s "$python_requirements" "$stamp"; then
  echo "install-deps: installing Python test tools"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$python_requirements"
  cp "$python_requirements" "$stamp"
fi
# The RDMA tests run inside the soft-RoCE VM, which sees the host's /usr but not the rest of its file system:
# their Python tools live in a venv of Debian's own /usr/bin/python3 (the main .venv may use another Python).
rxe_venv="$repo_root/.venv-rxe"
rxe_requirements="$repo_root/deploy/rxe-vm/requirements.txt"
rxe_stamp="$rxe_venv/.requirements.stamp"
if [[ ! -x "$rxe_venv/bin/python" ]]; then
  echo "install-deps: creating the RDMA tests' Python venv in $rxe_venv"
  /usr/bin/python3 -m venv "$rxe_venv"
fi
if [[ ! -f "$rxe_stamp" ]] || ! cmp -s "$rxe_requirements" "$rxe_stamp"; then
  "$rxe_venv/bin/pip" install -q --disable-pip-version-check -r "$rxe_requirements"
  cp "$rxe_requirements" "$rxe_stamp"
fi
# pgjdbc, the PostgreSQL JDBC driver that tests/integration/test_pgjdbc.py drives, from Maven Central into a
# git-ignored folder; fetched once, then kept.
pgjdbc_version="42.7.14"
pgjdbc_dir="$repo_root/.jdbc"
if [[ ! -s "$pgjdbc_dir/postgresql-$pgjdbc_version.jar" ]]; then
  echo "install-deps: fetching pgjdbc $pgjdbc_version"
  # Maven prints only on failure with -q, yet leaves colour codes behind: its output is shown when it fails.
  if ! mvn_output="$(mvn -q -B dependency:copy -Dartifact="org.postgresql:postgresql:$pgjdbc_version" \
    -DoutputDirectory="$pgjdbc_dir" 2>&1)"; then
    echo "$mvn_output" >&2
    exit 1
  fi
fi
echo "install-deps: all dependencies present"
