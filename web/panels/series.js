// The series: the score by seat under each player's current role, and its winner once there is
// one. Never against the computer, where rematches are practice, not a match.

import { h } from '../dom.js';
import { t } from '../i18n.js';

/// The series score, once there is one to show.
export function renderSeries(room, game) {
  const series = room.series;
  if (!series || room.computer) return null;
  if (game === 1 && !series.best_of && !series.wins.fugitive && !series.wins.marshal) return null;
  const who = (role) => room.names?.[role] || t(`role.${role}`);
  const score = t('series.score', {
    fugitive: who('fugitive'),
    marshal: who('marshal'),
    a: series.wins.fugitive,
    b: series.wins.marshal,
  });
  const of = series.best_of ? ` ${t('series.bestOfShort', { n: series.best_of })}` : '';
  return h(
    'p',
    {
      class: 'series',
      'data-testid': 'series',
      'data-fugitive': series.wins.fugitive,
      'data-marshal': series.wins.marshal,
    },
    score + of,
  );
}

/// The series' winner in words, for `view`'s viewer, once there is one.
export function seriesWinnerText(view, room) {
  const winner = room.series?.winner;
  if (!winner) return null;
  if (view.viewer === winner) return t('series.youWin');
  if (view.viewer === 'spectator') return t('series.wins', { name: room.names?.[winner] || t(`role.${winner}`) });
  return t('series.youLose');
}

/// The series' winner, announced at game over.
export function renderSeriesWinner(view, room) {
  const text = seriesWinnerText(view, room);
  if (!text) return null;
  const winner = room.series.winner;
  return h('p', { class: 'series-winner', 'data-testid': 'series-winner', 'data-winner': winner }, text);
}
