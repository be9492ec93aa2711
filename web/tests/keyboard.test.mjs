// A whole (short) game by keyboard alone: Tab to a control, Space or Enter to use it. The
// other side's moves and the turn are announced in the page's live region for screen readers.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, createRoom, readTable, waitForTurn, shot } from './harness.mjs';
import { plan } from './planner.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

/// Presses Tab until the element with `testid` has the focus.
async function tabTo(page, testid) {
  for (let i = 0; i < 200; i += 1) {
    if ((await page.evaluate(() => document.activeElement?.dataset?.testid)) === testid) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${testid}`);
}

/// Tabs to `testid`, presses `key`, and waits for the newer state it brings.
async function press(page, testid, key = 'Enter') {
  await tabTo(page, testid);
  const before = Number(await page.getByTestId('room').getAttribute('data-version'));
  await page.keyboard.press(key);
  await page.waitForFunction((v) => Number(document.querySelector('[data-testid=room]').dataset.version) > v, before);
}

const live = (page) => page.getByTestId('live').textContent();

test('a game played by keyboard alone, announced to screen readers', async () => {
  const fugitive = await newPlayer(browser);
  const { invite } = await createRoom(fugitive, server.url, 'fugitive');
  const marshal = await newPlayer(browser);
  await marshal.goto(invite);
  await marshal.getByTestId('room').waitFor();

  await waitForTurn(fugitive, 'opening');
  const { hand } = await readTable(fugitive);
  const first = plan(hand, 0, { no42: true });
  assert.deepEqual(first.sprints, []);
  await tabTo(fugitive, `hand-${first.hideout}`);
  await fugitive.keyboard.press('Space');
  assert.equal(await fugitive.getByTestId(`hand-${first.hideout}`).getAttribute('aria-pressed'), 'true');
  assert.match(await fugitive.getByTestId('verdict').textContent(), /legal/);
  await press(fugitive, 'place');
  await press(fugitive, 'end-turn');

  await waitForTurn(marshal, 'draw');
  await marshal.waitForFunction(() =>
    /Your turn: draw 2 cards/.test(document.querySelector('[data-testid=live]').textContent),
  );
  assert.match(await live(marshal), /The Fugitive ended his first turn/);
  await press(marshal, 'deck-1');
  // The focus stays on the deck across the re-render, so a second Enter draws again.
  await press(marshal, 'deck-1');
  await waitForTurn(marshal, 'guess');
  await tabTo(marshal, `number-${first.hideout}`);
  await marshal.keyboard.press('Space');
  await shot(marshal, '30-keyboard-marshal-focus');
  await press(marshal, 'guess');

  await waitForTurn(marshal, 'over');
  assert.equal((await readTable(marshal)).winner, 'marshal');
  // The end is read out as the player's own result (issue 23, item 5).
  await fugitive.waitForFunction(() => /You lose\./.test(document.querySelector('[data-testid=live]').textContent));
  assert.match(await live(fugitive), new RegExp(`Hideout ${first.hideout} at position 1 is revealed`));
  for (const page of [fugitive, marshal]) assert.deepEqual(page.errors, []);
});
