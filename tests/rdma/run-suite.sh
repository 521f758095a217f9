#!/usr/bin/env bash
# The RDMA test suite, run inside the soft-RoCE VM by `make test-rdma` (deploy/rxe-vm/run-in-vm.sh): the
# multiplexer's delivery, flow-control, lost-peer and wire-level tests over RDMA, then `shoal bench net` over
# RDMA and TPC-H on a 2-worker cluster whose exchanges go over RDMA.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${BUILD_DIR:-build/release}
export SHOAL_BINARY=$PWD/$build/cli/shoal

echo "== RDMA suite on a soft-RoCE device, kernel $(uname -r):"
ibv_devinfo -d rxe0 | grep -E 'hca_id|transport|state|link_layer' | sed 's/^/   /'
rdma link show | sed 's/^/   /'
failed=0

echo "== multiplexer and exchange tests over RDMA (rxe0 at 10.255.255.1)"
# Left out: two tests about TCP itself (a foreign TCP connection, the fallback when no RDMA device exists).
# The killed-peer test forks a node: it runs in a process of its own, before any RDMA memory is registered
# (pages registered before a fork are not the child's to use).
run_tests() {
  local test=$1 filter=$2
  SHOAL_TEST_TRANSPORT=rdma SHOAL_TEST_HOST=10.255.255.1 "$build/tests/$test" --gtest_filter="$filter" \
    --gtest_brief=1 > /tmp/gtest.log 2>&1
  local status=$?
  grep -v '\[info\]' /tmp/gtest.log
  ((status == 0)) || failed=1
}
run_tests multiplexer_tcp_test '*KilledPeer*'
run_tests multiplexer_tcp_test '-*KilledPeer*:*ForeignConnectionsAreRefused*:*WithoutRdmaDevice*'
run_tests exchange_test '*'

echo "== shoal bench net and TPC-H over RDMA"
# The venv of Debian's own Python (install-deps): the VM sees the host's /usr, not where another Python lives.
.venv-rxe/bin/python -m pytest -q -s -p no:cacheprovider tests/rdma || failed=1

if ((failed)); then
  echo "== RDMA suite FAILED (it ran on the soft-RoCE device rxe0)"
  exit 1
fi
echo "== RDMA suite passed: the RDMA path ran for real on the soft-RoCE device rxe0"
