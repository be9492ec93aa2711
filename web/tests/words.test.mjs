// The client's words without a browser: the Fugitive's move panel names the reason a pick is
// illegal, from the server's LegalActions; every history entry reads as a full sentence in
// every language, with nothing left unfilled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLanguage, strings, LANGUAGE_NAMES } from '../i18n.js';
import { checkPlacement } from '../fugitive.js';
import { describe as sentence } from '../history.js';

// Every language's strings, loaded (the page loads only the reader's); setLanguage is then at once.
const LANGUAGES = Object.fromEntries(
  await Promise.all(Object.keys(LANGUAGE_NAMES).map(async (lang) => [lang, await strings(lang)])),
);

const trail = (...cards) => cards.map((card) => ({ card, face_up: card === 0, sprint_count: 0, sprints: [] }));
const HAND = [1, 2, 3, 8, 9, 12, 14, 15, 30, 42];
const view = (cards, phase = { phase: 'place_or_pass' }, opening = 'one_or_two') => ({
  viewer: 'fugitive',
  hands: { fugitive: { size: HAND.length, cards: HAND }, marshal: { size: 0, cards: null } },
  rules: { opening_hideouts: opening, pass_bonus_draw: false },
  phase,
  trail: trail(...cards),
});
const pick = (hideout, sprints = []) => ({ hideout, sprints: new Set(sprints) });
const legal = (placements, blocked = []) => ({
  placements,
  blocked,
  draws: [],
  pass: true,
  end_turn: false,
  guess: null,
});
const notAbove = (hideout, last) => ({ hideout, why: { kind: 'not_above', last } });
const tooFar = (hideout, need) => ({ hideout, why: { kind: 'too_far', need } });

test('a placement the server allows is legal; the panel says why others are not (R9, R10, R11)', () => {
  setLanguage('en');
  const v = view([0, 3, 5]);
  const l = legal(
    [{ hideout: 12, sprints: { kind: 'at_least', value: 4, from: [1, 2, 8, 9, 14] } }],
    [notAbove(1, 5), notAbove(2, 5), notAbove(3, 5), notAbove(4, 5), tooFar(30, 22), tooFar(42, 34)],
  );
  assert.equal(checkPlacement(v, l, pick(12, [2, 8])).ok, true);
  assert.equal(checkPlacement(v, l, pick(12, [9, 14])).ok, false);
  assert.match(checkPlacement(v, l, pick(12, [9, 14])).text, /12 is 7 above 5: you need sprint \+4, you have \+3/);
  assert.match(checkPlacement(v, l, pick(4)).text, /4 is not above 5/);
  // The sprint cards allowed are the server's `from` (42 never is, R11): the client checks nothing else.
  assert.match(checkPlacement(v, l, pick(12, [42, 2, 8])).text, /Not allowed as sprint cards under 12 here: 42/);
  assert.equal(checkPlacement(v, l, pick(12, [42, 2, 8])).ok, false);
  // On an M1 Roadblock space the server allows none.
  const roadblock = legal([{ hideout: 8, sprints: { kind: 'at_least', value: 0, from: [] } }]);
  assert.equal(checkPlacement(v, roadblock, pick(8)).ok, true);
  assert.match(checkPlacement(v, roadblock, pick(8, [2])).text, /under 8 here: 2/);
  assert.match(checkPlacement(v, l, pick(30)).text, /30 is too far/);
  assert.equal(checkPlacement(v, l, pick(null, [2])).ok, false);
  assert.match(checkPlacement(v, l, pick(12)).text, /you need sprint \+4, you have \+0/);
});

test('under exactly_two the first hideout must take one of the listed sprint sets (R6)', () => {
  setLanguage('en');
  const v = view([0], { phase: 'opening', placed: 0 }, 'exactly_two');
  const l = legal(
    [{ hideout: 5, sprints: { kind: 'one_of', sets: [[1], [2], [1, 2]] } }],
    [{ hideout: 15, why: { kind: 'no_second_hideout' } }, tooFar(30, 27), tooFar(42, 39)],
  );
  assert.equal(checkPlacement(v, l, pick(5, [2])).ok, true);
  assert.equal(checkPlacement(v, l, pick(5, [2, 3])).ok, false);
  assert.match(checkPlacement(v, l, pick(5, [2, 3])).text, /one of these sprint sets: 1, 2, and 1\+2/);
  // 15 is within reach of his other cards (1+2+1+2+1+2+2+2 = 13 ≥ 12): the second hideout is the problem.
  assert.match(checkPlacement(v, l, pick(15)).text, /could not place a second hideout/);
  assert.match(checkPlacement(v, l, pick(30)).text, /30 is too far/);
});

/// The decks as a view carries them, with their ranges (R2).
const DECKS = [
  { deck: 1, low: 4, high: 14, size: 5, cards: null },
  { deck: 2, low: 15, high: 28, size: 9, cards: null },
  { deck: 3, low: 29, high: 41, size: 13, cards: null },
];

const EVENTS = [
  { type: 'drew', role: 'fugitive', deck: 2, card: 17 },
  { type: 'drew', role: 'marshal', deck: 1, card: null },
  { type: 'drew', role: 'marshal', deck: 1, card: 9 },
  { type: 'draw_skipped', role: 'marshal' },
  { type: 'placed', position: 2, hideout: 12, sprint_count: 2, sprints: [4, 7] },
  { type: 'placed', position: 2, hideout: 12, sprint_count: 0, sprints: [] },
  { type: 'placed', position: 2, hideout: null, sprint_count: 1, sprints: null },
  { type: 'placed', position: 2, hideout: null, sprint_count: 0, sprints: null },
  { type: 'placed', position: 5, hideout: 42, sprint_count: 1, sprints: null },
  { type: 'passed' },
  { type: 'turn_ended' },
  { type: 'guessed', numbers: [5, 17], right: false },
  { type: 'guessed', numbers: [12], right: true },
  { type: 'revealed', position: 2, hideout: 12, sprints: [4] },
  { type: 'revealed', position: 2, hideout: 12, sprints: [4, 7] },
  { type: 'revealed', position: 2, hideout: 12, sprints: [] },
  { type: 'manhunt_started', highest_revealed: 12 },
  { type: 'resigned', role: 'marshal' },
  { type: 'timed_out', role: 'fugitive' },
  { type: 'game_over', outcome: { winner: 'fugitive', reason: 'manhunt_survived' } },
  // Event variants (../shared/EVENTS.md).
  { type: 'event_drawn', role: 'marshal', deck: 2, card: 'M4' },
  { type: 'event_drawn', role: 'fugitive', deck: null, card: 'F2' },
  { type: 'catchup_drawn', role: 'fugitive', deck: 1, hidden: 3, pile: 'binoculars' },
  { type: 'no_effect', card: 'F4' },
  { type: 'draw_missed', role: 'marshal' },
  { type: 'trail_event_laid', position: 3, card: 'N4', effect: 'roadblock' },
  { type: 'returned_to_deck', role: 'marshal', deck: 1, card: null },
  { type: 'returned_to_deck', role: 'marshal', deck: 1, card: 7 },
  { type: 'sprint_added', position: 1, card: null },
  { type: 'sprint_added', position: 1, card: 15 },
  { type: 'sprints_shown', position: 2, sprints: [4, 7] },
  { type: 'sprints_shown', position: 2, sprints: [] },
  { type: 'stakeout_counted', deck: 2, count: 1 },
  { type: 'stakeout_counted', deck: 3, count: 0 },
  { type: 'eyewitness', position: 2, low: 15, high: 28 },
  { type: 'peeked', role: 'fugitive', deck: 3, card: null },
  { type: 'peeked', role: 'fugitive', deck: 3, card: 30 },
  { type: 'peeked', role: 'marshal', deck: 3, card: 'N1' },
  { type: 'peeked', role: 'marshal', deck: 3, card: 'catchup' },
  { type: 'moved_to_bottom', deck: 3, moved: true },
  { type: 'moved_to_bottom', deck: 3, moved: false },
  { type: 'declined', role: 'fugitive', card: 'F5' },
  // The pass bonus (R11a) is declined without a card.
  { type: 'declined', role: 'fugitive', card: null },
];

test('every history entry is a filled-in sentence in every language, for every viewer (R8a, R13)', () => {
  for (const lang of Object.keys(LANGUAGES)) {
    setLanguage(lang);
    for (const viewer of ['fugitive', 'marshal', 'spectator']) {
      for (const event of EVENTS) {
        const text = sentence(event, viewer, DECKS);
        assert.ok(text.length > 8, `${lang} ${viewer} ${event.type}: "${text}"`);
        assert.doesNotMatch(text, /[{}]|undefined|null|\.\w+\./, `${lang} ${viewer} ${event.type}: "${text}"`);
      }
    }
  }
  setLanguage('en');
  assert.equal(sentence(EVENTS[1], 'spectator'), 'The Marshal drew from deck 1.');
  assert.equal(sentence(EVENTS[11], 'marshal'), 'You guessed 5 and 17: wrong.');
  assert.equal(sentence(EVENTS[6], 'marshal'), 'The Fugitive placed a hideout at position 2 with 1 sprint card.');
  const entry = (type) => EVENTS.find((e) => e.type === type);
  assert.equal(sentence(entry('event_drawn'), 'fugitive'), 'The Marshal drew the event Dragnet from deck 2.');
  assert.equal(sentence(entry('stakeout_counted'), 'fugitive', DECKS), 'One face-down hideout lies in 15–28.');
  setLanguage('de');
  assert.equal(sentence(entry('event_drawn'), 'marshal'), 'Du hast das Ereignis Ringfahndung von Stapel 2 gezogen.');
  assert.equal(sentence(EVENTS.at(-1), 'marshal'), 'Der Flüchtende hat keine Bonuskarte gezogen.');
  setLanguage('fr');
  assert.equal(sentence(entry('declined'), 'fugitive'), 'Tu as renoncé à Écran de fumée.');
  setLanguage('en');
});
