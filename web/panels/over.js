// The end of a game: the result and the series' winner, both hands shown whole (R18), and what
// comes next: the rematch (offered, waited for), the replay, a new game.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { outcomeText } from '../history.js';
import { renderFinalHands } from '../final-hands.js';
import { replayPath } from '../share.js';
import { renderSeriesWinner } from './series.js';
import { renderRatingChange } from '../rating-change.js';

/// The game-over panel of the state `msg` in room `room`; `on`: { busy, rematch(), changed() }.
export function renderGameOver(msg, room, on) {
  const { view } = msg;
  const me = view.viewer;
  const panel = [
    h('h2', { class: 'over-line', 'data-testid': 'over-line' }, outcomeText(view.outcome, me, msg.room?.aborted)),
    renderSeriesWinner(view, msg.room),
    renderRatingChange(room, msg.game, on.changed ?? (() => {})),
    h('p', { class: 'reveal-note' }, t('over.revealed')),
    renderFinalHands(view, 'final-hand'),
  ];
  const buttons = [];
  if (me !== 'spectator' && !msg.room.series?.winner) {
    const other = me === 'fugitive' ? 'marshal' : 'fugitive';
    const mine = msg.room.rematch?.[me];
    const theirs = msg.room.rematch?.[other];
    if (theirs && !mine)
      panel.push(h('p', { class: 'notice', 'data-testid': 'rematch-offered' }, t('over.rematchOffered')));
    if (mine) panel.push(h('p', { 'data-testid': 'rematch-waiting' }, t('over.rematchWaiting')));
    else
      buttons.push(
        h(
          'button',
          { class: 'primary big', 'data-testid': 'rematch', disabled: on.busy, onclick: on.rematch },
          t('over.rematch'),
        ),
      );
  }
  buttons.push(
    h('a', { class: 'button big', href: replayPath(room, msg.game), 'data-testid': 'replay-link' }, t('over.replay')),
  );
  buttons.push(h('a', { class: 'button big', href: '/', 'data-testid': 'new-game' }, t('over.newGame')));
  panel.push(h('div', { class: 'buttons' }, buttons));
  return h(
    'section',
    {
      class: ['game-over', view.outcome.winner],
      'data-testid': 'game-over',
      'data-winner': view.outcome.winner,
      'aria-labelledby': 'over-title',
    },
    h('h2', { id: 'over-title', class: 'visually-hidden' }, t('over.title')),
    panel,
  );
}
