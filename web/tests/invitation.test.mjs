// Issue 9, defect 3: a browser that holds a seat in a room and opens that room's invitation (a
// second tab of the player who created it) does not silently claim the other seat. It asks: copy
// the invitation for the opponent, or take the other seat in this tab. Either way the seat the
// browser already had stays: reloading the first tab still shows the player's own role.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, watchErrors, createRoom, readTable, shot } from './harness.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

const roomOf = (invite) => new URL(invite).pathname.split('/').pop();
const seats = async (invite) => (await (await fetch(`${server.url}/api/rooms/${roomOf(invite)}`)).json()).seats;

async function viewerAfterReload(page) {
  await page.reload();
  await page.getByTestId('room').waitFor();
  return (await readTable(page)).viewer;
}

test('opening your own invitation asks, and copying it keeps the seat for the opponent', async () => {
  const alice = await newPlayer(browser);
  const { invite } = await createRoom(alice, server.url, 'fugitive');
  await alice.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const second = watchErrors(await alice.context().newPage());
  await second.goto(invite);
  await second.getByTestId('own-invite').waitFor();
  await shot(second, 'invitation-own-link');
  assert.equal((await readTable(second)).viewer, 'fugitive', 'the second tab shows her own seat');
  assert.equal((await seats(invite)).marshal, false, 'the invitation was not claimed');
  assert.equal(await viewerAfterReload(alice), 'fugitive', 'the first tab keeps the Fugitive');

  await second.getByTestId('own-invite-copy').click();
  await second.getByTestId('own-invite').waitFor({ state: 'detached' });
  assert.equal(await second.evaluate(() => navigator.clipboard.readText()), invite);

  // The real opponent still gets the seat.
  const bob = await newPlayer(browser);
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  assert.equal((await readTable(bob)).viewer, 'marshal');
  assert.equal(await bob.getByTestId('notice').count(), 0);
  assert.equal(await viewerAfterReload(alice), 'fugitive');
  assert.equal(await viewerAfterReload(second), 'fugitive');
  for (const page of [alice, second, bob]) assert.deepEqual(page.errors, []);
});

test('taking the other seat here plays it in this tab only', async () => {
  const alice = await newPlayer(browser);
  const { invite } = await createRoom(alice, server.url, 'fugitive');
  const second = watchErrors(await alice.context().newPage());
  await second.goto(invite);
  await second.getByTestId('own-invite-take').click();
  await second.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.viewer === 'marshal');
  assert.equal((await seats(invite)).marshal, true);
  assert.equal(await viewerAfterReload(alice), 'fugitive', 'the first tab keeps the Fugitive');
  assert.equal(await viewerAfterReload(second), 'marshal', 'the second tab keeps the Marshal');
  // Opening the (now used) invitation again in a third tab asks nothing: the browser's seat.
  const third = watchErrors(await alice.context().newPage());
  await third.goto(invite);
  await third.getByTestId('room').waitFor();
  assert.equal(await third.getByTestId('own-invite').count(), 0);
  assert.equal((await readTable(third)).viewer, 'fugitive');
  for (const page of [alice, second, third]) assert.deepEqual(page.errors, []);
});
