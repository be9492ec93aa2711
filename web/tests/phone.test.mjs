// A game on two phones: one column, touch targets of at least 44 px, no sideways scrolling.
// Along the way: the server restarts mid-game and both pages reconnect by themselves and resume;
// a closed tab shows the other side as away until it comes back; a used invitation makes a
// spectator; the language switch changes every string and is remembered.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  openTable,
  closeTable,
  newPlayer,
  watchErrors,
  createRoom,
  readTable,
  waitForTurn,
  acting,
  draw,
  place,
  guess,
  shot,
  chooseLanguage,
} from './harness.mjs';
import { plan } from './planner.mjs';

const PHONE = { width: 390, height: 844 };
let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

/// Sideways overflow and interactive elements smaller than 44 × 44 px.
function layoutProblems(page) {
  return page.evaluate(() => {
    const problems = [];
    if (document.documentElement.scrollWidth > window.innerWidth) {
      problems.push(`page is ${document.documentElement.scrollWidth}px wide in a ${window.innerWidth}px window`);
    }
    for (const el of document.querySelectorAll('button, a.button, select, .choice, input[type=text]')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; // not shown
      if (box.width < 44 || box.height < 44)
        problems.push(`${el.dataset.testid ?? el.textContent.trim()}: ${box.width}×${box.height}`);
    }
    return problems;
  });
}

test('a game on two phones, through a server restart and a closed tab', async () => {
  const alice = await newPlayer(browser, { viewport: PHONE });
  await alice.goto(server.url);
  assert.deepEqual(await layoutProblems(alice), [], 'landing page');
  await shot(alice, '19-phone-landing');
  const { invite, spectate } = await createRoom(alice, server.url, 'marshal');
  await alice.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await alice.getByTestId('copy-invite').click();
  await alice.getByTestId('copy-invite').filter({ hasText: 'Copied' }).waitFor();
  assert.equal(await alice.evaluate(() => navigator.clipboard.readText()), invite, 'the copy button copies the link');
  await alice.getByTestId('opponent-missing').waitFor();
  await shot(alice, '20-phone-waiting-for-opponent');
  assert.equal(
    await alice.getByTestId('link-invite').inputValue(),
    invite,
    'the table offers the invitation until it is used',
  );

  const bob = await newPlayer(browser, { viewport: PHONE });
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  const [F, M] = [bob, alice];
  assert.equal((await readTable(F)).viewer, 'fugitive');
  await M.getByTestId('opponent-missing').waitFor({ state: 'detached' });

  // The invitation works once: a second visitor watches instead.
  const late = await newPlayer(browser, { viewport: PHONE });
  await late.goto(invite);
  await late.getByTestId('room').waitFor();
  await late.getByTestId('notice').waitFor();
  assert.equal((await readTable(late)).viewer, 'spectator');
  await late.context().close();

  await waitForTurn(F, 'opening');
  let table = await readTable(F);
  const first = plan(table.hand, 0, { no42: true });
  await F.getByTestId(`hand-${first.hideout}`).click();
  assert.deepEqual(await layoutProblems(F), [], 'Fugitive table');
  await shot(F, '21-phone-fugitive-opening');
  await F.getByTestId(`hand-${first.hideout}`).click();
  await place(F, first.hideout, first.sprints);
  await acting(F, () => F.getByTestId('end-turn').click());

  // The server goes away and comes back: both pages reconnect and resume the same table. The
  // Marshal's page is read once it shows her turn: `acting` waited for the Fugitive's page only.
  await waitForTurn(M, 'draw');
  const snapshot = await readTable(M);
  await server.restart();
  for (const page of [F, M]) {
    await page.waitForFunction(
      () => document.querySelector('[data-testid=connection]') === null && document.querySelector('[data-testid=room]'),
      null,
      { timeout: 30000 },
    );
  }
  await M.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.phase === 'draw');
  assert.deepEqual({ ...(await readTable(M)), status: null }, { ...snapshot, status: null });

  // A closed tab: the other side is shown as away, then back.
  await F.close();
  await M.getByTestId('opponent-away').waitFor();
  await shot(M, '22-phone-marshal-opponent-away');
  const F2 = watchErrors(await bob.context().newPage());
  await F2.goto(new URL(invite).origin + new URL(invite).pathname);
  await F2.getByTestId('room').waitFor();
  assert.equal((await readTable(F2)).viewer, 'fugitive', 'the seat is remembered by the browser');
  await M.getByTestId('opponent-away').waitFor({ state: 'detached' });

  await waitForTurn(M, 'draw');
  await draw(M, 1);
  await draw(M, 2);
  await waitForTurn(M, 'guess');
  assert.deepEqual(await layoutProblems(M), [], 'Marshal table');
  await shot(M, '23-phone-marshal-guess');

  // The language switch: German, remembered across a reload, then French.
  await chooseLanguage(M, 'de');
  assert.match(await M.getByTestId('status').textContent(), /Nenne eine oder mehrere Zahlen/);
  await M.reload();
  await M.getByTestId('room').waitFor();
  assert.match(await M.getByTestId('status').textContent(), /Nenne eine oder mehrere Zahlen/);
  assert.equal(await M.evaluate(() => document.documentElement.lang), 'de');
  await chooseLanguage(M, 'fr');
  assert.match(await M.getByTestId('status').textContent(), /Annonce un ou plusieurs nombres/);
  await chooseLanguage(M, 'en');

  await guess(M, [first.hideout]);
  for (const page of [F2, M]) await waitForTurn(page, 'over');
  assert.equal((await readTable(M)).winner, 'marshal');
  assert.deepEqual(await layoutProblems(M), [], 'game over');
  await shot(M, '24-phone-marshal-wins');
  await shot(F2, '25-phone-fugitive-loses');

  const watcher = await newPlayer(browser, { viewport: PHONE });
  await watcher.goto(spectate);
  await watcher.getByTestId('game-over').waitFor();
  assert.equal((await readTable(watcher)).winner, 'marshal');
  for (const page of [alice, F2, watcher]) assert.deepEqual(page.errors, []);
});
