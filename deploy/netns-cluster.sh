#!/usr/bin/env bash
# A Shoal cluster of separate "hosts" on one machine: network namespaces joined by a bridge, each with its
# own IP address, running a real etcd-server, a coordinator and N workers that find each other through etcd.
#
#   deploy/netns-cluster.sh up N [--sf SF]   create the namespaces, start everything, load TPC-H (SF 0.1)
#   deploy/netns-cluster.sh down             stop every process and remove the namespaces and the bridge
#   deploy/netns-cluster.sh start ROLE       start one process again: etcd, coordinator or worker-K
#   deploy/netns-cluster.sh stop ROLE        stop it (SIGTERM: a worker drains first; then SIGKILL after 30 s)
#   deploy/netns-cluster.sh status           the processes and the cluster's shoal_nodes
#
# Layout (root needed, for `ip netns`):
#   namespace shoal-n0 at 10.77.0.10: etcd (client port 2379) and the coordinator (SQL 5433, control 7433)
#   namespace shoal-nK at 10.77.0.(10+K): worker-K (gRPC 7500, exchange 7600, TCP transport)
#   bridge shoal-br at 10.77.0.1 in the caller's namespace, so psql on the host reaches the coordinator:
#     psql -h 10.77.0.10 -p 5433 -U shoal
#   host side of worker-K's link: veth shoal-vK (`ip link set shoal-vK down` cuts the worker off)
# Logs, data and pid files live in $SHOAL_NETNS_DIR (default build/netns-cluster).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${SHOAL_NETNS_DIR:-$REPO/build/netns-cluster}"
SHOAL="${SHOAL_BINARY:-$REPO/build/release/cli/shoal}"
TPCHGEN="${SHOAL_TPCHGEN:-$REPO/.venv/bin/tpchgen-cli}"
BRIDGE=shoal-br
SUBNET=10.77.0
CLUSTER_ID=netns
LEASE_TTL="${SHOAL_LEASE_TTL:-5}"

die() {
  echo "netns-cluster: $*" >&2
  exit 1
}

ip_of() { # ip_of K: the address of namespace shoal-nK
  echo "$SUBNET.$((10 + $1))"
}

need_root() {
  [[ $(id -u) == 0 ]] || die "needs root (it creates network namespaces)"
  command -v ip >/dev/null || die "needs iproute2's ip"
}

# add_host K: namespace shoal-nK with veth eth0 (host side shoal-vK on the bridge), address ip_of K.
add_host() {
  local k=$1 ns="shoal-n$1" veth="shoal-v$1"
  ip netns add "$ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" master "$BRIDGE" up
  ip -n "$ns" addr add "$(ip_of "$k")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
}

num_workers() {
  [[ -f "$STATE/workers" ]] || die "no cluster is up (no $STATE/workers)"
  cat "$STATE/workers"
}

# run_in K NAME COMMAND...: starts COMMAND in namespace shoal-nK in the background, logging to
# $STATE/logs/NAME.log, and records its pid in $STATE/NAME.pid.
run_in() {
  local k=$1 name=$2
  shift 2
  mkdir -p "$STATE/logs"
  setsid ip netns exec "shoal-n$k" "$@" >>"$STATE/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
}

wait_for_port() { # wait_for_port K PORT WHAT
  local k=$1 port=$2 what=$3
  for _ in $(seq 1 100); do
    if ip netns exec "shoal-n$k" bash -c "exec 3<>/dev/tcp/$(ip_of "$k")/$port" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "$what did not listen on $(ip_of "$k"):$port; see $STATE/logs"
}

start_role() {
  local role=$1
  local etcd_endpoint coordinator_ip
  etcd_endpoint="$(ip_of 0):2379"
  coordinator_ip="$(ip_of 0)"
  case "$role" in
    etcd)
      run_in 0 etcd etcd --name shoal-etcd --data-dir "$STATE/etcd" \
        --listen-client-urls "http://$etcd_endpoint" --advertise-client-urls "http://$etcd_endpoint" \
        --listen-peer-urls "http://$coordinator_ip:2380" --initial-advertise-peer-urls "http://$coordinator_ip:2380" \
        --initial-cluster "shoal-etcd=http://$coordinator_ip:2380"
      wait_for_port 0 2379 etcd
      ;;
    coordinator)
      run_in 0 coordinator "$SHOAL" coordinator --cluster-id "$CLUSTER_ID" --etcd "$etcd_endpoint" \
        --pg-host "$coordinator_ip" --pg-port 5433 --control-host "$coordinator_ip" --control-port 7433 \
        --data-dir "$STATE/coordinator" --cluster-secret-file "$STATE/cluster-secret" --hba-file "$STATE/hba.conf"
      wait_for_port 0 5433 coordinator
      ;;
    worker-*)
      local k=${role#worker-}
      [[ $k =~ ^[0-9]+$ && $k -ge 1 && $k -le $(num_workers) ]] || die "no $role in this cluster"
      run_in "$k" "$role" "$SHOAL" worker --cluster-id "$CLUSTER_ID" --etcd "$etcd_endpoint" \
        --lease-ttl "$LEASE_TTL" --node-name "$role" --listen-host "$(ip_of "$k")" --listen-port 7500 \
        --exchange-port 7600 --transport tcp --data-dir "$STATE/$role" \
        --cluster-secret-file "$STATE/cluster-secret" --tpchgen "$TPCHGEN"
      wait_for_port "$k" 7500 "$role"
      ;;
    *) die "unknown role '$role' (etcd, coordinator or worker-K)" ;;
  esac
  echo "started $role"
}

stop_role() {
  local role=$1 pid_file="$STATE/$1.pid"
  [[ -f "$pid_file" ]] || return 0
  local pid
  pid=$(cat "$pid_file")
  # `ip netns exec` execs the command, so the pid is the process itself.
  if kill -TERM "$pid" 2>/dev/null; then
    for _ in $(seq 1 300); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
  echo "stopped $role"
}

sql() { # sql STATEMENT: run through the host's psql
  psql -h "$(ip_of 0)" -p 5433 -U shoal -d shoal -X -q -v ON_ERROR_STOP=1 -c "$1"
}

up() {
  local workers=$1
  shift
  local sf=0.1
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --sf) sf=$2; shift 2 ;;
      *) die "unknown flag $1" ;;
    esac
  done
  [[ $workers =~ ^[0-9]+$ && $workers -ge 1 && $workers -le 200 ]] || die "N must be 1..200 workers"
  need_root
  [[ -x "$SHOAL" ]] || die "no shoal binary at $SHOAL (run make build)"
  command -v etcd >/dev/null || die "no etcd on PATH (deploy/install-deps.sh installs etcd-server)"
  ip netns list | grep -q '^shoal-n' && die "a cluster is already up (deploy/netns-cluster.sh down first)"
  rm -rf "$STATE"
  mkdir -p "$STATE"
  echo "$workers" >"$STATE/workers"
  # Every "host" reads the same cluster secret (on real hosts: copied to each, owner-only).
  [[ -f "$STATE/cluster-secret" ]] || "$SHOAL" secret init "$STATE/cluster-secret" >/dev/null
  # SQL clients reach the coordinator from the bridge's private test subnet, not from 127.0.0.1: trust it there.
  printf 'host all all %s.0/24 trust\n' "$SUBNET" >"$STATE/hba.conf"
  ip link add "$BRIDGE" type bridge
  ip addr add "$SUBNET.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  for k in $(seq 0 "$workers"); do add_host "$k"; done
  start_role etcd
  start_role coordinator
  for k in $(seq 1 "$workers"); do start_role "worker-$k"; done
  # Every worker registered: as many up as started.
  for _ in $(seq 1 100); do
    [[ $(psql -h "$(ip_of 0)" -p 5433 -U shoal -d shoal -X -tAc "select count(*) from shoal_nodes where role = 'worker' and state = 'up'" 2>/dev/null) == "$workers" ]] && break
    sleep 0.1
  done
  if [[ $sf != 0 ]]; then
    echo "loading TPC-H SF $sf ..."
    "$SHOAL" load tpch --sf "$sf" --host "$(ip_of 0)" --port 5433
  fi
  cat <<EOF
Shoal cluster up: etcd and the coordinator in shoal-n0 ($(ip_of 0)), $workers worker(s) in shoal-n1..shoal-n$workers.
  psql -h "$(ip_of 0)" -p 5433 -U shoal -d shoal
  etcdctl --endpoints $(ip_of 0):2379 get --prefix /shoal/$CLUSTER_ID/members/ --keys-only
Logs in $STATE/logs; deploy/netns-cluster.sh down removes it all.
EOF
}

down() {
  need_root
  if [[ -f "$STATE/workers" ]]; then
    for k in $(seq 1 "$(cat "$STATE/workers")"); do stop_role "worker-$k" >/dev/null; done
  fi
  stop_role coordinator >/dev/null
  stop_role etcd >/dev/null
  for ns in $(ip netns list | awk '/^shoal-n/ {print $1}'); do
    ip netns pids "$ns" | xargs -r kill -KILL 2>/dev/null || true
    ip netns del "$ns"
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -f "$STATE/workers"
  echo "netns cluster down"
}

status() {
  for pid_file in "$STATE"/*.pid; do
    [[ -f "$pid_file" ]] || continue
    local name pid
    name=$(basename "$pid_file" .pid)
    pid=$(cat "$pid_file")
    if kill -0 "$pid" 2>/dev/null; then echo "$name: running (pid $pid)"; else echo "$name: not running"; fi
  done
  sql "select * from shoal_nodes" || true
}

case "${1:-}" in
  up) [[ $# -ge 2 ]] || die "usage: $0 up N [--sf SF]"; shift; up "$@" ;;
  down) down ;;
  start) [[ $# == 2 ]] || die "usage: $0 start ROLE"; need_root; start_role "$2" ;;
  stop) [[ $# == 2 ]] || die "usage: $0 stop ROLE"; stop_role "$2" ;;
  status) status ;;
  *) die "usage: $0 up N [--sf SF] | down | start ROLE | stop ROLE | status" ;;
esac
