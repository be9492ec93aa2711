#!/usr/bin/env bash
# Issue 28's human-pace p99 (1,000 paced games, 2 spectators each, SQLite) on a machine at load
# ≥ 6, made here: busy loops, each in a session of its own so that each competes as a whole
# process (the kernel groups a session's threads, `sched_autogroup`), keep the load up while
# `fugitive-load --mode matrix` runs, in rounds of two runs, alternated:
#
# - `equal`: the load client and the server it starts share the CPUs with the busy loops at the
#   same priority, as one more session among them;
# - `idle`: the busy loops are moved into a cgroup at idle priority (`cpu.idle`), as an operator
#   runs batch work beside a game server (systemd's `CPUWeight=idle`): they still run and keep
#   the load average as high, but take a CPU only when nothing else wants it.
#
# Every action takes four to six wake-ups in a row (the server's reader, its database thread, the
# server again, the client reading the opponent's frame); at equal priority each is a turn in a
# queue of the busy loops' slices, which the load client's own timers show ("the client's timers
# late", in each run's section).
#
#   sudo bash scripts/p99-at-load.sh
#
# Settings (environment): FUGITIVE_SERVER_BIN and FUGITIVE_LOAD_BIN (default target/release/…,
# built first when missing), P99_BURNERS (busy loops, default 5), P99_ROUNDS (default 2),
# P99_WARM (seconds the load average is given to climb, default 60). Needs root (it makes the
# cgroup); cgroup v1 or v2, with `cpu.idle` (Linux 5.15 or later). Each run's whole section goes
# to target/p99-at-load/, the p99 rows with the load to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "p99-at-load: needs root, to make a cgroup at idle priority" >&2; exit 2; }
SERVER="${FUGITIVE_SERVER_BIN:-target/release/fugitive-server}"
LOAD="${FUGITIVE_LOAD_BIN:-target/release/fugitive-load}"
BURNERS="${P99_BURNERS:-5}"
ROUNDS="${P99_ROUNDS:-2}"
WARM="${P99_WARM:-60}"
out=target/p99-at-load
mkdir -p "$out"

if [ ! -x "$SERVER" ] || [ ! -x "$LOAD" ]; then
  nice cargo build --release -p fugitive-server -p fugitive-load
fi

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  root=/sys/fs/cgroup
  grep -qw cpu "$root/cgroup.subtree_control" || echo +cpu >"$root/cgroup.subtree_control"
else
  root=/sys/fs/cgroup/cpu
fi
cgroup="$root/fugitive-p99-idle"
mkdir -p "$cgroup"
echo 1 >"$cgroup/cpu.idle"

burners=()
cleanup() {
  [ ${#burners[@]} -eq 0 ] || kill "${burners[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rmdir "$cgroup" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq "$BURNERS"); do
  setsid sh -c 'while :; do :; done' >/dev/null 2>&1 &
  burners+=($!)
done
echo "p99-at-load: $BURNERS busy loops in sessions of their own; load $(cut -d' ' -f1-3 /proc/loadavg); waiting ${WARM}s"
sleep "$WARM"

matrix=(--mode matrix --matrix-games 1000 --spectators 2 --server-bin "$SERVER")
echo "| round | run | load before → after | p99 ms (the human-pace row: games, pace, actions, actions/s, p50, p99, p99.9, echo p50, echo p99, …) |"
echo "|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
  for run in equal idle; do
    file="$out/round$round-$run.md"
    # The busy loops into the idle cgroup, or back to the root (each its own session's group).
    into="$root"
    [ "$run" = idle ] && into="$cgroup"
    for pid in "${burners[@]}"; do echo "$pid" >"$into/cgroup.procs"; done
    before=$(cut -d' ' -f1 /proc/loadavg)
    "$LOAD" "${matrix[@]}" >"$file"
    after=$(cut -d' ' -f1 /proc/loadavg)
    row=$(grep -m1 '^| 1000 | human |' "$file" || echo "(no human-pace row: see $file)")
    echo "| $round | $run | $before → $after | $row"
  done
done
