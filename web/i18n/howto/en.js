// English strings of How to play, loaded with its page (`useStrings('howto')` in
// i18n.js), not on a first visit.
export default {
  'howto.close': 'Close',
  'howto.section.goal.title': 'Goal',
  'howto.section.goal.text':
    'The Fugitive lays a trail of face-down hideouts from 0 towards 42. He wins by playing 42. The Marshal wins by uncovering every hideout on the trail before he gets away.',
  'howto.section.cards.title': 'Cards',
  'howto.section.cards.text':
    'Cards are numbered 0 to 42. Each one also has a sprint value: even numbers +2, odd numbers +1. The Fugitive starts with 1, 2, 3, 42 and five cards from the decks; the Marshal starts with nothing. Deck 1 holds 4–14, deck 2 holds 15–28, deck 3 holds 29–41.',
  'howto.section.fugitive.title': 'The Fugitive',
  'howto.section.fugitive.text':
    'On his first turn he places one or two hideouts and draws nothing. On every later turn he draws one card from any deck, then places one hideout or passes.',
  'howto.section.placing.title': 'Placing a hideout',
  'howto.section.placing.text':
    'A new hideout must be higher than the last card of the trail, and at most 3 higher. To go further he sprints: he puts other cards from his hand face down under the new hideout, and their sprint values add to the 3. Everyone sees how many sprint cards lie under a hideout, but not which. 42 is placed face up and cannot be used to sprint.',
  'howto.section.marshal.title': 'The Marshal',
  'howto.section.marshal.text':
    'On her first turn she draws two cards, later one. Then she names one or more numbers from 1 to 41. If every number she names is a face-down hideout, they are all turned face up with their sprint cards. If even one is wrong, nothing is turned and she only learns that the guess was wrong. The cards in her hand are numbers that cannot be hideouts.',
  'howto.section.manhunt.title': 'Manhunt',
  'howto.section.manhunt.text':
    'When the Fugitive plays 42 and no hideout of 30 or more has been found, the Marshal gets a last chance: she names one number at a time. Each right number turns a hideout face up; if she finds them all she wins, and at her first miss he escapes.',
  'howto.section.after.title': 'After the game',
  'howto.section.after.text':
    'When the game ends, every card is shown: the whole trail, the sprint cards, both hands and the decks.',
  'howto.options': 'Game options',
  'howto.sprint.gap': '+6',
  'howto.sprint.title': 'A sprint.',
  'howto.sprint.text':
    '14 is 6 above 8. Three steps are free; the other 3 come from the sprint cards under it: 12 is even (two footprints, +2) and 5 is odd (one footprint, +1).',
  'howto.guess.title': 'A guess of several numbers.',
  'howto.guess.text':
    'When 9 and 17 are both hideouts, both turn face up. When even one of the numbers is wrong (9 and 20), nothing turns, and she does not learn which one was wrong.',
  'howto.manhunt.title': 'The Manhunt.',
  'howto.manhunt.text':
    'He played 42 before any hideout of 30 or more was found: she names one number at a time. Each right number turns a hideout; the first miss lets him escape.',
  'howto.events.title': 'Event cards (an option).',
  'howto.events.text':
    'Some decks hold event cards: footprints help the Fugitive, binoculars help the Marshal. Whoever draws one resolves it at once, sometimes with a choice, then draws again.',
  'howto.pass.title': 'The pass bonus (an option).',
  'howto.pass.text':
    'With the pass bonus, a Fugitive who passes may also draw a card from the lowest deck that is not empty.',
  'howto.keys.title': 'Reading the cards.',
  'howto.keys.text':
    'Footprints under a number are its sprint value: one for odd cards, two for even. 42 is the escape card: it is placed face up and never sprints. Trail positions are numbered from 0 above the cards.',
};
