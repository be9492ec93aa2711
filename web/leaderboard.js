// The leaderboards, `/leaderboard` (issue 25): one per role, the top 50 among the profiles with
// at least 10 rated games in that role in the last 30 days.

import { h, replace } from './dom.js';
import { t, onLanguageChange, useStrings } from './i18n.js';
import { ratingText } from './profile-page.js';

// Its strings, not in the first visit's table.
await useStrings('profile');

const ROLES = ['fugitive', 'marshal'];

export function showLeaderboard(root) {
  const boards = {};

  function board(role) {
    const data = boards[role];
    return h(
      'section',
      { class: ['leaderboard', role], 'data-testid': `leaderboard-${role}`, 'aria-labelledby': `leaders-${role}` },
      h('h2', { id: `leaders-${role}` }, t(`rating.as.${role}`)),
      !data
        ? h('p', { role: 'status' }, t('profilePage.loading'))
        : data.leaders.length
          ? h(
              'ol',
              {},
              data.leaders.map((leader) =>
                h(
                  'li',
                  {},
                  h('a', { href: `/@/${leader.profile}` }, leader.name ?? t('profilePage.noName')),
                  ' ',
                  h('span', { class: 'rating-number' }, ratingText(leader.rating)),
                ),
              ),
            )
          : h('p', {}, t('leaderboard.empty', { n: data.min_games })),
    );
  }

  function render() {
    document.title = `${t('leaderboard.title')} — Fugitive`;
    replace(
      root,
      h(
        'div',
        { class: 'landing' },
        h('h1', {}, t('leaderboard.title')),
        h('p', {}, t('leaderboard.rule')),
        h('div', { class: 'rating-cards' }, ROLES.map(board)),
        h('p', {}, h('a', { href: '/' }, t('notFound.home'))),
      ),
    );
  }

  onLanguageChange(render);
  render();
  for (const role of ROLES) {
    fetch(`/api/leaderboard/${role}`)
      .then((res) => (res.ok ? res.json() : { leaders: [], min_games: 10 }))
      .catch(() => ({ leaders: [], min_games: 10 }))
      .then((json) => {
        boards[role] = json;
        render();
      });
  }
}
