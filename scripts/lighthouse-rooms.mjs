// The pages scripts/lighthouse.sh audits, on the server at the URL given: the landing page, the
// table as the Fugitive and as the Marshal (each against the computer, opened by its seat link,
// as a player's own browser opens it), and the replay of a finished game (the Fugitive resigned,
// through the page as a player does), and the lobby. Prints one `name URL` line per page.

import { createRequire } from 'node:module';

const require = createRequire(new URL('../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const base = process.argv[2];

async function room(role) {
  const res = await fetch(`${base}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role, opponent: { bot: 'easy' } }),
  });
  if (res.status !== 201) throw new Error(`POST /api/rooms: ${res.status} ${await res.text()}`);
  return res.json();
}

const fugitive = await room('fugitive');
const marshal = await room('marshal');
const finished = await room('fugitive');

const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
const page = await browser.newPage();
await page.goto(base + finished.links.seat);
await page.getByTestId('resign').click();
await page.getByTestId('resign-yes').click();
await page.waitForFunction(async (url) => (await fetch(url)).ok, `/api/rooms/${finished.room}/games/1`);
await browser.close();

console.log(`landing ${base}/`);
console.log(`fugitive ${base}${fugitive.links.seat}`);
console.log(`marshal ${base}${marshal.links.seat}`);
console.log(`replay ${base}/room/${finished.room}/game/1`);
console.log(`lobby ${base}/lobby`);
