// French strings of a profile’s page (`/@/{id}`) and the leaderboard, loaded with its page (`useStrings('profile')` in
// i18n.js), not on a first visit.
export default {
  'rating.as.fugitive': 'En Fugitif',
  'rating.as.marshal': 'En Marshall',
  'profilePage.notFound': 'Ce joueur n’existe pas.',
  'profilePage.deleted': 'Joueur supprimé',
  'profilePage.played': { one: '{n} partie classée', other: '{n} parties classées' },
  'profilePage.won': { one: '{n} gagnée', other: '{n} gagnées' },
  'profilePage.chart': 'Classement après chaque partie classée, en Fugitif et en Marshall',
  'profilePage.games': 'Parties classées',
  'profilePage.noGames': 'Aucune partie classée pour l’instant.',
  'profilePage.gameWon': 'Gagnée',
  'profilePage.gameLost': 'Perdue',
  'profilePage.opponent': 'l’adversaire',
  'profilePage.accuracy': 'Précision sur les dernières parties analysées ({games}) : {mean} %',
  'profilePage.noName': 'Un joueur sans nom',
  'leaderboard.rule':
    'Les 50 meilleurs de chaque rôle parmi les joueurs ayant au moins 10 parties classées dans ce rôle ces 30 derniers jours.',
  'leaderboard.empty': 'Personne n’a encore joué {n} parties classées dans ce rôle ces 30 derniers jours.',
};
