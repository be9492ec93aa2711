#!/usr/bin/env bash
# Lighthouse (npm lighthouse@12.2.3, pinned; mobile, simulated slow 4G, the Debian Chromium)
# against a server started here on a free loopback port with a fresh SQLite database: the landing
# page, the table as the Fugitive and as the Marshal, the replay page and the lobby
# (scripts/lighthouse-rooms.mjs makes the rooms). Each page is measured twice:
#
# - `http/1.1`: the server itself, plain HTTP on loopback;
# - `h2 (Caddy)`: through Caddy with TLS (`tls internal`, a certificate of Caddy's own local CA,
#   which Chromium is told to accept), the shape of a deployment behind the bundled Caddy with a
#   domain name: HTTPS, so HTTP/2, one connection for all the requests of a page. Lighthouse's
#   simulation costs each new HTTP/1.1 connection and request a round trip (150 ms), so the
#   module graph weighs far more there.
#
# Writes the table (four scores, FCP, LCP, TBT, transferred KiB, requests, and every audit that
# is not passed) into BENCHMARKS.md between the lighthouse markers, and the reports to
# target/lighthouse/. Lighthouse's simulated Total Blocking Time scales with the host's CPU (the
# observed tasks are multiplied by 4): the load average is written beside the table.
#
#   bash scripts/lighthouse.sh
#
# The baseline, measured in the same run, page by page before each of this client's: set
# LIGHTHOUSE_BASELINE_BIN and LIGHTHOUSE_BASELINE_WEB to an earlier server binary and its web/
# (e.g. `git archive <commit> web | tar -x -C /tmp/base`); its rows are marked "before".
#
# Needs the web client's npm packages (`cd web && npm ci`), caddy, and the npm registry for npx's
# first run. FUGITIVE_SERVER_BIN overrides the server (default: a fresh `cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
LIGHTHOUSE="lighthouse@12.2.3"
out=target/lighthouse
rm -rf "$out"
mkdir -p "$out"

if [ -z "${FUGITIVE_SERVER_BIN:-}" ]; then
  nice cargo build --release -p fugitive-server
  FUGITIVE_SERVER_BIN=target/release/fugitive-server
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
data=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$data"' EXIT
# Caddy's data (its local CA) stays in the temporary directory; nothing is installed in a trust store.
printf '{\n\tadmin off\n\tskip_install_trust\n\tstorage file_system %s/caddy\n}\n' "$data" >"$data/Caddyfile"

# start BUILD BIN WEB: a server on a free port with its own database, and a Caddy site in front
# of it; prints "BUILD PLAIN-ORIGIN TLS-ORIGIN".
start() {
  local build=$1 bin=$2 web=$3 port tls_port
  port=$(free_port)
  tls_port=$(free_port)
  "$bin" --addr "127.0.0.1:$port" --database-url "sqlite://$data/$build.db" --web-dir "$web" \
    --allowed-origins "http://127.0.0.1:$port,https://127.0.0.1:$tls_port" >"$out/server-$build.log" 2>&1 &
  pids+=($!)
  printf 'https://127.0.0.1:%s {\n\ttls internal\n\treverse_proxy 127.0.0.1:%s\n}\n' "$tls_port" "$port" \
    >>"$data/Caddyfile"
  echo "$build http://127.0.0.1:$port https://127.0.0.1:$tls_port" >>"$data/servers.txt"
}
: >"$data/servers.txt"
if [ -n "${LIGHTHOUSE_BASELINE_BIN:-}" ]; then
  start before "$LIGHTHOUSE_BASELINE_BIN" "${LIGHTHOUSE_BASELINE_WEB:?set to the web directory of the baseline}"
fi
start now "$FUGITIVE_SERVER_BIN" web
caddy run --config "$data/Caddyfile" --adapter caddyfile >"$out/caddy.log" 2>&1 &
pids+=($!)
while read -r build base tls_base; do
  for _ in $(seq 1 200); do
    curl -fs "$base/healthz" >/dev/null && curl -fsk "$tls_base/healthz" >/dev/null && break
    sleep 0.1
  done
  curl -fsk --http2 -o /dev/null -w "$build through caddy: HTTP/%{http_version}\n" "$tls_base/" >&2
  # The same rooms over plain HTTP/1.1 and through Caddy (another origin).
  node scripts/lighthouse-rooms.mjs "$base" | while read -r name url; do
    echo "$name http/1.1 $build $url"
    echo "$name h2 $build ${url/$base/$tls_base}"
  done >"$out/pages-$build.txt"
done <"$data/servers.txt"
# Page by page and protocol by protocol, the baseline just before this client: the same load.
cat "$out"/pages-*.txt | sort -s -k1,2 >"$out/pages.txt"
while read -r name protocol build url; do
  echo "lighthouse: $name $protocol $build $url" >&2
  npx --yes "$LIGHTHOUSE" "$url" --quiet --form-factor=mobile --throttling-method=simulate \
    --only-categories=performance,accessibility,best-practices,seo \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu --ignore-certificate-errors" \
    --output=json --output-path="$out/$name-${protocol/\//}-$build.json" || echo "lighthouse failed on $name $protocol $build" >&2
done <"$out/pages.txt"

load=$(uptime | sed 's/.*load average: //')
chromium_version=$("$CHROME_PATH" --version 2>/dev/null || echo "$CHROME_PATH")
node - "$out" "$load" "$chromium_version" "$LIGHTHOUSE" "$FUGITIVE_SERVER_BIN" <<'EOF'
const fs = require('node:fs');
const [out, load, chromium, lighthouse, bin] = process.argv.slice(2);
const server = bin.includes('/debug/') ? 'debug server' : 'release server';
const pages = fs.readFileSync(`${out}/pages.txt`, 'utf8').trim().split('\n').map((l) => l.split(' '));
const rows = [];
const missed = [];
for (const [page, protocol, build] of pages) {
  const name = `${page}, ${protocol === 'h2' ? 'h2 (Caddy)' : protocol}${build === 'before' ? ', before' : ''}`;
  const file = `${out}/${page}-${protocol.replace('/', '')}-${build}.json`;
  if (!fs.existsSync(file)) {
    rows.push(`| ${name} | failed | | | | | | | | |`);
    continue;
  }
  const lhr = JSON.parse(fs.readFileSync(file, 'utf8'));
  const score = (c) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
  const audit = (id) => lhr.audits[id];
  const seconds = (id) => (audit(id).numericValue / 1000).toFixed(2);
  const tbt = Math.round(audit('total-blocking-time').numericValue);
  const kib = (audit('total-byte-weight').numericValue / 1024).toFixed(1);
  const requests = audit('network-requests').details?.items?.length ?? 0;
  rows.push(
    `| ${name} | ${score('performance')} | ${score('accessibility')} | ${score('best-practices')} | ${score('seo')} | ${seconds('first-contentful-paint')} s | ${seconds('largest-contentful-paint')} s | ${tbt} ms | ${kib} | ${requests} |`,
  );
  if (build === 'before') continue;
  for (const [category, { auditRefs }] of Object.entries(lhr.categories)) {
    for (const { id, weight } of auditRefs) {
      const a = lhr.audits[id];
      if (a.score !== null && a.score < 1 && (weight > 0 || a.scoreDisplayMode === 'binary')) {
        missed.push(`- ${name}, ${category}: \`${id}\` ${a.title} (score ${a.score}${a.displayValue ? `, ${a.displayValue}` : ''})`);
      }
    }
  }
}
const table = [
  '<!-- lighthouse:begin (written by scripts/lighthouse.sh) -->',
  `Lighthouse ${lighthouse.split('@')[1]} (mobile, simulated throttling), ${chromium}, ${server} on loopback,`,
  `plain and through Caddy (TLS, HTTP/2), ${new Date().toISOString().slice(0, 16)} UTC, load average ${load}.`,
  'Command: `bash scripts/lighthouse.sh`.',
  '',
  '| page, protocol | performance | accessibility | best practices | SEO | FCP | LCP | TBT | transferred KiB | requests |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
  missed.length ? 'Audits not passed:\n' + missed.join('\n') : 'Every scored audit passed.',
  '<!-- lighthouse:end -->',
].join('\n');
const benchmarks = fs.readFileSync('BENCHMARKS.md', 'utf8');
const marked = /<!-- lighthouse:begin[^]*?<!-- lighthouse:end -->/;
fs.writeFileSync(
  'BENCHMARKS.md',
  marked.test(benchmarks)
    ? benchmarks.replace(marked, table)
    : `${benchmarks.trimEnd()}\n\n## The page in Lighthouse (issue 28)\n\n${table}\n`,
);
console.log(table);
EOF
