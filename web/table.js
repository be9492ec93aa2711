// Where the game stands, in words: whose turn it is and what they must do, who made a history
// entry, and what the other side's last move was. Read from a View
// (crates/fugitive-core/src/view.rs); the table's parts are drawn by trail.js, decks.js and
// seats.js, the controls by fugitive.js and marshal.js.

import { t } from './i18n.js';
import { cardName } from './events.js';

/// What the player (or the watched side) must do now, in words.
export function statusText(view) {
  const { phase } = view;
  const mover = view.to_move;
  if (!mover) return '';
  const mine = view.viewer === mover;
  const who = mine ? 'you' : mover;
  switch (phase.phase) {
    case 'opening':
      if (phase.placed === 0) return t(`status.${who}.opening`);
      if (view.rules.opening_hideouts === 'exactly_two') return t(`status.${who}.openingSecond`);
      return t(`status.${who}.openingMore`);
    case 'draw':
      return t(`status.${who}.draw`, { n: phase.left });
    case 'place_or_pass':
      return t(`status.${who}.placeOrPass`);
    case 'guess':
      return t(`status.${who}.guess`);
    case 'manhunt':
      return t(`status.${who}.manhunt`);
    case 'pending':
      // No card asks the pass bonus (R11a).
      if (phase.card === null) return t(`status.${who}.passBonus`);
      return t(`status.${who}.pending`, { card: cardName(phase.card) });
    default:
      return '';
  }
}

/// Who made a history entry (null for entries that belong to nobody's move).
export function actor(event) {
  if (event.role) return event.role;
  switch (event.type) {
    case 'placed':
    case 'passed':
    case 'turn_ended':
    case 'sprint_added':
      return 'fugitive';
    case 'guessed':
    case 'revealed':
    case 'manhunt_started':
      return 'marshal';
    default:
      return null;
  }
}

/// What just happened: the history entries of the other side's last move (for a spectator, of
/// whoever moved last), with the trail positions and decks they touched. They stay highlighted
/// while the player makes her own move, until the other side moves again.
export function lastMove(view) {
  const { history, viewer } = view;
  let end = history.length;
  // The player's own entries since then do not hide it.
  while (end > 0 && actor(history[end - 1]) === viewer) end -= 1;
  let mover = null;
  let from = end;
  for (let i = end - 1; i >= 0; i -= 1) {
    const who = actor(history[i]);
    if (who !== null && history[i].type !== 'game_over') {
      if (mover === null) mover = who;
      else if (who !== mover) break;
    }
    from = i;
  }
  const entries = mover === null ? [] : history.slice(from, end);
  const positions = new Set();
  const decks = new Set();
  for (const e of entries) {
    if (e.type === 'placed' || e.type === 'revealed' || e.type === 'sprint_added' || e.type === 'sprints_shown')
      positions.add(e.position);
    if ((e.type === 'drew' || e.type === 'event_drawn' || e.type === 'catchup_drawn') && e.deck) decks.add(e.deck);
  }
  return { mover, entries, positions, decks };
}

/// The viewer's own last guess with what followed it (a reveal, the Manhunt), while the other
/// side has not moved since: unlike her draws, its result is news to the Marshal too. Empty when
/// there is none.
export function ownGuess(view) {
  const { history, viewer } = view;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const who = actor(history[i]);
    if (who !== null && who !== viewer) break;
    if (history[i].type === 'guessed' && who === viewer) return history.slice(i);
  }
  return [];
}
