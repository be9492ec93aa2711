// A page served from an origin the server does not allow (`--allowed-origins`, issue 9): the
// browser cannot read why the WebSocket upgrade was refused, so the page asks `/api/origin` and
// says what to set, instead of "Reconnecting…" for ever.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer } from './harness.mjs';
import { originRefused } from '../net.js';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

test('a page from an origin the server refuses says to set --allowed-origins', async () => {
  const created = await fetch(`${server.url}/api/rooms`, { method: 'POST', body: '' }).then((r) => r.json());
  // The server allows only http://127.0.0.1:PORT; the same server as http://localhost:PORT is
  // another origin.
  const other = server.url.replace('127.0.0.1', 'localhost');
  const page = await newPlayer(browser);
  await page.goto(`${other}/room/${created.room}`);
  const banner = page.getByTestId('connection');
  await banner.filter({ hasText: '--allowed-origins' }).waitFor({ timeout: 15000 });
  const text = await banner.textContent();
  assert.match(text, /FUGITIVE_ALLOWED_ORIGINS/);
  assert.ok(text.includes(other), text);
  assert.doesNotMatch(text, /Reconnecting/);
  assert.deepEqual(page.errors, []);

  // The allowed origin plays as before.
  const allowed = await newPlayer(browser);
  await allowed.goto(`${server.url}/room/${created.room}`);
  await allowed.getByTestId('room').waitFor();
  assert.equal(await allowed.getByTestId('connection').count(), 0);
});

test('originRefused reads the server’s answer', async () => {
  const answer = (status, body) => async () => ({ status, json: async () => body });
  assert.equal(await originRefused('http://x', answer(403, { error: 'origin_not_allowed' })), true);
  assert.equal(await originRefused('http://x', answer(200, { allowed: true })), false);
  assert.equal(await originRefused('http://x', answer(403, { error: 'other' })), false);
  assert.equal(
    await originRefused('http://x', async () => {
      throw new TypeError('offline');
    }),
    false,
  );
  // And the real server, asked the same way as the page does.
  const ask = (origin) => originRefused(origin, (path) => fetch(server.url + path));
  assert.equal(await ask(server.url), false);
  assert.equal(await ask('http://evil.example'), true);
});
