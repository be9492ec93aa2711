// French strings of the guided first game (`/tutorial`), loaded with its page (`useStrings('tutorial')` in
// i18n.js), not on a first visit.
export default {
  'tutorial.title': 'Une première partie guidée',
  'tutorial.failed': 'La partie guidée n’a pas pu commencer ; réessaie.',
  'tutorial.done': 'Jouer une vraie partie',
  'tutorial.step.opening':
    'Tu es le Fugitif. Pose une cachette d’au plus 3 au-dessus du 0, ou plus loin avec des cartes Sprint dessous (+1 impair, +2 pair). Choisis d’abord la cachette, puis ses cartes Sprint.',
  'tutorial.step.openingMore':
    'Pose une deuxième cachette, ou finis ton tour. La Marshall voit combien de cartes Sprint sont dessous, pas lesquelles.',
  'tutorial.step.draw': 'Chaque tour commence par une pioche. La Marshall apprend le paquet, jamais la carte.',
  'tutorial.step.placeOrPass': 'Pose une cachette au-dessus de ta dernière, ou passe pour garder tes cartes.',
  'tutorial.step.marshal': 'La Marshall pioche, puis annonce un ou plusieurs nombres.',
  'tutorial.step.manhunt': 'Chasse à l’homme : elle annonce un nombre à la fois ; à sa première erreur, tu t’échappes.',
  'tutorial.step.won': 'Tu t’es échappé : le Fugitif gagne !',
  'tutorial.step.lost': 'La Marshall a trouvé chaque cachette.',
  'tutorial.step.wait': 'Un instant…',
  'tutorial.note.sprints': {
    one: '{n} carte Sprint : elle voit le nombre, pas la carte.',
    other: '{n} cartes Sprint : elle voit le nombre, pas les cartes.',
  },
  'tutorial.note.passed': 'Tu as passé : tes cartes restent dans ta main.',
  'tutorial.note.multiGuess':
    'Elle a annoncé {numbers} à la fois : juste seulement si toutes sont des cachettes ; sinon elle entend seulement « faux ».',
  'tutorial.note.guessWrong': 'Elle a annoncé {numbers} : faux.',
  'tutorial.note.guessRight': 'Elle a annoncé {numbers} : juste ! La cachette est révélée.',
  'tutorial.note.revealed': 'La cachette {card} est maintenant révélée.',
  'tutorial.note.manhuntStarted': 'Le 42, avec {h} la plus haute cachette trouvée : la chasse à l’homme commence.',
};
