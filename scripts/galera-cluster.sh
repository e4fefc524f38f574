#!/usr/bin/env bash
# A three-node MariaDB Galera cluster on loopback ports, for tests only (docs/operations.md,
# "Galera"): `scripts/galera-cluster.sh start DIR` starts it in DIR and prints the three URLs;
# `scripts/galera-cluster.sh stop DIR` stops it and removes DIR; `scripts/galera-cluster.sh install`
# only installs what is missing (CI does it early, beside other work). Nodes listen on 127.0.0.1 ports
# GALERA_BASE_PORT (default 14306), +1, +2; Galera's group and state-transfer ports sit above them.
# Each node runs GALERA_APPLIER_THREADS (default 4) applier threads: with one, a race for one name
# from two nodes can stall a node for the lock wait timeout (docs/operations.md, "Galera").
set -euo pipefail

cmd="${1:?usage: galera-cluster.sh start|stop DIR | install}"
if [ "$cmd" = install ]; then dir=""; else dir="${2:?usage: galera-cluster.sh start|stop DIR | install}"; fi
base="${GALERA_BASE_PORT:-14306}"

provider() {
  for p in /usr/lib/galera/libgalera_smm.so /usr/lib/galera-4/libgalera_smm.so /usr/lib64/galera-4/libgalera_smm.so /usr/lib64/galera/libgalera_smm.so; do
    [ -f "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}

# What the cluster needs: the server, Galera's library and rsync for state transfer.
missing() {
  command -v mariadbd >/dev/null || echo mariadb-server
  provider >/dev/null || echo galera-4
  command -v rsync >/dev/null || echo rsync
}

install_missing() {
  local packages
  packages="$(missing | tr '\n' ' ')"
  [ -z "${packages// /}" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing $packages (Debian packages) for the Galera cluster" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >&2
  fi
  packages="$(missing | tr '\n' ' ')"
  if [ -n "${packages// /}" ]; then
    echo "cannot run a Galera cluster here: missing $packages (apt-get install $packages as root)" >&2
    return 1
  fi
}

node_port() { echo $((base + $1)); }
group_port() { echo $((base + 1000 + $1 * 10)); }

start_node() {
  local i="$1" address="$2" data="$dir/node$1"
  local port group
  port="$(node_port "$i")"
  group="$(group_port "$i")"
  "$mariadbd" --no-defaults --user="$run_as" \
    --datadir="$data" --socket="$data/mysqld.sock" --pid-file="$data/mysqld.pid" --log-error="$data/error.log" \
    --bind-address=127.0.0.1 --port="$port" --skip-name-resolve \
    --binlog-format=ROW --default-storage-engine=InnoDB --innodb-autoinc-lock-mode=2 \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=48M --innodb-flush-log-at-trx-commit=2 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --wsrep-on=ON --wsrep-provider="$(provider)" --wsrep-cluster-name=reseller-test \
    --wsrep-cluster-address="$address" --wsrep-node-name="node$i" \
    --wsrep-node-address="127.0.0.1:$group" \
    --wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:$group;ist.recv_addr=127.0.0.1:$((group + 1));gcache.size=64M" \
    --wsrep-sst-method=rsync --wsrep-sst-receive-address="127.0.0.1:$((group + 2))" \
    --wsrep-sync-wait=1 --wsrep-slave-threads="${GALERA_APPLIER_THREADS:-4}" \
    >>"$data/stdout.log" 2>&1 &
  echo $! >"$dir/node$i.pid"
}

wait_ready() {
  local i="$1" want="$2"
  for _ in $(seq 1 240); do
    local size
    size="$(mariadb --no-defaults -h127.0.0.1 -P"$(node_port "$i")" -uroot -N -e \
      "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_CLUSTER_SIZE' AND (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_READY') = 'ON'" 2>/dev/null || true)"
    [ "${size:-0}" -ge "$want" ] 2>/dev/null && return 0
    if ! kill -0 "$(cat "$dir/node$i.pid")" 2>/dev/null; then
      echo "Galera node $i died while starting; its log:" >&2
      tail -40 "$dir/node$i/error.log" >&2
      return 1
    fi
    sleep 0.5
  done
  echo "Galera node $i was not ready within 120 s; its log:" >&2
  tail -40 "$dir/node$i/error.log" >&2
  return 1
}

case "$cmd" in
  install)
    install_missing
    ;;
  start)
    install_missing
    mariadbd="$(command -v mariadbd)"
    # Not as root: a joiner's rsync daemon (state transfer) started by root drops to nobody and cannot write the copy.
    run_as="$(id -un)"
    [ "$(id -u)" = 0 ] && id mysql >/dev/null 2>&1 && run_as=mysql
    mkdir -p "$dir"
    chown "$run_as" "$dir"
    for i in 0 1 2; do
      if ! mariadb-install-db --no-defaults --user="$run_as" --datadir="$dir/node$i" \
        --auth-root-authentication-method=normal --skip-test-db >"$dir/install$i.log" 2>&1; then
        echo "mariadb-install-db failed for node $i:" >&2
        tail -20 "$dir/install$i.log" >&2
        exit 1
      fi
    done

    # The first node starts a new cluster; the others join it and copy its state (rsync).
    start_node 0 "gcomm://"
    wait_ready 0 1
    members="gcomm://127.0.0.1:$(group_port 0),127.0.0.1:$(group_port 1),127.0.0.1:$(group_port 2)"
    start_node 1 "$members"
    wait_ready 1 2
    start_node 2 "$members"
    wait_ready 2 3
    for i in 0 1 2; do echo "mysql://root@127.0.0.1:$(node_port "$i")"; done
    ;;
  stop)
    for i in 2 1 0; do
      [ -f "$dir/node$i.pid" ] || continue
      pid="$(cat "$dir/node$i.pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$dir"
    ;;
  *)
    echo "usage: galera-cluster.sh start|stop DIR | install" >&2
    exit 2
    ;;
esac
