// A profile's page, `/@/{id}` (issue 25): both ratings ("?" while provisional), their history as
// a chart, the games played and won in each role, and the rated games with their replays.

import { h, replace } from './dom.js';
import { t, onLanguageChange, useStrings } from './i18n.js';
import { ratingChart } from './rating-chart.js';

// Its strings, not in the first visit's table.
await useStrings('profile');

const ROLES = ['fugitive', 'marshal'];

/// A rating as shown: "1500?" while provisional.
export const ratingText = (rating) => `${rating.rating}${rating.provisional ? '?' : ''}`;

export function showProfilePage(root, id) {
  let profile = null;
  let failed = false;

  function ratingCard(role) {
    const rating = profile.ratings[role];
    return h(
      'div',
      { class: ['rating-card', role], 'data-testid': `rating-${role}` },
      h('h2', {}, t(`rating.as.${role}`)),
      h('p', { class: 'rating-number', 'data-testid': `rating-${role}-number` }, rating ? ratingText(rating) : '—'),
      h(
        'p',
        { class: 'rating-games' },
        t('profilePage.played', { n: rating?.games ?? 0 }),
        ' · ',
        t('profilePage.won', { n: profile.wins[role] }),
      ),
    );
  }

  function gameRow(game) {
    const won = game.won ? t('profilePage.gameWon') : t('profilePage.gameLost');
    return h(
      'li',
      { class: ['rated-game', game.won ? 'won' : 'lost'], 'data-testid': `rated-game-${game.room}-${game.game}` },
      h('span', { class: 'rated-game-result' }, won),
      ' ',
      t(`myGames.as.${game.role}`),
      ' · ',
      h('a', { href: `/@/${game.opponent}` }, t('profilePage.opponent')),
      ' · ',
      h('span', { class: 'rated-game-change' }, `${game.after} (${game.change})`),
      ' · ',
      h('a', { href: game.replay, 'data-testid': 'rated-game-replay' }, t('over.replay')),
    );
  }

  function render() {
    if (failed) {
      replace(
        root,
        h(
          'div',
          { class: 'landing' },
          h('h1', {}, t('profilePage.notFound')),
          h('p', {}, h('a', { href: '/' }, t('notFound.home'))),
        ),
      );
      return;
    }
    if (!profile) {
      replace(root, h('div', { class: 'landing' }, h('p', { role: 'status' }, t('profilePage.loading'))));
      return;
    }
    const name = profile.deleted ? t('profilePage.deleted') : (profile.name ?? t('profilePage.noName'));
    document.title = `${name} — Fugitive`;
    const chart = ratingChart(profile.games, t('profilePage.chart'));
    replace(
      root,
      h(
        'div',
        { class: 'landing profile-page', 'data-testid': 'profile-page', 'data-profile': profile.id },
        h('h1', { 'data-testid': 'profile-page-name' }, name),
        h('div', { class: 'rating-cards' }, ROLES.map(ratingCard)),
        // Issue 26: the mean accuracy of the analysed games, as the server sends it.
        profile.accuracy
          ? h(
              'p',
              { class: 'profile-accuracy', 'data-testid': 'profile-accuracy' },
              t('profilePage.accuracy', { games: profile.accuracy.games, mean: profile.accuracy.mean }),
            )
          : null,
        chart
          ? h(
              'figure',
              { class: 'rating-history' },
              chart,
              h(
                'figcaption',
                {},
                ROLES.map((role) => h('span', { class: ['legend', role] }, t(`rating.as.${role}`))),
              ),
            )
          : null,
        h(
          'section',
          { class: 'rated-games', 'aria-labelledby': 'rated-games-title' },
          h('h2', { id: 'rated-games-title' }, t('profilePage.games')),
          profile.games.length ? h('ul', {}, profile.games.map(gameRow)) : h('p', {}, t('profilePage.noGames')),
        ),
        h(
          'p',
          {},
          h('a', { href: '/leaderboard' }, t('leaderboard.title')),
          ' · ',
          h('a', { href: '/' }, t('notFound.home')),
        ),
      ),
    );
  }

  onLanguageChange(render);
  render();
  fetch(`/api/profiles/${encodeURIComponent(id)}`)
    .then((res) => (res.ok ? res.json() : Promise.reject(new Error(res.statusText))))
    .then((json) => {
      profile = json;
      render();
    })
    .catch(() => {
      failed = true;
      render();
    });
}
