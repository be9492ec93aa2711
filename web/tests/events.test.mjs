// A game with Random Events (../shared/EVENTS.md) played to the end through the web client,
// with a spectator: the room is created with the option from the landing page (each variant
// explained in a sentence), event cards show with icon, name and text, trail events lie under
// their space, every pending decision is answered from its prompt, and no face-down hideout
// shows to the Marshal or the spectator (R20, R21, E5).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, readTable, acting, shot, openOptions, guess, checkAxe } from './harness.mjs';
import { plan, deckFor } from './planner.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

const VARIANTS = ['off', 'random', 'discovery', 'helpful:fugitive', 'helpful:marshal', 'catchup'];

const deckSizes = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [1, 2, 3].map((d) => [d, Number(document.querySelector(`[data-testid=deck-size-${d}]`).dataset.size)]),
    ),
  );

/// Waits until one of the pages is to move (or the game is over); returns it, or null at the end.
async function mover(pages) {
  for (let i = 0; i < 300; i += 1) {
    for (const page of pages) {
      const state = await page.evaluate(() => {
        const room = document.querySelector('[data-testid=room]');
        if (!room || room.dataset.busy === 'true') return null;
        if (room.dataset.phase === 'over') return 'over';
        return room.classList.contains('my-turn') ? 'mine' : null;
      });
      if (state === 'over') return null;
      if (state === 'mine') return page;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nobody is to move');
}

/// The face-down hideouts (as the Fugitive sees them) must not show on `page`.
async function assertNoLeak(fugitive, page) {
  const hidden = (await readTable(fugitive)).trail.filter((p) => !p.faceUp).map((p) => p.card);
  const leaks = await page.evaluate((hidden) => {
    const found = [];
    for (const el of document.querySelectorAll('[data-card]')) {
      if (hidden.includes(Number(el.dataset.card))) found.push(el.outerHTML);
    }
    return found;
  }, hidden);
  assert.deepEqual(leaks, [], 'a face-down hideout shows (R20, R21)');
}

/// The Fugitive places the planner's move if the page calls it legal (an event may forbid
/// sprint cards, M1), else passes.
async function fugitivePlaceOrPass(page, table) {
  const last = table.trail.at(-1).card;
  const move = plan(table.hand, last, { no42: table.phase === 'opening' });
  // No hideout may be placed at all (e.g. M1 Roadblock under a space out of reach): no panel.
  const placing = (await page.getByTestId('place').count()) > 0;
  if (move && placing) {
    for (const card of [move.hideout, ...move.sprints]) await page.getByTestId(`hand-${card}`).click();
    const ok = (await page.getByTestId('verdict').getAttribute('class')).includes('ok');
    if (ok) return acting(page, () => page.getByTestId('place').click());
    await page.getByTestId('clear').click();
  }
  if (table.phase === 'opening') throw new Error('no legal opening for the planner');
  return acting(page, () => page.getByTestId('pass').click());
}

test('a Random Events game is played to the end through the web client', async () => {
  const alice = await newPlayer(browser);
  await alice.goto(server.url);
  await openOptions(alice);
  for (const variant of VARIANTS) {
    const help = await alice.getByTestId(`events-${variant}`).locator('xpath=..').textContent();
    assert.ok(help.length > 30, `the ${variant} option is explained in a sentence: ${help}`);
  }
  await alice.getByTestId('role-fugitive').check();
  await alice.getByTestId('events-random').check();
  await shot(alice, 'events-01-landing');
  await alice.getByTestId('invite-friend').click();
  const invite = await alice.getByTestId('link-invite').inputValue();
  const spectate = await alice.getByTestId('link-spectate').inputValue();
  await alice.getByTestId('go-to-table').click();
  await alice.getByTestId('room').waitFor();
  const bob = await newPlayer(browser);
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  const watcher = await newPlayer(browser);
  await watcher.goto(spectate);
  await watcher.getByTestId('spectating').waitFor();
  await alice.getByTestId('events-panel').waitFor();

  const [F, M] = [alice, bob];
  const seen = { pending: 0, events: 0, trailEvents: 0 };
  for (let step = 0; ; step += 1) {
    assert.ok(step < 400, 'the game ends within 400 moves');
    const page = await mover([F, M]);
    if (!page) break;
    const table = await readTable(page);
    if (table.phase === 'pending') {
      // E3: every view shows the prompt and the card; only the chooser has the answers.
      seen.pending += 1;
      for (const other of [F, M, watcher]) await other.getByTestId('pending-card').waitFor();
      if (seen.pending === 1) {
        await shot(page, 'events-02-pending-chooser');
        // The event decision passes axe-core, on a desktop and on a phone.
        await checkAxe(page, 'event decision');
        await page.setViewportSize({ width: 390, height: 844 });
        await shot(page, 'events-02b-pending-phone');
        await checkAxe(page, 'event decision on a phone');
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      await acting(page, () => page.getByTestId('choice-0').click());
      continue;
    }
    if (table.phase === 'draw') {
      const sizes = await deckSizes(page);
      const last = table.trail.at(-1).card;
      const deck = page === F ? deckFor(last ?? 0, sizes) : [1, 2, 3].find((d) => sizes[d] > 0);
      await acting(page, () => page.getByTestId(`deck-${deck}`).click());
      continue;
    }
    if (page === F && (table.phase === 'opening' || table.phase === 'place_or_pass')) {
      if (table.phase === 'opening' && table.trail.length === 2) {
        await acting(page, () => page.getByTestId('end-turn').click());
      } else {
        await fugitivePlaceOrPass(page, table);
      }
      await assertNoLeak(F, M);
      await assertNoLeak(F, watcher);
      continue;
    }
    // The Marshal guesses a card she holds (always wrong, R12), or 41, or anything left.
    const free = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid^=number-]:not([disabled])')].map((b) =>
        Number(b.dataset.testid.slice(7)),
      ),
    );
    let number = table.hand.find((c) => free.includes(c)) ?? (free.includes(41) ? 41 : free[0]);
    if (step > 150) {
      // The Fugitive is stuck (say, events took his reach): she ends it, naming a face-down
      // hideout that the Fugitive's page shows.
      const hidden = (await readTable(F)).trail.filter((p) => !p.faceUp).map((p) => p.card);
      number = hidden.find((c) => free.includes(c)) ?? number;
    }
    await guess(page, [number]);
  }

  for (const page of [F, M, watcher]) {
    await page.getByTestId('game-over').waitFor();
    const types = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid=log] > li')].map((li) => li.dataset.type),
    );
    seen.events = Math.max(seen.events, types.filter((t) => t === 'event_drawn').length);
  }
  // Each trail event lies under its space (E4), as many as the history laid.
  seen.trailEvents = await watcher.locator('[data-testid=trail] .trail-event').count();
  const laid = await watcher.locator('[data-testid=log] > li[data-type=trail_event_laid]').count();
  assert.equal(seen.trailEvents, laid, 'every trail event is shown under its space');
  assert.ok(seen.events > 0, 'an event card was drawn in the game');
  // The latest event is shown as a card with its icon, name and text.
  const card = watcher.getByTestId('latest-event');
  await card.waitFor();
  assert.match(await card.locator('.event-icon').getAttribute('data-icon'), /^(footprints|binoculars|none)$/);
  assert.ok((await card.locator('.event-name').textContent()).length > 0);
  assert.ok((await card.locator('.event-text').textContent()).length > 20);
  // In the reader's language: German on the same table.
  const id = await card.getAttribute('data-event');
  const english = await card.locator('.event-name').textContent();
  await watcher.evaluate(() => localStorage.setItem('fugitive:lang', 'de'));
  await watcher.reload();
  await watcher.getByTestId('latest-event').waitFor();
  assert.equal(await watcher.getByTestId('latest-event').getAttribute('data-event'), id);
  const german = await watcher.getByTestId('latest-event').locator('.event-text').textContent();
  assert.ok(german.length > 20);
  const { strings } = await import('../i18n.js');
  assert.equal(english, (await strings('en'))[`eventCard.${id}.name`]);
  assert.equal(german, (await strings('de'))[`eventCard.${id}.text`]);
  await shot(watcher, 'events-03-spectator-over');
  console.log(`events test: ${JSON.stringify(seen)}`);
  for (const page of [F, M, watcher]) assert.deepEqual(page.errors, []);
});
