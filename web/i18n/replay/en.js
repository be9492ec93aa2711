// English strings of the replay page, loaded with its page (`useStrings('replay')` in
// i18n.js), not on a first visit.
export default {
  'replay.title': 'Replay of game {n}',
  'replay.controls': 'Move through the game',
  'replay.first': 'Start',
  'replay.prev': 'Back',
  'replay.next': 'Next',
  'replay.last': 'End',
  'replay.step': 'Move {i} of {n}',
  'replay.slider': 'Move',
  'replay.start': 'The game begins.',
  'replay.json': 'Download the record (JSON)',
  'replay.share': 'Copy the link to this replay',
  'replay.copied': 'Link copied',
  'replay.back': 'Back to the room',
  'replay.running': 'This game is still being played: its replay opens once it is over.',
  'replay.notFound': 'There is no such game.',
};
