// The analysis of a finished game on its replay page (issue 26), drawn by replay.js once the
// record is shown. It reads `GET /api/rooms/{room}/games/{n}/analysis`: while it waits for a free
// worker (202, "queued"), how many computations are ahead of it; a progress bar while the server
// computes it (202), then each move's mark, each player's accuracy and a chart (SVG) of
// the Marshal's chance to find a hideout with her next guess, the Fugitive's cover and his win
// chance, move by move. A point of the chart, or a move in the list, jumps the replay there.
// Every figure is the server's; nothing here works out a rule of the game.

import { h, replace } from './dom.js';
import { t, list, useStrings } from './i18n.js';

// Its strings, not in the first visit's table.
await useStrings('analysis');

const NS = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 200;
const PAD = 24;
const POLL_MS = 1000;

export const analysisPath = (room, game) => `/api/rooms/${room}/games/${game}/analysis`;

const percent = (x) => `${Math.round(x * 100)} %`;

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}

/// The analysis panel: an element that loads and redraws itself; `show(step)` marks the move the
/// replay is at, `jump(step)` is how the panel moves the replay.
export function analysisPanel(room, game, jump) {
  const root = h('section', { class: 'analysis', 'data-testid': 'analysis', 'aria-labelledby': 'analysis-title' });
  let state = { kind: 'loading', done: 0, total: 0 };
  let step = 0;

  async function load() {
    try {
      const response = await fetch(analysisPath(room, game));
      const body = await response.json();
      if (response.status === 200) state = { kind: 'done', analysis: body.analysis };
      else if (response.status === 202 && body.state === 'queued') state = { kind: 'queued', ahead: body.ahead };
      else if (response.status === 202) state = { kind: 'running', done: body.done, total: body.total };
      else state = { kind: 'failed' };
    } catch {
      state = { kind: 'failed' };
    }
    render();
    if (state.kind === 'queued' || state.kind === 'running') setTimeout(load, POLL_MS);
  }

  function chart(moves) {
    const cover = Math.max(1, ...moves.map((m) => m.cover));
    const x = (i) => PAD + (i * (WIDTH - 2 * PAD)) / Math.max(1, moves.length - 1);
    const y = (v) => HEIGHT - PAD - v * (HEIGHT - 2 * PAD);
    const lines = {
      next: moves.map((m) => m.next_guess),
      cover: moves.map((m) => m.cover / cover),
      wins: moves.map((m) => m.fugitive_wins),
    };
    const drawn = svg('svg', {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      class: 'analysis-chart',
      role: 'img',
      'aria-label': t('analysis.chart'),
      'data-testid': 'analysis-chart',
    });
    drawn.append(svg('line', { x1: PAD, y1: y(0), x2: WIDTH - PAD, y2: y(0), class: 'axis' }));
    for (const [name, values] of Object.entries(lines)) {
      const points = values.map((v, i) => (v === null ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`));
      drawn.append(svg('polyline', { points: points.filter(Boolean).join(' '), class: `line ${name}`, fill: 'none' }));
      values.forEach((v, i) => {
        if (v === null) return;
        const point = svg('circle', {
          cx: x(i).toFixed(1),
          cy: y(v).toFixed(1),
          r: moves[i].step === step ? 6 : 4,
          class: `point ${name}`,
          'data-testid': `analysis-point-${name}-${moves[i].step}`,
        });
        point.addEventListener('click', () => jump(moves[i].step));
        drawn.append(point);
      });
    }
    return h(
      'figure',
      { class: 'analysis-figure' },
      drawn,
      h(
        'figcaption',
        {},
        ['next', 'cover', 'wins'].map((name) => h('span', { class: ['legend', name] }, t(`analysis.legend.${name}`))),
      ),
    );
  }

  function moveText(m) {
    const who = t(`role.subject.${m.role}`);
    if (m.role === 'marshal') {
      const best = m.best_guess;
      return t('analysis.guess', {
        step: m.step,
        numbers: list(m.action.numbers),
        chance: percent(m.worth),
        best: best.single,
        bestChance: percent(best.single_chance),
        multi: list(best.multi),
        multiChance: percent(best.multi_chance),
      });
    }
    return t('analysis.hide', { step: m.step, who, chance: percent(m.next_guess), best: percent(1 - m.best_worth) });
  }

  function move(m) {
    return h(
      'li',
      { class: ['analysis-move', m.mark, m.step === step ? 'current' : null], 'data-mark': m.mark },
      h(
        'button',
        { type: 'button', class: 'link', 'data-testid': `analysis-move-${m.step}`, onclick: () => jump(m.step) },
        moveText(m),
      ),
      ' ',
      h('strong', { class: 'mark', 'data-testid': `analysis-mark-${m.step}` }, t(`analysis.mark.${m.mark}`)),
      m.estimate ? h('span', { class: 'estimate' }, ` ${t(`analysis.estimate.${m.estimate.kind}`)}`) : null,
    );
  }

  function body() {
    if (state.kind === 'failed') return h('p', { class: 'alert' }, t('analysis.failed'));
    if (state.kind === 'queued') {
      return h('p', { role: 'status', 'data-testid': 'analysis-queued' }, t('analysis.queued', { n: state.ahead }));
    }
    if (state.kind !== 'done') {
      return h(
        'div',
        { role: 'status' },
        h('p', {}, t('analysis.computing')),
        h('progress', {
          'data-testid': 'analysis-progress',
          max: Math.max(1, state.total),
          value: state.done,
          'aria-label': t('analysis.progress', { done: state.done, total: state.total }),
        }),
      );
    }
    const { moves, accuracy, complete, playouts } = state.analysis;
    return [
      h(
        'p',
        { class: 'analysis-accuracy' },
        ['fugitive', 'marshal'].map((role) =>
          accuracy[role] === null
            ? null
            : h(
                'span',
                { 'data-testid': `analysis-accuracy-${role}` },
                t('analysis.accuracy', { who: t(`role.subject.${role}`), value: Math.round(accuracy[role]) }),
                ' ',
              ),
        ),
      ),
      complete ? null : h('p', { class: 'alert' }, t('analysis.incomplete')),
      moves.length ? chart(moves) : null,
      h('p', { class: 'analysis-note' }, t('analysis.playouts', { playouts })),
      h('ol', { class: 'analysis-moves', 'data-testid': 'analysis-moves' }, moves.map(move)),
    ];
  }

  function render() {
    replace(root, h('h2', { id: 'analysis-title' }, t('analysis.title')), body());
    root.dataset.state = state.kind;
  }

  load();
  render();
  return {
    element: root,
    show(now) {
      step = now;
      render();
      return root;
    },
  };
}
