// The guided first game, `/tutorial` (issue 26): a game as the Fugitive against the computer on
// the tutorial's fixed deal (`"opponent": "tutorial"`), on the usual table, with a panel above
// it that explains each step as it happens: the first hideout and its sprint cards, the draw,
// placing or passing, the Marshal's turn and her guesses (a multi-number one among them), the
// Manhunt, the end. The panel reads only what the server sends: the phase, whose move it is, and
// the newest entries of the history; it works out no rule.

import { h, replace } from './dom.js';
import { t, list, useStrings } from './i18n.js';
import { keepSeat } from './seat.js';
import { showRoom } from './room.js';

// Its strings, not in the first visit's table.
await useStrings('tutorial');

/// What the player is asked now, from the state's phase and whose move it is.
function step(view) {
  if (view.outcome) return view.outcome.winner === view.viewer ? 'won' : 'lost';
  const phase = view.phase.phase;
  if (phase === 'manhunt') return 'manhunt';
  if (view.to_move === 'marshal') return 'marshal';
  if (phase === 'opening') return view.phase.placed === 0 ? 'opening' : 'openingMore';
  if (phase === 'draw') return 'draw';
  if (phase === 'place_or_pass') return 'placeOrPass';
  return 'wait';
}

/// What just happened that the tutorial explains: the newest entry of the history it has words
/// for, past the draws that followed it.
function note(view) {
  for (const event of [...view.history].reverse()) {
    const said = noteOf(event);
    if (said !== undefined) return said;
  }
  return null;
}

/// The note of one history entry; `undefined` for a draw, which the newest note outlasts.
function noteOf(event) {
  switch (event.type) {
    case 'drew':
    case 'draw_skipped':
      return undefined;
    case 'placed':
      return event.sprint_count > 0 ? { key: 'sprints', n: event.sprint_count } : null;
    case 'passed':
      return { key: 'passed' };
    case 'guessed':
      if (event.numbers.length > 1) return { key: 'multiGuess', numbers: list(event.numbers) };
      return { key: event.right ? 'guessRight' : 'guessWrong', numbers: list(event.numbers) };
    case 'revealed':
      return { key: 'revealed', card: event.hideout };
    case 'manhunt_started':
      return { key: 'manhuntStarted', h: event.highest_revealed };
    default:
      return null;
  }
}

function guide(msg) {
  const { view } = msg;
  const now = step(view);
  const just = note(view);
  const over = Boolean(view.outcome);
  return h(
    'section',
    {
      class: 'tutorial',
      'data-testid': 'tutorial',
      'data-step': now,
      'aria-labelledby': 'tutorial-title',
      'aria-live': 'polite',
    },
    h('h2', { id: 'tutorial-title' }, t('tutorial.title')),
    just
      ? h(
          'p',
          { class: 'tutorial-note', 'data-testid': 'tutorial-note', 'data-note': just.key },
          t(`tutorial.note.${just.key}`, just),
        )
      : null,
    h('p', { 'data-testid': 'tutorial-step' }, t(`tutorial.step.${now}`)),
    over
      ? h('p', {}, h('a', { class: 'button primary', href: '/', 'data-testid': 'tutorial-done' }, t('tutorial.done')))
      : null,
  );
}

export async function showTutorial(root) {
  document.title = `${t('tutorial.title')} — Fugitive`;
  replace(
    root,
    h(
      'div',
      { class: 'landing' },
      h('h1', {}, t('tutorial.title')),
      h('p', { role: 'status' }, t('profilePage.loading')),
    ),
  );
  const res = await fetch('/api/rooms', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ opponent: 'tutorial' }),
  }).catch(() => null);
  const json = res ? await res.json().catch(() => ({})) : {};
  if (!res?.ok) {
    replace(
      root,
      h('div', { class: 'landing' }, h('h1', {}, t('tutorial.title')), h('p', { role: 'alert' }, t('tutorial.failed'))),
    );
    return;
  }
  keepSeat(json.room, json.token, json.links);
  await showRoom(root, json.room, { guide });
}
