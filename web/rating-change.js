// The rating change of a finished game on its game-over panel ("+12 / −8", issue 25), asked of
// the server once per game (`GET /api/rooms/{room}/games/{n}/rating`): the server wrote it with
// the game's last action. An unrated game shows nothing.

import { h } from './dom.js';
import { t } from './i18n.js';

const known = new Map(); // "room/game" → undefined (not asked), null (asking or unrated), the change

/// The line of both sides' new ratings and changes, once known; `changed` redraws the table
/// when the answer comes.
export function renderRatingChange(room, game, changed) {
  const key = `${room}/${game}`;
  if (!known.has(key)) {
    known.set(key, null);
    fetch(`/api/rooms/${room}/games/${game}/rating`)
      .then((res) => (res.ok ? res.json() : null))
      .catch(() => null)
      .then((change) => {
        known.set(key, change);
        if (change) changed();
      });
  }
  const change = known.get(key);
  if (!change) return null;
  const side = (role) =>
    h(
      'span',
      { class: ['rating-side', role], 'data-testid': `rating-change-${role}` },
      t(`rating.change.${role}`, { rating: change[role].after, change: change[role].change }),
    );
  return h('p', { class: 'rating-change', 'data-testid': 'rating-change' }, side('fugitive'), ' · ', side('marshal'));
}
