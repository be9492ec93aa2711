// English strings of a profile’s page (`/@/{id}`) and the leaderboard, loaded with its page (`useStrings('profile')` in
// i18n.js), not on a first visit.
export default {
  'rating.as.fugitive': 'As the Fugitive',
  'rating.as.marshal': 'As the Marshal',
  'profilePage.notFound': 'There is no such player.',
  'profilePage.deleted': 'Deleted player',
  'profilePage.played': { one: '1 rated game', other: '{n} rated games' },
  'profilePage.won': { one: '1 won', other: '{n} won' },
  'profilePage.chart': 'Rating after each rated game, as the Fugitive and as the Marshal',
  'profilePage.games': 'Rated games',
  'profilePage.noGames': 'No rated game yet.',
  'profilePage.gameWon': 'Won',
  'profilePage.gameLost': 'Lost',
  'profilePage.opponent': 'the opponent',
  'profilePage.accuracy': 'Accuracy over the last analysed games ({games}): {mean} %',
  'profilePage.noName': 'A player without a name',
  'leaderboard.rule':
    'The best 50 in each role among the players with at least 10 rated games in it in the last 30 days.',
  'leaderboard.empty': 'Nobody has played {n} rated games in this role in the last 30 days yet.',
};
