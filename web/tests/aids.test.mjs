// Issue 23: the Marshal's aids never tell her something false. Her guess board, her notebook and
// the warning before a guess show what the server sends (`candidates`: what each face-down
// hideout can be by the public rules alone; `notepad` with the assist), and derive nothing:
// 1. a number guessed wrong alone before it was placed can be a later hideout (R12, R13);
// 2. without the assist, a hideout placed without sprint cards is at most 3 above the one
//    before (R9): 1–3 at first, then only what the rules allow, less her hand;
// 3. a wrong guess of several numbers is doubtful only until one of them is found at a position
//    that was face down then.
// The games are the known deal of `--deal-seed 20261123` (harness.mjs): the Fugitive holds 1, 2,
// 3, 6, 9, 12, 17, 27 and 42; deck 1 starts 5, 10, deck 2 starts 25, 28, deck 3 starts 36, 34,
// 41, 30. The Marshal draws from deck 3 only.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  openTable,
  closeTable,
  newPlayer,
  readTable,
  waitForTurn,
  acting,
  draw,
  place,
  guess,
  shot,
} from './harness.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

/// A room of two people made through the API: the Fugitive's page and the Marshal's.
async function seats({ notepadAssist = false } = {}) {
  const res = await fetch(`${server.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'fugitive', notepad_assist: notepadAssist }),
  });
  assert.equal(res.status, 201);
  const room = await res.json();
  const fugitive = await newPlayer(browser);
  await fugitive.goto(`${server.url}${room.links.seat}`);
  await fugitive.getByTestId('room').waitFor();
  const marshal = await newPlayer(browser);
  await marshal.goto(`${server.url}${room.links.invite}`);
  await marshal.getByTestId('room').waitFor();
  assert.equal((await readTable(fugitive)).viewer, 'fugitive');
  assert.equal((await readTable(marshal)).viewer, 'marshal');
  assert.deepEqual((await readTable(fugitive)).hand, [1, 2, 3, 6, 9, 12, 17, 27, 42], 'the known deal');
  return { fugitive, marshal };
}

/// No page had an error; both close.
async function leave(...pages) {
  for (const page of pages) {
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
}

/// The Marshal draws her due cards from deck 3 and waits to guess.
async function marshalDraws(marshal) {
  await waitForTurn(marshal, 'draw');
  while ((await readTable(marshal)).phase === 'draw') await draw(marshal, 3);
  await waitForTurn(marshal, 'guess');
}

/// The Fugitive draws from `deck`, then places `hideout` over `sprints` (or passes: `null`).
async function fugitiveTurn(fugitive, deck, hideout, sprints = []) {
  await waitForTurn(fugitive, 'draw');
  await draw(fugitive, deck);
  await waitForTurn(fugitive, 'place_or_pass');
  if (hideout === null) await acting(fugitive, () => fugitive.getByTestId('pass').click());
  else await place(fugitive, hideout, sprints);
}

/// The marks of number `n` on her guess board (its classes).
const marks = async (marshal, n) => (await marshal.getByTestId(`number-${n}`).getAttribute('class')).split(/\s+/);

/// The numbers her notebook lists for face-down `position`.
async function notebook(marshal, position) {
  await marshal.getByTestId(`inspect-${position}`).click();
  await marshal.getByTestId('notebook').waitFor();
  const numbers = await marshal
    .locator('[data-testid=notebook] [data-number]')
    .evaluateAll((els) => els.map((el) => Number(el.dataset.number)).sort((a, b) => a - b));
  await marshal.getByTestId('notebook-close').click();
  return numbers;
}

/// Picks `numbers` and presses Guess: returns the warning's text if one asks first (and goes
/// back), else waits for the guess to be played and returns null.
async function guessUnwarned(marshal, numbers) {
  for (const n of numbers) await marshal.getByTestId(`number-${n}`).click();
  const before = Number(await marshal.getByTestId('room').getAttribute('data-version'));
  await marshal.getByTestId('guess').click();
  await marshal.waitForFunction(
    (before) =>
      document.querySelector('[data-testid=guess-warning]') ||
      Number(document.querySelector('[data-testid=room]').dataset.version) > before,
    before,
  );
  const warning = marshal.getByTestId('guess-warning');
  if (await warning.count()) {
    const text = await warning.textContent();
    await marshal.getByTestId('guess-back').click();
    return text;
  }
  return null;
}

for (const notepadAssist of [false, true]) {
  test(`item 1: a number guessed wrong alone before it was placed can be a later hideout (R13; assist ${notepadAssist ? 'on' : 'off'})`, async () => {
    const { fugitive, marshal } = await seats({ notepadAssist });
    await waitForTurn(fugitive, 'opening');
    await place(fugitive, 1);
    await acting(fugitive, () => fugitive.getByTestId('end-turn').click());
    await marshalDraws(marshal);
    await guess(marshal, [2]);
    // Wrong: 2 is in his hand. While only position 1 is face down, the guess rules 2 out.
    assert.ok((await marks(marshal, 2)).includes('wrong'), 'ruled out by the wrong guess');
    await fugitiveTurn(fugitive, 2, 2);
    await marshalDraws(marshal);
    // Position 2 was placed after the guess: it may be 2.
    const board = await marks(marshal, 2);
    for (const mark of ['wrong', 'impossible', 'held', 'sprint']) assert.ok(!board.includes(mark), `2 is not ${mark}`);
    assert.ok((await notebook(marshal, 2)).includes(2), "position 2's notebook lists 2");
    assert.ok(!(await notebook(marshal, 1)).includes(2), 'position 1 was face down at the guess: not 2');
    await shot(marshal, `aids-item1-assist-${notepadAssist}`);
    assert.equal(await guessUnwarned(marshal, [2]), null, 'no "cannot be right" warning');
    await marshal.waitForFunction(
      () => document.querySelector('[data-testid=trail-2]')?.dataset.faceUp === 'true',
      null,
      { timeout: 15000 },
    );
    await leave(fugitive, marshal);
  });
}

test('item 2: without the assist, the notebook lists only what the rules allow (R9, R20)', async () => {
  const { fugitive, marshal } = await seats();
  await waitForTurn(fugitive, 'opening');
  await place(fugitive, 1);
  await acting(fugitive, () => fugitive.getByTestId('end-turn').click());
  await waitForTurn(marshal, 'draw');
  assert.deepEqual(await notebook(marshal, 1), [1, 2, 3], 'no sprint card: at most 3 above card 0');
  // She draws 5 and 10 from deck 1, then guesses 40 (wrong).
  await draw(marshal, 1);
  await draw(marshal, 1);
  await waitForTurn(marshal, 'guess');
  assert.deepEqual((await readTable(marshal)).hand, [5, 10]);
  await guess(marshal, [40]);
  await fugitiveTurn(fugitive, 1, 3);
  await waitForTurn(marshal, 'draw');
  // 2–6 (at most 3 above 1–3), less 5 in her hand.
  assert.deepEqual(await notebook(marshal, 2), [2, 3, 4, 6]);
  assert.ok((await marks(marshal, 7)).includes('impossible'), 'out of reach');
  assert.ok((await marks(marshal, 5)).includes('held'));
  await shot(marshal, 'aids-item2-notebook');
  // Guessing a number out of reach is warned about in the words of its reason.
  await draw(marshal, 3);
  await waitForTurn(marshal, 'guess');
  assert.match(await guessUnwarned(marshal, [20]), /No face-down hideout can be 20/);
  await leave(fugitive, marshal);
});

test('item 3: doubtful numbers resolve once the wrong guess is explained (R12, R13)', async () => {
  const { fugitive, marshal } = await seats();
  await waitForTurn(fugitive, 'opening');
  // 1, then 2 over five sprint cards (overpaying, R10): position 2 may be as high as 16.
  await place(fugitive, 1);
  await place(fugitive, 2, [6, 9, 12, 17, 27]);
  await marshalDraws(marshal);
  await guess(marshal, [40]);
  await fugitiveTurn(fugitive, 2, 3, [25]); // 25 is drawn from deck 2: position 3 up to 21
  await marshalDraws(marshal);
  await guess(marshal, [39]);
  await fugitiveTurn(fugitive, 1, 5); // 5 from deck 1: position 4 up to 24
  await marshalDraws(marshal);
  // 22 can be position 4 (16, 19, 22: three of deck 2, and he had taken three).
  assert.ok((await notebook(marshal, 4)).includes(22));
  await guess(marshal, [1, 22]);
  assert.ok((await marks(marshal, 1)).includes('doubtful'));
  assert.ok((await marks(marshal, 22)).includes('doubtful'));
  await shot(marshal, 'aids-item3-doubtful');
  await fugitiveTurn(fugitive, 1, null);
  await marshalDraws(marshal);
  await guess(marshal, [1]);
  await marshal.waitForFunction(() => document.querySelector('[data-testid=trail-1]')?.dataset.faceUp === 'true');
  // 1 was at position 1, face down at that guess: 22 was no hideout then, and none came since.
  const board = await marks(marshal, 22);
  assert.ok(!board.includes('doubtful'), `22 is no longer doubtful: ${board}`);
  assert.ok(board.includes('wrong'), 'it is ruled out by the guess');
  for (const position of [2, 3, 4]) assert.ok(!(await notebook(marshal, position)).includes(22));
  await leave(fugitive, marshal);
});
