// German strings of the guided first game (`/tutorial`), loaded with its page (`useStrings('tutorial')` in
// i18n.js), not on a first visit.
export default {
  'tutorial.title': 'Eine geführte erste Partie',
  'tutorial.failed': 'Die geführte Partie konnte nicht beginnen; versuch es noch einmal.',
  'tutorial.done': 'Eine echte Partie spielen',
  'tutorial.step.opening':
    'Du bist der Flüchtende. Leg ein Versteck höchstens 3 über der 0, oder weiter mit Sprintkarten darunter (+1 ungerade, +2 gerade). Wähle zuerst das Versteck, dann die Sprintkarten.',
  'tutorial.step.openingMore':
    'Leg ein zweites Versteck oder beende deinen Zug. Die Polizeichefin sieht, wie viele Sprintkarten darunter liegen, nicht welche.',
  'tutorial.step.draw': 'Jeder Zug beginnt mit Ziehen. Die Polizeichefin erfährt den Stapel, nie die Karte.',
  'tutorial.step.placeOrPass': 'Leg ein Versteck über dein letztes, oder passe, um deine Karten zu behalten.',
  'tutorial.step.marshal': 'Die Polizeichefin zieht und rät dann eine oder mehrere Zahlen.',
  'tutorial.step.manhunt': 'Hetzjagd: Sie rät eine Zahl nach der anderen; bei ihrem ersten Fehler entkommst du.',
  'tutorial.step.won': 'Du bist entkommen: Der Flüchtende gewinnt!',
  'tutorial.step.lost': 'Die Polizeichefin hat jedes Versteck gefunden.',
  'tutorial.step.wait': 'Einen Moment …',
  'tutorial.note.sprints': {
    one: '1 Sprintkarte: Sie sieht die Anzahl, nicht die Karte.',
    other: '{n} Sprintkarten: Sie sieht die Anzahl, nicht die Karten.',
  },
  'tutorial.note.passed': 'Du hast gepasst: Deine Karten bleiben auf der Hand.',
  'tutorial.note.multiGuess':
    'Sie hat {numbers} auf einmal geraten: nur richtig, wenn alle Verstecke sind; sonst hört sie nur „falsch“.',
  'tutorial.note.guessWrong': 'Sie hat {numbers} geraten: falsch.',
  'tutorial.note.guessRight': 'Sie hat {numbers} geraten: richtig! Es wird aufgedeckt.',
  'tutorial.note.revealed': 'Versteck {card} ist jetzt aufgedeckt.',
  'tutorial.note.manhuntStarted': 'Die 42, und {h} ist das höchste gefundene Versteck: Die Hetzjagd beginnt.',
};
