// Two people play two whole games through the web client against the real server, and a third
// watches on the spectator link:
// - game 1: Alice (Fugitive) against Bob (Marshal): two opening hideouts, a right guess, passes and
//   wrong guesses, reloads mid-game, 42 and a Manhunt that misses: the Fugitive wins (R15, R16);
// - game 2, the rematch with roles swapped: one opening hideout and End turn, a wrong
//   multi-number guess (R12), a placement with a sprint card (R10), a pass (R11a) and right
//   guesses until every hideout is found: the Marshal wins (R14).
// The spectator's DOM never holds a face-down hideout's number (R21). Whole-game screenshots go
// to web/test-results/screenshots/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  openTable,
  closeTable,
  newPlayer,
  createRoom,
  readTable,
  waitForTurn,
  acting,
  draw,
  place,
  guess,
  shot,
} from './harness.mjs';
import { plan, deckFor } from './planner.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

const last = (table) => table.trail.at(-1).card;
const hiddenOf = (table) => table.trail.filter((p) => !p.faceUp).map((p) => p.card);
const deckSizes = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [1, 2, 3].map((d) => [d, Number(document.querySelector(`[data-testid=deck-size-${d}]`).dataset.size)]),
    ),
  );

/// Every number the page's DOM carries as a card, and any face-down trail card that shows a face.
function leaksIn(page, hidden) {
  return page.evaluate((hidden) => {
    const leaks = [];
    for (const el of document.querySelectorAll('[data-card]')) {
      if (hidden.includes(Number(el.dataset.card))) leaks.push(el.outerHTML);
    }
    for (const li of document.querySelectorAll('[data-testid=trail] > li[data-face-up=false]')) {
      if (li.querySelector('.card.face') || /\d/.test(li.querySelector('.card').textContent)) leaks.push(li.outerHTML);
    }
    return leaks;
  }, hidden);
}

/// The spectator has caught up with the Fugitive's page and shows none of his face-down cards;
/// neither does the Marshal's page.
async function checkSecrets(fugitive, marshal, watcher) {
  const table = await readTable(fugitive);
  const hidden = hiddenOf(table);
  assert.ok(
    hidden.every((c) => c !== null),
    'the Fugitive sees all his hideouts (R19)',
  );
  await watcher.waitForFunction((n) => document.querySelectorAll('[data-testid=log] > li').length === n, table.log, {
    timeout: 15000,
  });
  assert.deepEqual(await leaksIn(watcher, hidden), [], 'spectator sees a face-down hideout (R21)');
  assert.deepEqual(await leaksIn(marshal, hidden), [], 'Marshal sees a face-down hideout (R20)');
  const seen = await readTable(watcher);
  assert.equal(seen.trail.length, table.trail.length);
  assert.deepEqual(
    seen.trail.map((p) => p.sprintCount),
    table.trail.map((p) => p.sprintCount),
    'sprint counts are public (R10)',
  );
  return hidden;
}

/// The Marshal draws her due cards, always from the lowest deck that has any.
async function marshalDraws(marshal) {
  await waitForTurn(marshal, 'draw');
  while ((await readTable(marshal)).phase === 'draw') {
    const sizes = await deckSizes(marshal);
    await draw(
      marshal,
      [1, 2, 3].find((d) => sizes[d] > 0),
    );
  }
  await waitForTurn(marshal, 'guess');
}

/// A number the Marshal holds: guessing it is always wrong (R12).
async function wrongNumber(marshal) {
  const { hand } = await readTable(marshal);
  assert.ok(hand.length > 0);
  return hand[0];
}

async function fugitiveDraws(fugitive) {
  await waitForTurn(fugitive, 'draw');
  const deck = deckFor(last(await readTable(fugitive)), await deckSizes(fugitive));
  await draw(fugitive, deck);
  await waitForTurn(fugitive, 'place_or_pass');
}

async function lastLog(page) {
  return page.evaluate(() => {
    const entries = [...document.querySelectorAll('[data-testid=log] > li')];
    return entries.map((li) => li.dataset.type);
  });
}

test('two players play two games by link, with a spectator following', async () => {
  const alice = await newPlayer(browser);
  const { invite, spectate } = await createRoom(alice, server.url, 'fugitive');
  assert.match(invite, /\/room\/[0-9a-f-]{36}#invite=/);
  assert.doesNotMatch(spectate, /#/);

  const bob = await newPlayer(browser);
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  assert.doesNotMatch(bob.url(), /#/, 'the invitation secret leaves the address bar');
  const watcher = await newPlayer(browser);
  await watcher.goto(spectate);
  await watcher.getByTestId('spectating').waitFor();

  assert.equal((await readTable(alice)).viewer, 'fugitive');
  assert.equal((await readTable(bob)).viewer, 'marshal');
  assert.equal((await readTable(watcher)).viewer, 'spectator');

  // ---- Game 1: Alice is the Fugitive, Bob the Marshal.
  let [F, M] = [alice, bob];
  await waitForTurn(F, 'opening');
  let table = await readTable(F);
  const first = plan(table.hand, 0, { no42: true });
  await F.getByTestId(`hand-${first.hideout}`).click();
  await shot(F, '01-fugitive-opening-pick');
  await F.getByTestId(`hand-${first.hideout}`).click(); // put it back: place() picks again
  await place(F, first.hideout, first.sprints);
  table = await readTable(F);
  const second = plan(table.hand, last(table), { no42: true });
  await place(F, second.hideout, second.sprints);
  await checkSecrets(F, M, watcher);
  await shot(watcher, '02-spectator-after-opening');

  await marshalDraws(M);
  await M.getByTestId('mode-out').click();
  await M.getByTestId('number-41').click(); // a note on her board, kept across the reload below
  await M.getByTestId('mode-guess').click();
  await shot(M, '03-marshal-first-guess');
  await guess(M, [first.hideout]);
  assert.deepEqual((await lastLog(M)).slice(-2), ['guessed', 'revealed'], 'a right guess reveals (R12)');
  await checkSecrets(F, M, watcher);

  let turns = 0;
  for (;;) {
    turns += 1;
    assert.ok(turns <= 30, 'the Fugitive reaches 42 within 30 turns');
    await fugitiveDraws(F);
    table = await readTable(F);
    const move = plan(table.hand, last(table));
    if (move) await place(F, move.hideout, move.sprints);
    else await acting(F, () => F.getByTestId('pass').click());
    await checkSecrets(F, M, watcher);
    if (move?.hideout === 42) break;

    if (turns === 2) {
      // A reload on each side resumes the same table (and the Marshal's notes).
      for (const page of [F, M]) {
        const before = await readTable(page);
        await page.reload();
        await page.getByTestId('room').waitFor();
        await page.waitForFunction(
          (v) => Number(document.querySelector('[data-testid=room]').dataset.version) >= v,
          before.version,
        );
        const again = await readTable(page);
        assert.deepEqual({ ...again, status: null }, { ...before, status: null }, 'reload resumes the same state');
      }
      assert.match(await M.getByTestId('number-41').getAttribute('class'), /\bout\b/);
      await shot(F, '04-fugitive-mid-game');
    }
    await marshalDraws(M);
    await guess(M, [await wrongNumber(M)]);
    assert.equal((await lastLog(M)).at(-1), 'guessed');
  }

  // 42 with no revealed hideout above 29: the Manhunt (R15, R16).
  await waitForTurn(M, 'manhunt');
  await M.getByTestId('manhunt').waitFor();
  await shot(M, '05-marshal-manhunt');
  await shot(watcher, '06-spectator-manhunt');
  const hidden = hiddenOf(await readTable(F));
  if (hidden.length >= 2) {
    await guess(M, [hidden[0]]);
    assert.equal((await readTable(M)).phase, 'manhunt', 'a right Manhunt guess goes on');
  }
  await guess(M, [await wrongNumber(M)]);
  for (const page of [F, M, watcher]) {
    await waitForTurn(page, 'over');
    assert.equal((await readTable(page)).winner, 'fugitive');
    const trail = (await readTable(page)).trail;
    assert.ok(
      trail.every((p) => p.card !== null),
      'the whole trail is shown after the end (R18)',
    );
    for (const n of [1, 2, 3]) {
      const size = Number(await page.getByTestId(`deck-size-${n}`).getAttribute('data-size'));
      if (size > 0) await page.getByTestId(`deck-order-${n}`).waitFor(); // the deck order too (R18)
    }
  }
  assert.match(await F.getByTestId('status').textContent(), /You win/);
  assert.match(await M.getByTestId('status').textContent(), /You lose/);
  await shot(F, '07-fugitive-wins');
  await shot(M, '08-marshal-loses');
  await shot(watcher, '09-spectator-game-1-over');

  // ---- Rematch with roles swapped.
  await F.getByTestId('rematch').click();
  await M.getByTestId('rematch-offered').waitFor();
  await M.getByTestId('rematch').click();
  for (const page of [alice, bob, watcher]) {
    await page.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.game === '2');
  }
  [F, M] = [bob, alice];
  assert.equal((await readTable(F)).viewer, 'fugitive');
  assert.equal((await readTable(M)).viewer, 'marshal');

  // ---- Game 2: Bob is the Fugitive, Alice the Marshal.
  await waitForTurn(F, 'opening');
  table = await readTable(F);
  const h1 = plan(table.hand, 0, { no42: true });
  await place(F, h1.hideout, h1.sprints);
  await acting(F, () => F.getByTestId('end-turn').click());
  await checkSecrets(F, M, watcher);

  await marshalDraws(M);
  const wrong = await wrongNumber(M);
  await guess(M, [h1.hideout, wrong]);
  assert.equal((await readTable(M)).trail[1].faceUp, false, 'a wrong multi-guess reveals nothing (R12)');
  assert.match(await M.locator('[data-testid=log] > li').last().textContent(), /wrong/);
  await checkSecrets(F, M, watcher);

  await fugitiveDraws(F);
  table = await readTable(F);
  const move = plan(table.hand, last(table), { no42: true });
  assert.ok(move, 'the Fugitive can place a second hideout');
  if (move.sprints.length === 0) {
    // Overpaying is legal (R10): sprint with the lowest spare card anyway.
    move.sprints = [table.hand.filter((c) => c !== 42 && c !== move.hideout).sort((a, b) => a - b)[0]];
  }
  for (const card of [move.hideout, ...move.sprints]) await F.getByTestId(`hand-${card}`).click();
  await shot(F, '10-fugitive-sprint-pick');
  await acting(F, () => F.getByTestId('place').click());
  const h2 = move.hideout;
  await checkSecrets(F, M, watcher);
  assert.equal((await readTable(watcher)).trail[2].sprintCount, move.sprints.length);

  await marshalDraws(M);
  await guess(M, [h1.hideout]);
  assert.equal((await readTable(M)).trail[1].card, h1.hideout, 'the right guess is revealed to the Marshal');
  await checkSecrets(F, M, watcher);

  await fugitiveDraws(F);
  await acting(F, () => F.getByTestId('pass').click());
  assert.equal((await lastLog(F)).filter((t) => t === 'passed').length, 1);
  await checkSecrets(F, M, watcher);

  await marshalDraws(M);
  await shot(M, '11-marshal-before-last-guess');
  await guess(M, [h2]);
  for (const page of [F, M, watcher]) {
    await waitForTurn(page, 'over');
    assert.equal((await readTable(page)).winner, 'marshal');
  }
  assert.match(await M.getByTestId('status').textContent(), /You win/);
  await shot(M, '12-marshal-wins');
  await shot(F, '13-fugitive-loses');
  await shot(watcher, '14-spectator-game-2-over');

  for (const page of [alice, bob, watcher]) assert.deepEqual(page.errors, []);
});
