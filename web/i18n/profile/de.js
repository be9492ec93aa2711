// German strings of a profile’s page (`/@/{id}`) and the leaderboard, loaded with its page (`useStrings('profile')` in
// i18n.js), not on a first visit.
export default {
  'rating.as.fugitive': 'Als Flüchtender',
  'rating.as.marshal': 'Als Polizeichefin',
  'profilePage.notFound': 'Diesen Spieler gibt es nicht.',
  'profilePage.deleted': 'Gelöschter Spieler',
  'profilePage.played': { one: '1 gewertete Partie', other: '{n} gewertete Partien' },
  'profilePage.won': { one: '1 gewonnen', other: '{n} gewonnen' },
  'profilePage.chart': 'Wertung nach jeder gewerteten Partie, als Flüchtender und als Polizeichefin',
  'profilePage.games': 'Gewertete Partien',
  'profilePage.noGames': 'Noch keine gewertete Partie.',
  'profilePage.gameWon': 'Gewonnen',
  'profilePage.gameLost': 'Verloren',
  'profilePage.opponent': 'der Gegner',
  'profilePage.accuracy': 'Genauigkeit in den letzten analysierten Partien ({games}): {mean} %',
  'profilePage.noName': 'Ein Spieler ohne Namen',
  'leaderboard.rule':
    'Die besten 50 jeder Rolle unter den Spielern mit mindestens 10 gewerteten Partien darin in den letzten 30 Tagen.',
  'leaderboard.empty': 'Noch niemand hat in den letzten 30 Tagen {n} gewertete Partien in dieser Rolle gespielt.',
};
