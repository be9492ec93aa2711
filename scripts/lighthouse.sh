#!/usr/bin/env bash
# Lighthouse (npm lighthouse@12.2.3, pinned; mobile, simulated slow 4G, the Debian Chromium)
# against a release server started here on a free loopback port with a fresh SQLite database:
# the landing page, the table as the Fugitive and as the Marshal, and the replay page
# (scripts/lighthouse-rooms.mjs makes the rooms). Writes the table (four scores, LCP,
# transferred KiB, requests, and every audit that is not passed) into BENCHMARKS.md between
# the lighthouse markers, and the reports to target/lighthouse/.
#
#   bash scripts/lighthouse.sh
#
# Needs the web client's npm packages (`cd web && npm ci`) and the npm registry for npx's first
# run. FUGITIVE_SERVER_BIN overrides the server (default: a fresh `cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
LIGHTHOUSE="lighthouse@12.2.3"
out=target/lighthouse
mkdir -p "$out"

if [ -z "${FUGITIVE_SERVER_BIN:-}" ]; then
  nice cargo build --release -p fugitive-server
  FUGITIVE_SERVER_BIN=target/release/fugitive-server
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
data=$(mktemp -d)
"$FUGITIVE_SERVER_BIN" --addr "127.0.0.1:$port" --database-url "sqlite://$data/fugitive.db" --web-dir web \
  --allowed-origins "$base" >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 100); do
  curl -fs "$base/healthz" >/dev/null && break
  sleep 0.1
done

node scripts/lighthouse-rooms.mjs "$base" >"$out/pages.txt"
while read -r name url; do
  echo "lighthouse: $name $url" >&2
  npx --yes "$LIGHTHOUSE" "$url" --quiet --form-factor=mobile --throttling-method=simulate \
    --only-categories=performance,accessibility,best-practices,seo \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu" \
    --output=json --output-path="$out/$name.json" || echo "lighthouse failed on $name" >&2
done <"$out/pages.txt"

load=$(uptime | sed 's/.*load average: //')
chromium_version=$("$CHROME_PATH" --version 2>/dev/null || echo "$CHROME_PATH")
node - "$out" "$load" "$chromium_version" "$LIGHTHOUSE" <<'EOF'
const fs = require('node:fs');
const [out, load, chromium, lighthouse] = process.argv.slice(2);
const names = fs.readFileSync(`${out}/pages.txt`, 'utf8').trim().split('\n').map((l) => l.split(' ')[0]);
const rows = [];
const missed = [];
for (const name of names) {
  const file = `${out}/${name}.json`;
  if (!fs.existsSync(file)) {
    rows.push(`| ${name} | failed | | | | | | |`);
    continue;
  }
  const lhr = JSON.parse(fs.readFileSync(file, 'utf8'));
  const score = (c) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
  const audit = (id) => lhr.audits[id];
  const lcp = (audit('largest-contentful-paint').numericValue / 1000).toFixed(2);
  const kib = (audit('total-byte-weight').numericValue / 1024).toFixed(1);
  const requests = audit('network-requests').details?.items?.length ?? 0;
  rows.push(
    `| ${name} | ${score('performance')} | ${score('accessibility')} | ${score('best-practices')} | ${score('seo')} | ${lcp} s | ${kib} | ${requests} |`,
  );
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
  `Lighthouse ${lighthouse.split('@')[1]} (mobile, simulated throttling), ${chromium}, release server on loopback,`,
  `${new Date().toISOString().slice(0, 16)} UTC, load average ${load}. Command: \`bash scripts/lighthouse.sh\`.`,
  '',
  '| page | performance | accessibility | best practices | SEO | LCP | transferred KiB | requests |',
  '|---|---|---|---|---|---|---|---|',
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
