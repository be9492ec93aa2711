// The Marshal's aids and the "just now" of the table, on made-up states (no browser): the board's
// marks, the warnings before a guess that cannot be right and the numbers a face-down position can
// still be, all from what the server sends (`candidates`, `notepad`); the other side's last move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLanguage } from '../i18n.js';
import { knowledge, guessWarnings, positionCandidates } from '../marshal.js';
import { lastMove } from '../table.js';

await setLanguage('en');

const pos = (card, face_up, sprint_count = 0, sprints = null) => ({ card, face_up, sprint_count, sprints });
// 0, a found 7 (sprint card 4 shown), two face-down hideouts; she holds 12 and 30.
const view = {
  viewer: 'marshal',
  trail: [pos(0, true), pos(7, true, 1, [4]), pos(null, false), pos(null, false, 2)],
  hands: { marshal: { cards: [12, 30], size: 2 }, fugitive: { cards: null, size: 5 } },
  history: [
    { type: 'placed', position: 1, hideout: null, sprints: null, sprint_count: 1 },
    { type: 'guessed', role: 'marshal', numbers: [7], right: true },
    { type: 'revealed', position: 1, hideout: 7, sprints: [4] },
    { type: 'guessed', role: 'marshal', numbers: [9], right: false },
    { type: 'guessed', role: 'marshal', numbers: [9, 10, 11], right: false },
    { type: 'drew', role: 'fugitive', deck: 2, card: null },
    { type: 'placed', position: 3, hideout: null, sprints: null, sprint_count: 2 },
    { type: 'drew', role: 'marshal', deck: 1, card: 12 },
  ],
  phase: { phase: 'guess' },
  outcome: null,
};

// What the server sends beside that view (`state.candidates`, what each face-down hideout can be
// by the public rules alone): 9 is out by her lone wrong guess, 10 and 11 are doubtful.
const candidates = {
  positions: [
    { position: 2, numbers: [8, 10, 11, 13] },
    { position: 3, numbers: [10, 11, 13, 14, 16] },
  ],
  ruled_out: {
    revealed: [7],
    sprint: [4],
    held: [12, 30],
    guessed: [9],
    trail: [1, 2, 3, 5, 6, 15, ...Array.from({ length: 25 }, (_, i) => i + 17).filter((n) => n !== 30)],
  },
  doubtful: [10, 11],
};

test('the board marks what the server rules out, with its reason, and what it calls doubtful', () => {
  const k = knowledge(candidates, null);
  assert.equal(k.why.get(12), 'held');
  assert.equal(k.why.get(4), 'sprint');
  assert.equal(k.why.get(9), 'guessed');
  assert.equal(k.why.get(20), 'trail');
  assert.ok(!k.why.has(10) && !k.why.has(13), 'candidates are not ruled out');
  assert.deepEqual([...k.doubtful], [10, 11]);
  // Nothing is worked out from the view: without the server's sets the board marks nothing.
  assert.equal(knowledge(null, null).why.size, 0);
});

test('a guess that cannot be right is explained in the words of its reason; one that can be right is not', () => {
  const warnings = guessWarnings(candidates, null, [4, 12, 9, 20, 10]);
  assert.equal(warnings.length, 4);
  assert.match(warnings[0], /4 is a face-up sprint card/);
  assert.match(warnings[1], /12 is in your hand/);
  assert.match(warnings[2], /wrong guesses rule 9 out/);
  assert.match(warnings[3], /No face-down hideout can be 20/);
  assert.deepEqual(guessWarnings(candidates, null, [10, 11]), []);
  // Issue 23, item 1: the view's history has 2 guessed alone and wrong, but the server says a
  // hideout placed since can be 2: no warning.
  const later = {
    ...candidates,
    positions: [{ position: 2, numbers: [2, 3] }],
    ruled_out: { ...candidates.ruled_out, trail: [] },
  };
  assert.deepEqual(guessWarnings(later, null, [2]), []);
  // With the notepad assist, a number no world allows is warned about too.
  const notepad = { trails: 4, positions: [{ position: 2, candidates: [{ number: 8, trails: 4 }] }] };
  assert.match(guessWarnings(candidates, notepad, [10])[0], /notepad says 10/);
  assert.deepEqual(guessWarnings(candidates, notepad, [8]), []);
});

test("a face-down position's notebook lists the server's numbers, with the notepad's shares when assisted", () => {
  assert.deepEqual(
    positionCandidates(candidates, null, 2).map((c) => c.number),
    [8, 10, 11, 13],
  );
  assert.deepEqual(positionCandidates(candidates, null, 5), [], 'no such face-down position');
  const notepad = {
    trails: 10,
    positions: [
      {
        position: 2,
        candidates: [
          { number: 8, trails: 3 },
          { number: 10, trails: 7 },
        ],
      },
      { position: 3, candidates: [{ number: 13, trails: 10 }] },
    ],
  };
  const assisted = positionCandidates(candidates, notepad, 2);
  assert.deepEqual(assisted, [
    { number: 10, share: 0.7 },
    { number: 8, share: 0.3 },
  ]);
  assert.equal(
    assisted.reduce((sum, c) => sum + c.share, 0),
    1,
    'per position the shares add up to 100 %',
  );
});

test("the other side's last move stays in view while she makes hers", () => {
  const move = lastMove(view);
  assert.equal(move.mover, 'fugitive');
  assert.deepEqual([...move.positions], [3]);
  assert.deepEqual([...move.decks], [2]);
  assert.deepEqual(
    move.entries.map((e) => e.type),
    ['drew', 'placed'],
  );
  // A spectator sees the last mover's move: here the Marshal's draw.
  const watched = lastMove({ ...view, viewer: 'spectator' });
  assert.equal(watched.mover, 'marshal');
  assert.deepEqual([...watched.decks], [1]);
});
