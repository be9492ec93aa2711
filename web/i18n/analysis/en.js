// English strings of the analysis of a finished game (on the replay page), loaded with its page (`useStrings('analysis')` in
// i18n.js), not on a first visit.
export default {
  'analysis.title': 'Analysis',
  'analysis.queued': {
    zero: 'Waiting for a free worker: no other computation is ahead of this analysis.',
    one: 'Waiting for a free worker: 1 computation is ahead of this analysis.',
    other: 'Waiting for a free worker: {n} computations are ahead of this analysis.',
  },
  'analysis.computing': 'The computer is analysing this game…',
  'analysis.progress': 'Moves analysed: {done} of {total}',
  'analysis.failed': 'The analysis could not be loaded.',
  'analysis.accuracy': '{who}: accuracy {value} %',
  'analysis.incomplete': 'The analysis ran out of time: the later moves have no win chance.',
  'analysis.chart':
    'Chart, move by move: the Marshal’s chance to find a hideout with her next guess, the Fugitive’s cover and his chance to win. Click a point to go to that move.',
  'analysis.legend.next': 'Her next guess finds a hideout',
  'analysis.legend.cover': 'His cover (bits, scaled)',
  'analysis.legend.wins': 'He wins (playouts)',
  'analysis.playouts':
    'Chances count every world that fits what the Marshal saw; the win chance is the share of {playouts} games the hard computers played on from each move.',
  'analysis.guess':
    'Move {step}: the Marshal names {numbers}, right with {chance}. Best single number: {best} ({bestChance}); best multi-number guess: {multi} ({multiChance}).',
  'analysis.hide': 'Move {step}: {who} leaves her next guess {chance} to find a hideout (at best {best}).',
  'analysis.mark.best': 'Best',
  'analysis.mark.good': 'Good',
  'analysis.mark.inaccuracy': 'Inaccuracy',
  'analysis.mark.mistake': 'Mistake',
  'analysis.mark.blunder': 'Blunder',
  'analysis.estimate.budget': '(an estimate: this position was past the notepad’s work budget, so it counted trails)',
  'analysis.estimate.events': '(an estimate: the notepad cannot read some events drawn, so it counted trails)',
  'analysis.estimate.joint': '(an estimate: the guess named several uncertain numbers; its chance is an upper bound)',
};
