#!/usr/bin/env bash
# A new server's memory over its first seconds (issue 28), as a self-hoster with a small
# container limit meets it: each binary started from the repository's root (its puzzles file)
# on the web client and a new SQLite database, nothing connected, its VmRSS and threads read
# every 0.5 s; the binaries alternate, round after round.
#
#   bash scripts/start-up-memory.sh NEW_BIN [BASELINE_BIN]
#
# Settings (environment): MEMORY_ROUNDS (default 2), MEMORY_SECONDS (how long each is watched,
# default 16), MEMORY_WEB (the web directory, default web/; `empty` for a directory holding one
# small index.html, as fugitive-load starts its servers). Each run's series goes to
# target/start-up-memory/, a summary row per run to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 NEW_BIN [BASELINE_BIN]" >&2; exit 2; }
ROUNDS="${MEMORY_ROUNDS:-2}"
SECONDS_WATCHED="${MEMORY_SECONDS:-16}"
WEB="${MEMORY_WEB:-web}"
out=target/start-up-memory
mkdir -p "$out"
scratch=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$scratch"' EXIT
if [ "$WEB" = empty ]; then
  WEB="$scratch/web"
  mkdir -p "$WEB"
  echo '<!doctype html><title>load</title>' >"$WEB/index.html"
fi

# MiB of a `/proc/<pid>/status` field in kB.
field() { awk -v f="$1:" '$1 == f { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"; }

echo "| binary | round | peak MiB (at s) | 2 s | 5 s | 9 s | 12 s | 15 s | threads at the peak, at the end | load |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for round in $(seq 1 "$ROUNDS"); do
  for bin in "$@"; do
    name=$(basename "$(dirname "$bin")")
    series="$out/$name-$round.tsv"
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    rm -f "$scratch/start.db"*
    "$bin" --addr 127.0.0.1:0 --database-url "sqlite://$scratch/start.db" --web-dir "$WEB" \
      >"$out/$name-$round.log" 2>&1 &
    pid=$!
    started=$(date +%s%N)
    echo -e "seconds\trss_mib\tthreads" >"$series"
    for tick in $(seq 1 $((SECONDS_WATCHED * 2))); do
      # Each reading at its half second since the start, however long the last one took.
      sleep "$(awk -v t="$tick" -v s="$started" -v n="$(date +%s%N)" 'BEGIN { d = t / 2 - (n - s) / 1e9; print (d > 0 ? d : 0) }')"
      threads=$(awk '$1 == "Threads:" { print $2 }' "/proc/$pid/status")
      echo -e "$(awk "BEGIN { print $tick / 2 }")\t$(field VmRSS)\t$threads" >>"$series"
    done
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
    awk -F'\t' -v name="$name" -v round="$round" -v loads="$load_before → $(cut -d' ' -f1 /proc/loadavg)" '
      NR == 1 { next }
      { at[$1] = $2; if ($2 > peak) { peak = $2; when = $1; peak_threads = $3 } ; last_threads = $3 }
      END { printf "| %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s, %s | %s |\n", name, round, peak, when,
            at[2], at[5], at[9], at[12], at[15], peak_threads, last_threads, loads }' "$series"
  done
done
