// The Marshal's aids and the "just now" of the table, on made-up views (no browser): what the
// record rules out, a wrong guess of several numbers, the warnings before a guess that cannot be
// right, the numbers a face-down position can still be, and the other side's last move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setLanguage } from '../i18n.js';
import { knowledge, guessWarnings, positionCandidates } from '../marshal.js';
import { lastMove } from '../table.js';

setLanguage('en');

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

test('the record rules out her hand, face-up sprint cards and a lone wrong guess, not a wrong group', () => {
  const k = knowledge(view, null);
  for (const n of [12, 30, 4, 9]) assert.ok(k.impossible.has(n), `${n} is impossible`);
  assert.ok(!k.impossible.has(10) && !k.impossible.has(11), 'a wrong guess of several numbers rules none out');
  assert.deepEqual(
    [...k.doubtful].sort((a, b) => a - b),
    [10, 11],
    'only doubtful (9 was wrong alone)',
  );
  assert.ok(!k.wrong.has(10) && !k.wrong.has(11));
});

test('a guess that cannot be right is explained; one that can be right is not', () => {
  const warnings = guessWarnings(view, null, [4, 12, 9, 10]);
  assert.equal(warnings.length, 3);
  assert.match(warnings[0], /4 is a face-up sprint card/);
  assert.match(warnings[1], /12 is in your hand/);
  assert.match(warnings[2], /already guessed 9 alone/);
  assert.deepEqual(guessWarnings(view, null, [10, 11]), []);
  // With the notepad assist, a number no trail allows is warned about too.
  const notepad = { trails: 4, positions: [{ position: 2, candidates: [{ number: 8, trails: 4 }] }] };
  assert.match(guessWarnings(view, notepad, [10])[0], /notepad says 10/);
  assert.deepEqual(guessWarnings(view, notepad, [8]), []);
});

test('a face-down position can still be the numbers after the face-up card before it', () => {
  const plain = positionCandidates(view, null, 2).map((c) => c.number);
  assert.equal(plain[0], 8, 'above 7');
  assert.ok(!plain.includes(12) && !plain.includes(9) && !plain.includes(4) && plain.includes(10));
  assert.ok(
    plain.every((n) => n <= 40),
    'one more hideout lies above it',
  );
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
  const assisted = positionCandidates(view, notepad, 2);
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
