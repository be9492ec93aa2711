// The lines that say what is going on: whose turn it is and what they must do (or how the game
// ended), the other side's last move (or the Marshal's own guess and its result), and the
// Manhunt's rule while it runs.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { statusText, ownGuess } from '../table.js';
import { describe, outcomeText } from '../history.js';

/// The status line.
export function renderStatus(view, aborted = false) {
  const me = view.viewer;
  const text = view.outcome ? outcomeText(view.outcome, me, aborted) : statusText(view);
  return h('p', { class: ['status', view.to_move === me ? 'mine' : null], 'data-testid': 'status' }, text);
}

/// The other side's last move in words (`recent`, from `lastMove`), under the status line; after
/// the Marshal's own guess, its result (she learns it with everyone else).
export function renderLastMove(view, recent) {
  const own = ownGuess(view);
  const entries = own.length ? own : recent.entries;
  if (!entries.length || view.outcome) return null;
  const text = entries
    .map((e) => describe(e, view.viewer, view.decks))
    .filter(Boolean)
    .join(' ');
  if (!text) return null;
  return h(
    'p',
    {
      class: ['last-move', own.length ? view.viewer : recent.mover],
      'data-testid': 'last-move',
      'data-own': own.length > 0,
    },
    h('span', { class: 'last-move-label' }, `${t('lastMove.label')} `),
    text,
  );
}

/// The Manhunt's rule, while it runs (R16).
export function renderManhuntNote(view) {
  if (view.phase.phase !== 'manhunt') return null;
  return h(
    'div',
    { class: 'manhunt-note', 'data-testid': 'manhunt', role: 'note' },
    h('strong', {}, t('manhunt.title')),
    h('p', {}, t('manhunt.explain')),
  );
}
