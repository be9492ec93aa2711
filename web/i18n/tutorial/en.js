// English strings of the guided first game (`/tutorial`), loaded with its page (`useStrings('tutorial')` in
// i18n.js), not on a first visit.
export default {
  'tutorial.title': 'A guided first game',
  'tutorial.failed': 'The guided game could not start; try again.',
  'tutorial.done': 'Play a real game',
  'tutorial.step.opening':
    'You are the Fugitive. Lay a hideout at most 3 above 0, or further with sprint cards under it (+1 odd, +2 even). Pick the hideout first, then its sprint cards.',
  'tutorial.step.openingMore':
    'Lay a second hideout, or end your turn. The Marshal sees how many sprint cards lie under a hideout, not which.',
  'tutorial.step.draw': 'Each turn begins with a draw. The Marshal learns the deck, never the card.',
  'tutorial.step.placeOrPass': 'Lay one hideout above your last, or pass to keep your cards.',
  'tutorial.step.marshal': 'The Marshal draws, then names one or more numbers.',
  'tutorial.step.manhunt': 'The Manhunt: she names one number at a time; at her first miss you escape.',
  'tutorial.step.won': 'You escaped: the Fugitive wins!',
  'tutorial.step.lost': 'The Marshal found every hideout.',
  'tutorial.step.wait': 'A moment…',
  'tutorial.note.sprints': {
    one: '1 sprint card: she sees the count, not the card.',
    other: '{n} sprint cards: she sees the count, not the cards.',
  },
  'tutorial.note.passed': 'You passed: your cards stay in your hand.',
  'tutorial.note.multiGuess':
    'She named {numbers} at once: right only if all are hideouts; if not, she hears only “wrong”.',
  'tutorial.note.guessWrong': 'She guessed {numbers}: wrong.',
  'tutorial.note.guessRight': 'She guessed {numbers}: right! It turns face up.',
  'tutorial.note.revealed': 'Hideout {card} is face up now.',
  'tutorial.note.manhuntStarted': '42 with {h} the highest found: the Manhunt begins.',
};
