// Issue 25: two players, each with the profile of their own browser, play a rated game (a clock,
// no computer) to its end by resignation; the game-over panel shows both new ratings with their
// change, and each finds the game, its rating and its chart on their profile page; the
// leaderboard page explains who is on it. Axe-clean.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, createRoom, checkAxe, shot } from './harness.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

async function visit(page) {
  await page.goto(server.url);
  await page.locator('[data-testid=profile][data-profile]').waitFor();
  return page.getByTestId('profile').getAttribute('data-profile');
}

test('a rated game shows its rating change and lands on both profile pages', async () => {
  const ada = await newPlayer(browser);
  const bob = await newPlayer(browser);
  const adaId = await visit(ada);
  const bobId = await visit(bob);
  const { invite } = await createRoom(ada, server.url, 'fugitive', { clock: '300' });
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  await bob.getByTestId('resign').click();
  await bob.getByTestId('resign-yes').click();

  for (const page of [ada, bob]) {
    await page.getByTestId('rating-change').waitFor();
    assert.match(await page.getByTestId('rating-change-fugitive').textContent(), /^Fugitive 1[0-9]{3} \(\+[0-9]+\)$/);
    assert.match(await page.getByTestId('rating-change-marshal').textContent(), /^Marshal 1[0-9]{3} \(−[0-9]+\)$/);
  }
  await checkAxe(ada, 'game over with a rating change');
  await shot(ada, 'rating-change');

  await ada.getByTestId('new-game').click();
  await ada.getByTestId('profile-page-link').click();
  await ada.getByTestId('profile-page').waitFor();
  assert.equal(await ada.getByTestId('profile-page').getAttribute('data-profile'), adaId);
  assert.match(await ada.getByTestId('rating-fugitive-number').textContent(), /^1[5-9][0-9]{2}\?$/);
  assert.equal(await ada.getByTestId('rating-marshal-number').textContent(), '—');
  await ada.getByTestId('rating-chart').locator('polyline[data-role=fugitive]').waitFor();
  const rows = ada.locator('[data-testid^=rated-game-]').filter({ has: ada.getByTestId('rated-game-replay') });
  assert.equal(await rows.count(), 1);
  await checkAxe(ada, 'profile page');
  await shot(ada, 'profile-page');

  await bob.goto(`${server.url}/@/${bobId}`);
  await bob.getByTestId('rating-chart').locator('polyline[data-role=marshal]').waitFor();
  assert.match(await bob.getByTestId('rating-marshal-number').textContent(), /^1[0-4][0-9]{2}\?$/);
  await bob.getByTestId('rated-game-replay').click();
  await bob.waitForURL(/\/room\/[0-9a-f-]+\/game\/1$/);

  await ada.goto(`${server.url}/leaderboard`);
  await ada.getByTestId('leaderboard-marshal').getByText('Nobody has played 10 rated games').waitFor();
  await checkAxe(ada, 'leaderboard');
  for (const page of [ada, bob]) assert.deepEqual(page.errors, []);
});

for (const locale of ['de-DE', 'fr-FR']) {
  test(`a profile page is axe-clean in ${locale}`, async () => {
    const page = await newPlayer(browser, { locale });
    const id = await visit(page);
    await page.goto(`${server.url}/@/${id}`);
    await page.getByTestId('profile-page').waitFor();
    await checkAxe(page, `profile page ${locale}`);
    assert.deepEqual(page.errors, []);
  });
}
