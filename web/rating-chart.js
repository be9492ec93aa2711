// A profile's rating history per role, drawn as SVG (issue 25): people would rather look than
// read. One line per role, from 1500 before the first rated game to the rating after the last.

const NS = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 200;
const PAD = 28;

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}

/// The history of `games` (newest first, as the server lists them) as an SVG chart with the
/// accessible name `label`; null when there is nothing to draw.
export function ratingChart(games, label) {
  const lines = { fugitive: [], marshal: [] };
  for (const game of [...games].reverse()) {
    const line = lines[game.role];
    if (!line) continue;
    if (!line.length) line.push(game.before);
    line.push(game.after);
  }
  const all = [...lines.fugitive, ...lines.marshal];
  if (!all.length) return null;
  const low = Math.min(...all) - 10;
  const high = Math.max(...all) + 10;
  const longest = Math.max(lines.fugitive.length, lines.marshal.length, 2);
  const x = (i) => PAD + (i * (WIDTH - 2 * PAD)) / (longest - 1);
  const y = (r) => HEIGHT - PAD - ((r - low) * (HEIGHT - 2 * PAD)) / (high - low);
  const chart = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: 'rating-chart',
    role: 'img',
    'aria-label': label,
    'data-testid': 'rating-chart',
  });
  chart.append(
    svg('line', { x1: PAD, y1: HEIGHT - PAD, x2: WIDTH - PAD, y2: HEIGHT - PAD, class: 'axis' }),
    svg('text', { x: 2, y: y(high - 10) + 4, class: 'tick' }, String(Math.round(high - 10))),
    svg('text', { x: 2, y: y(low + 10) + 4, class: 'tick' }, String(Math.round(low + 10))),
  );
  for (const [role, line] of Object.entries(lines)) {
    if (!line.length) continue;
    const points = line.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(' ');
    chart.append(svg('polyline', { points, class: `line ${role}`, 'data-role': role, fill: 'none' }));
  }
  return chart;
}
