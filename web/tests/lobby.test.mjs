// Issue 25: the lobby. Two players, each in a browser of their own, pair through a seek and
// through a quick-pairing button and land in one room with their seats; a third browser watches
// the lobby change live (pushed, not polled). The game from the seek is rated: played to its end
// by resignation, it shows the new ratings. Axe-clean in English, German and French.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, readTable, checkAxe, shot } from './harness.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

async function openLobby(page) {
  await page.goto(`${server.url}/lobby`);
  await page.locator('[data-testid=lobby][data-connected=true]').waitFor();
  await page.getByTestId('seek-post').and(page.locator(':enabled')).waitFor();
}

const roomOf = (page) => new URL(page.url()).pathname.split('/').pop();

test('a seek appears live everywhere; one click seats both; the game is rated', async () => {
  const watcher = await newPlayer(browser);
  const ada = await newPlayer(browser);
  const bob = await newPlayer(browser);
  await watcher.goto(`${server.url}/lobby`);
  await watcher.getByTestId('no-seeks').waitFor();
  await openLobby(ada);
  await openLobby(bob);

  await ada.getByTestId('seek-role').selectOption('fugitive');
  await ada.getByTestId('seek-clock').selectOption('300');
  await ada.getByTestId('seek-post').click();
  const row = watcher.locator('[data-seek]');
  await row.waitFor();
  const id = await row.getAttribute('data-seek');
  assert.match(await row.textContent(), /1500\?.*plays the Fugitive.*5 minutes per turn.*Rated/);
  await checkAxe(watcher, 'lobby with a seek');
  await shot(watcher, 'lobby');

  await bob.locator(`[data-seek="${id}"]`).getByTestId('seek-accept').click();
  await ada.getByTestId('room').waitFor();
  await bob.getByTestId('room').waitFor();
  assert.equal(roomOf(ada), roomOf(bob));
  await ada.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.viewer === 'fugitive');
  assert.equal((await readTable(bob)).viewer, 'marshal');
  await watcher.getByTestId('no-seeks').waitFor();

  await bob.getByTestId('resign').click();
  await bob.getByTestId('resign-yes').click();
  for (const page of [ada, bob]) await page.getByTestId('rating-change').waitFor();
  for (const page of [watcher, ada, bob]) assert.deepEqual(page.errors, []);
});

test('quick pairing puts two players of one pool in one room', async () => {
  const ada = await newPlayer(browser);
  const bob = await newPlayer(browser);
  await openLobby(ada);
  await openLobby(bob);
  await ada.getByTestId('pool-base_5min').click();
  await ada.getByTestId('pool-waiting').waitFor();
  await bob.getByTestId('pool-base_5min').click();
  await ada.getByTestId('room').waitFor();
  await bob.getByTestId('room').waitFor();
  assert.equal(roomOf(ada), roomOf(bob));
  const viewers = [(await readTable(ada)).viewer, (await readTable(bob)).viewer].sort();
  assert.deepEqual(viewers, ['fugitive', 'marshal']);
  for (const page of [ada, bob]) assert.deepEqual(page.errors, []);
});

for (const locale of ['de-DE', 'fr-FR']) {
  test(`the lobby is axe-clean in ${locale}`, async () => {
    const page = await newPlayer(browser, { locale });
    await openLobby(page);
    await page.getByTestId('seek-post').click();
    await page.locator('[data-seek]').first().waitFor();
    await checkAxe(page, `lobby ${locale}`);
    assert.deepEqual(page.errors, []);
  });
}
