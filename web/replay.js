// The replay page `/room/{room}/game/{n}` (issue 13): a finished game step by step, showing
// everything (R18: once a game is over nothing about it is secret). Buttons, the arrow keys
// (Home/End too) and a slider move through it; the page links to the JSON record it reads
// (`GET /api/rooms/{room}/games/{n}`, schema in docs/replay.schema.json) and can be shared. Below
// it, the game's analysis (analysis.js, issue 26).
// The controls stay in one row on a phone: their icons are drawn (art.js), their words hidden
// there but still read by screen readers.

import { h, replace, announce } from './dom.js';
import { icon } from './art.js';
import { t, onLanguageChange, useStrings } from './i18n.js';
import { renderTrail } from './trail.js';
import { describe, outcomeText } from './history.js';
import { copyText, replayPath } from './share.js';
import { renderFinalHands } from './final-hands.js';
import { analysisPanel } from './analysis.js';

// Its strings, not in the first visit's table.
await useStrings('replay');

export const recordPath = (room, game) => `/api/rooms/${room}/games/${game}`;

export async function showReplay(root, room, game) {
  let record = null;
  let problem = null;
  let step = 0;
  let copied = false;
  // The analysis panel (analysis.js), made once the record is shown. Its module and strings
  // come with the page's (a static import, so the page preloads them): the panel, the
  // largest text of the page once its analysis is drawn, waits for no module (issue 28).
  let analysis = null;
  try {
    const response = await fetch(recordPath(room, game));
    const body = await response.json();
    if (response.ok) record = body;
    else problem = body.error === 'game_running' ? 'replay.running' : 'replay.notFound';
  } catch {
    problem = 'replay.notFound';
  }
  const last = () => record.steps.length - 1;
  const go = (to) => {
    const next = Math.max(0, Math.min(last(), to));
    if (next === step) return;
    step = next;
    render();
    announce(stepWords());
  };

  function stepWords() {
    if (step === 0) return t('replay.start');
    const before = record.steps[step - 1].history.length;
    return record.steps[step].history
      .slice(before)
      .map((e) => describe(e, 'spectator', record.steps[step].decks, record.aborted))
      .filter(Boolean)
      .join(' ');
  }

  function page() {
    if (problem) {
      return h(
        'div',
        { class: 'landing' },
        h('h1', {}, t('replay.title', { n: game })),
        h('p', { class: 'alert', 'data-testid': 'replay-problem' }, t(problem)),
        h('p', {}, h('a', { href: `/room/${room}` }, t('replay.back'))),
      );
    }
    const view = record.steps[step];
    const button = (testid, name, to, disabled) => {
      const word = h('span', { class: 'replay-word' }, t(`replay.${name}`));
      const drawn = icon(name);
      return h(
        'button',
        { type: 'button', class: 'replay-button', 'data-testid': testid, disabled, onclick: () => go(to) },
        name === 'first' || name === 'prev' ? [drawn, word] : [word, drawn],
      );
    };
    const where = t('replay.step', { i: step, n: last() });
    const shareUrl = `${location.origin}${replayPath(room, game)}`;
    return h(
      'div',
      { class: 'replay', 'data-testid': 'replay', 'data-step': step, 'data-steps': record.steps.length },
      h('h1', {}, t('replay.title', { n: game })),
      h(
        'p',
        { class: 'status', 'data-testid': 'replay-outcome' },
        outcomeText(record.view.outcome, 'spectator', record.aborted),
      ),
      h('p', { class: 'replay-step', 'data-testid': 'replay-step' }, where),
      h(
        'div',
        { class: 'replay-controls', role: 'group', 'aria-label': t('replay.controls') },
        button('replay-first', 'first', 0, step === 0),
        button('replay-prev', 'prev', step - 1, step === 0),
        h('input', {
          type: 'range',
          class: 'replay-slider',
          min: 0,
          max: last(),
          value: step,
          'data-testid': 'replay-slider',
          'aria-label': t('replay.slider'),
          'aria-valuetext': where,
          oninput: (event) => go(Number(event.target.value)),
        }),
        button('replay-next', 'next', step + 1, step === last()),
        button('replay-last', 'last', last(), step === last()),
      ),
      h('p', { class: 'last-move', 'data-testid': 'replay-move' }, stepWords()),
      renderTrail(view, { replay: true }),
      renderFinalHands(view, 'replay-hand'),
      analysis?.show(step),
      h(
        'p',
        { class: 'replay-links' },
        h(
          'a',
          {
            class: 'button',
            href: recordPath(room, game),
            download: `fugitive-${room}-game-${game}.json`,
            'data-testid': 'replay-json',
          },
          t('replay.json'),
        ),
        ' ',
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'replay-share',
            onclick: async () => {
              await copyText(shareUrl);
              copied = true;
              render();
            },
          },
          copied ? t('replay.copied') : t('replay.share'),
        ),
        ' ',
        h('a', { href: `/room/${room}`, 'data-testid': 'replay-back' }, t('replay.back')),
      ),
    );
  }

  function render() {
    replace(root, page());
    document.title = `${t('replay.title', { n: game })} — Fugitive`;
  }

  document.addEventListener('keydown', (event) => {
    if (!record || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement && event.target.type !== 'range') return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last() };
    if (!(event.key in moves) || event.target?.type === 'range') return;
    event.preventDefault();
    go(moves[event.key]);
  });
  onLanguageChange(render);
  if (record) analysis = analysisPanel(room, game, go);
  render();
}
