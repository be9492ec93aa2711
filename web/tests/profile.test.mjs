// Issue 25: a profile without an account. The first visit makes it; its name can change; a
// transfer link (or its short code) moves it into a fresh browser once, with the games its seats
// hold; deleting it forgets it. Axe-clean in English, German and French.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, createRoom, checkAxe, shot } from './harness.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

const profileId = (page) => page.getByTestId('profile').getAttribute('data-profile');

async function visit(page) {
  await page.goto(server.url);
  await page.locator('[data-testid=profile][data-profile]').waitFor();
  return profileId(page);
}

test('a transfer link moves a profile and its games into a fresh browser, once', async () => {
  const ada = await newPlayer(browser);
  const id = await visit(ada);
  assert.match(id, /^[a-z0-9]{12}$/);
  await ada.getByTestId('profile-name').fill('Ada');
  await ada.getByTestId('profile-save').click();
  await ada.getByTestId('profile-notice').filter({ hasText: 'Saved.' }).waitFor();
  const cookies = await ada.context().cookies();
  const cookie = cookies.find((c) => c.name === 'fugitive_profile');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Lax');
  assert.equal(await ada.evaluate(() => document.cookie), '', 'the page cannot read the cookie');

  const { invite } = await createRoom(ada, server.url, 'fugitive');
  const room = new URL(invite).pathname.split('/').pop();
  await visit(ada);
  await ada.getByTestId(`my-game-${room}`).waitFor();
  await ada.getByText('Move to another device').click();
  await ada.getByTestId('profile-transfer-make').click();
  const link = await ada.getByTestId('profile-transfer-link').getAttribute('href');
  const code = await ada.getByTestId('profile-transfer-code').textContent();
  await checkAxe(ada, 'profile panel with a transfer');
  await shot(ada, 'profile-transfer');

  const phone = await newPlayer(browser, { viewport: { width: 390, height: 844 } });
  await phone.goto(link);
  await phone.getByTestId('profile-notice').filter({ hasText: 'on this device now' }).waitFor();
  assert.equal(await profileId(phone), id);
  assert.equal(await phone.getByTestId('profile-name').inputValue(), 'Ada');
  assert.equal(new URL(phone.url()).hash, '', 'the code leaves the address');
  // "My games" came with the profile: the seat opens the room as the Fugitive.
  await phone.getByTestId(`my-game-${room}`).locator('a').click();
  await phone.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.viewer === 'fugitive');

  // The link's short code was spent with it.
  const late = await newPlayer(browser);
  await visit(late);
  await late.getByText('Move to another device').click();
  await late.getByTestId('profile-code').fill(code);
  await late.getByTestId('profile-redeem').click();
  await late.getByRole('alert').filter({ hasText: 'already used or expired' }).waitFor();
  assert.notEqual(await profileId(late), id);
  for (const page of [ada, phone, late]) assert.deepEqual(page.errors, []);
});

test('a short code typed on another device moves the profile; deleting it forgets it', async () => {
  const ada = await newPlayer(browser);
  const id = await visit(ada);
  await ada.getByText('Move to another device').click();
  await ada.getByTestId('profile-transfer-make').click();
  const code = await ada.getByTestId('profile-transfer-code').textContent();
  assert.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);

  const tablet = await newPlayer(browser);
  await visit(tablet);
  await tablet.getByText('Move to another device').click();
  await tablet.getByTestId('profile-code').fill(code.toLowerCase());
  await tablet.getByTestId('profile-redeem').click();
  await tablet.waitForFunction((want) => document.querySelector('[data-testid=profile]')?.dataset.profile === want, id);

  await tablet.getByText('Delete your profile').click();
  tablet.once('dialog', (dialog) => dialog.accept());
  await tablet.getByTestId('profile-delete').click();
  await tablet.getByText('Your profile is deleted.').waitFor();
  assert.equal(
    (await tablet.context().cookies()).find((c) => c.name === 'fugitive_profile'),
    undefined,
  );
  const gone = await (await fetch(`${server.url}/api/profiles/${id}`)).json();
  assert.deepEqual([gone.deleted, gone.name], [true, null]);
  // The next visit makes a new profile.
  assert.notEqual(await visit(tablet), id);
  for (const page of [ada, tablet]) assert.deepEqual(page.errors, []);
});

for (const locale of ['de-DE', 'fr-FR']) {
  test(`the profile panel is axe-clean in ${locale}`, async () => {
    const page = await newPlayer(browser, { locale });
    await visit(page);
    await page.locator('.profile-move summary').click();
    await page.getByTestId('profile-transfer-make').click();
    await page.getByTestId('profile-transfer-code').waitFor();
    await checkAxe(page, `profile panel ${locale}`);
    assert.deepEqual(page.errors, []);
  });
}
