// Issue 12, the table a first-time player understands at a glance. Against the computer (it moves
// after 30 ms) and with rooms made through the API where a test needs a short clock:
// - the landing page starts a game in one click, the options folded under "Options";
// - the invitation and spectator links are labelled and styled apart, shown whole, with the
//   share sheet where the browser has one;
// - the other side's last move is highlighted and cards arrive animated (not under
//   prefers-reduced-motion); the optional sound is off by default and remembered;
// - cards look like cards: footprints, piles, backs, 42, numbered positions;
// - the Marshal's notebook per position, impossible numbers, the warning before a guess that
//   cannot be right, and a wrong guess of several numbers not marked as if each was wrong;
// - the next action above the fold at 1280×800 and 390×844;
// - the clock large and urgent in its last 10 s, the loser by time in words, the rematch's
//   "You now play…", the game-over line with every card in place and its two buttons;
// - How to play, illustrated, from every screen; the log keeps its place while read back;
// - axe-core finds no serious or critical violation on any screen, on a desktop and a phone.
// Screenshots go to web/test-results/screenshots/table-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  openTable,
  closeTable,
  newPlayer,
  readTable,
  acting,
  draw,
  place,
  guess,
  shot,
  checkAxe,
  openOptions,
  createRoom,
  nextMove as myMove,
  chooseLanguage,
} from './harness.mjs';
import { plan, deckFor } from './planner.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
let server;
let browser;

before(async () => {
  process.env.FUGITIVE_BOT_PAUSE = '30ms';
  ({ server, browser } = await openTable());
});
after(() => closeTable({ server, browser }));

/// Makes a room through the API and opens its seat link; returns the page and the room's links.
async function roomVia(body, { viewport = DESKTOP, reducedMotion = 'no-preference' } = {}) {
  const res = await fetch(`${server.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 201);
  const room = await res.json();
  const context = await browser.newContext({ viewport, reducedMotion, hasTouch: viewport.width < 600 });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${server.url}${room.links.seat}`);
  await page.getByTestId('room').waitFor();
  return { page, room };
}

/// The element's box lies inside the window without scrolling.
const aboveFold = (page, testid) =>
  page.evaluate((testid) => {
    const el = document.querySelector(`[data-testid="${testid}"]`);
    if (!el) return `${testid} is not shown`;
    window.scrollTo(0, 0);
    const box = el.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0
      ? true
      : `${testid} at ${Math.round(box.top)}–${Math.round(box.bottom)} in a ${window.innerHeight} px window`;
  }, testid);

const openHowto = async (page, name) => {
  await page.getByTestId('howto-open').click();
  await page.getByTestId('howto-sprint').waitFor();
  for (const figure of ['sprint', 'guess', 'manhunt', 'events', 'pass']) {
    assert.equal(await page.getByTestId(`howto-${figure}`).count(), 1, `How to play shows ${figure}`);
  }
  await checkAxe(page, `how to play over ${name}`);
  await shot(page, `table-howto-${name}`);
  await page.getByTestId('howto-close').click();
};

test('the landing page: one click to a game, the options folded, the links told apart', async () => {
  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ]) {
    const page = await newPlayer(browser, { viewport });
    await page.addInitScript(() => {
      window.shared = [];
      navigator.share = (data) => {
        window.shared.push(data);
        return Promise.resolve();
      };
    });
    await page.goto(server.url);
    assert.equal(await page.getByTestId('options').getAttribute('open'), null, 'the options are folded');
    assert.match(await page.getByTestId('options-toggle').textContent(), /random/, 'the defaults are told');
    for (const start of ['play-computer', 'invite-friend']) assert.equal(await aboveFold(page, start), true);
    await checkAxe(page, `landing (${name})`);
    await shot(page, `table-landing-${name}`);
    await openOptions(page);
    await checkAxe(page, `landing options (${name})`);
    await shot(page, `table-landing-options-${name}`);
    if (name === 'desktop') await openHowto(page, 'landing');

    await page.getByTestId('invite-friend').click();
    const invite = page.getByTestId('link-card-invite');
    const spectate = page.getByTestId('link-card-spectate');
    await invite.waitFor();
    assert.match(await invite.textContent(), /for your opponent/);
    assert.match(await spectate.textContent(), /for anyone watching/);
    const look = (el) => el.evaluate((e) => `${getComputedStyle(e).borderStyle} ${getComputedStyle(e).borderColor}`);
    assert.notEqual(await look(invite), await look(spectate), 'the two links look different');
    const link = page.getByTestId('link-invite');
    assert.match(await link.inputValue(), /#invite=/);
    assert.ok(
      await link.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight + 1),
      'the whole invitation shows, #invite= included',
    );
    await page.getByTestId('share-invite').click();
    const shared = await page.evaluate(() => window.shared);
    assert.equal(shared.length, 1);
    assert.equal(shared[0].url, await link.inputValue(), 'the share sheet gets the invitation');
    await checkAxe(page, `links (${name})`);
    await shot(page, `table-links-${name}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the Marshal against the computer: last move, notebook, warnings, the fold, the log, sound', async () => {
  const { page } = await roomVia({ role: 'marshal', opponent: { bot: 'easy' }, notepad_assist: true });
  // Sound: off by default; the toggle is remembered.
  const sound = page.getByTestId('sound');
  assert.equal(await sound.getAttribute('aria-pressed'), 'false');
  await sound.click();
  assert.equal(await sound.getAttribute('aria-pressed'), 'true');
  await page.reload();
  await page.getByTestId('room').waitFor();
  assert.equal(await page.getByTestId('sound').getAttribute('aria-pressed'), 'true', 'the sound choice is remembered');

  let table = await myMove(page);
  assert.equal(table.phase, 'draw');
  // What just happened: the computer's hideouts are highlighted and told in words.
  assert.ok((await page.locator('[data-testid=trail] li[data-recent=true]').count()) >= 1);
  assert.match(await page.getByTestId('last-move').textContent(), /placed a hideout/);
  // Cards look like cards: numbered positions, backs for face-down hideouts, piles by height.
  assert.equal(await page.locator('[data-testid=trail-1] .pos').textContent(), '1');
  assert.equal(await page.locator('[data-testid=trail-1] .card.back').count(), 1);
  const levels = await page.locator('.pile').evaluateAll((els) => els.map((e) => Number(e.dataset.level)));
  assert.ok(levels.every((l) => l >= 1) && new Set(levels).size >= 1);
  assert.equal(await aboveFold(page, 'deck-1'), true, 'the decks to draw from are above the fold');
  await checkAxe(page, 'Marshal drawing');
  await draw(page, 1);
  table = await myMove(page);
  if (table.phase === 'draw') {
    await draw(page, 2);
    table = await myMove(page);
  }
  assert.equal(table.phase, 'guess');
  // The first state after a draw animated the new card? Her own draws add none to the trail; the
  // computer's hideouts stay highlighted until its next move.
  assert.ok((await page.locator('[data-testid=trail] li[data-recent=true]').count()) >= 1);

  // The fold: the Guess button and the board are in sight at 1280×800.
  await page.getByTestId(`number-${table.hand[0]}`).click();
  assert.equal(await aboveFold(page, 'guess'), true);
  await page.getByTestId(`number-${table.hand[0]}`).click();

  // Numbers the notepad rules out look ruled out, never like live candidates.
  const impossible = await page.locator('[data-testid=board] .number.impossible').count();
  assert.ok(impossible > 0, 'some numbers are impossible');
  assert.equal(await page.locator('[data-testid=board] .number.impossible[data-share]').count(), 0);

  // The notebook: tap a face-down hideout, see what it can be, with shares that add up to 100 %.
  await page.getByTestId('inspect-1').click();
  await page.getByTestId('notebook').waitFor();
  const shares = await page
    .locator('[data-testid=candidates] [data-position-share]')
    .evaluateAll((els) => els.map((e) => Number(e.dataset.positionShare)));
  assert.ok(shares.length > 0);
  assert.ok(Math.abs(shares.reduce((a, b) => a + b, 0) - 1) < 1e-6, `position 1 shares sum to 1: ${shares}`);
  assert.equal(await page.getByTestId(`candidate-${table.hand[0]}`).count(), 0, 'a card in her hand is no candidate');
  await checkAxe(page, 'Marshal notebook');
  await shot(page, 'table-marshal-notebook');
  // A tap on a candidate adds it to the guess.
  const firstCandidate = await page.locator('[data-testid=candidates] button').first().getAttribute('data-number');
  // With the position open, the board shows that position's shares too.
  assert.equal(
    await page.locator(`[data-testid=number-${firstCandidate}] .odds`).textContent(),
    await page.locator(`[data-testid=candidate-${firstCandidate}] .cand-share`).textContent(),
  );
  assert.match(await page.getByTestId('odds-note').textContent(), /position 1/);
  await page.getByTestId(`candidate-${firstCandidate}`).click();
  assert.equal(await page.getByTestId(`number-${firstCandidate}`).getAttribute('aria-pressed'), 'true');
  await page.getByTestId('notebook-close').click();

  // A warning before a guess that cannot be right: a number in her hand.
  const held = table.hand[0];
  await page.getByTestId(`number-${held}`).click();
  await page.getByTestId('guess').click();
  await page.getByTestId('guess-warning').waitFor();
  assert.match(await page.getByTestId('guess-warning').textContent(), new RegExp(`${held} is in your hand`));
  await checkAxe(page, 'guess warning');
  await shot(page, 'table-marshal-warning');
  await acting(page, () => page.getByTestId('guess-anyway').click());
  // After a wrong guess of two numbers, the candidate is not marked wrong.
  const cls = await page.getByTestId(`number-${firstCandidate}`).getAttribute('class');
  assert.doesNotMatch(cls, /\bwrong\b/, `${firstCandidate} is not marked as if it was wrong: ${cls}`);
  assert.match(cls, /\bdoubtful\b|\bimpossible\b|\bcandidate\b/);

  // A few more rounds (always-wrong guesses of a held number) fill the log.
  for (let round = 0; round < 6; round += 1) {
    table = await myMove(page);
    if (table.phase === 'over') break;
    if (table.phase === 'draw') {
      const sizes = await page.evaluate(() =>
        [1, 2, 3].map((d) => Number(document.querySelector(`[data-testid=deck-size-${d}]`).dataset.size)),
      );
      await draw(
        page,
        [1, 2, 3].find((d) => sizes[d - 1] > 0),
      );
      continue;
    }
    await guess(page, [table.hand.at(-1)]);
  }
  await checkAxe(page, 'Marshal');
  await shot(page, 'table-marshal');
  assert.equal(await page.locator('body[data-sound]').count(), 1, 'a sound was played (her turn)');
  // The log keeps its place while she reads back, and follows when she is at its end. (A shorter
  // log box makes it scroll whatever the number of entries; language switches re-render it.)
  await page.evaluate(() => document.styleSheets[0].insertRule('.log { max-height: 60px !important; }'));
  const log = page.getByTestId('log');
  assert.ok(await log.evaluate((el) => el.scrollHeight > el.clientHeight), 'the log scrolls');
  await log.evaluate((el) => {
    el.scrollTop = 0;
  });
  await chooseLanguage(page, 'de');
  await chooseLanguage(page, 'en');
  assert.equal(await log.evaluate((el) => el.scrollTop), 0, 'the log did not jump to the bottom');
  table = await myMove(page);
  if (table.phase !== 'over') {
    await (table.phase === 'draw'
      ? draw(
          page,
          [1, 2, 3].find((d) => d),
        )
      : guess(page, [table.hand.at(-1)]));
    assert.equal(await log.evaluate((el) => el.scrollTop), 0, 'a new entry does not pull the log down either');
  }
  await log.evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await chooseLanguage(page, 'de');
  assert.ok(
    await log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 8),
    'at its end, the log follows',
  );
  await chooseLanguage(page, 'en');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the Fugitive on a phone: the fold, footprints, 42, animation, reduced motion', async () => {
  for (const reducedMotion of ['no-preference', 'reduce']) {
    const { page } = await roomVia({ role: 'fugitive', opponent: { bot: 'easy' } }, { viewport: PHONE, reducedMotion });
    let table = await myMove(page);
    assert.equal(table.phase, 'opening');
    // Footprints: one for an odd card, two for an even one; 42 is the escape card.
    const values = await page
      .locator('[data-testid=hand] .card[data-card]')
      .evaluateAll((els) => els.map((e) => [Number(e.dataset.card), e.querySelectorAll('.foot').length]));
    for (const [card, feet] of values) {
      if (card !== 42) assert.equal(feet, card % 2 === 0 ? 2 : 1, `card ${card}`);
    }
    assert.match(await page.locator('[data-testid=hand] .card[data-card="42"]').getAttribute('class'), /\bescape\b/);
    const move = plan(table.hand, 0, { no42: true });
    await page.getByTestId(`hand-${move.hideout}`).click();
    assert.equal(await aboveFold(page, 'place'), true, 'Place is above the fold on a phone');
    await page.getByTestId(`hand-${move.hideout}`).click();
    if (reducedMotion === 'no-preference') {
      await checkAxe(page, 'Fugitive on a phone');
      await shot(page, 'table-fugitive-phone');
    }
    // His hideout arrives with a short deal animation, none under prefers-reduced-motion.
    for (const card of [move.hideout, ...move.sprints]) await page.getByTestId(`hand-${card}`).click();
    await page.getByTestId('place').click();
    const animation = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const look = () => {
            const card = document.querySelector('[data-testid=trail] li.arrive .card');
            if (card) resolve(getComputedStyle(card).animationName);
            else requestAnimationFrame(look);
          };
          look();
        }),
    );
    assert.equal(animation, reducedMotion === 'reduce' ? 'none' : 'deal', `animation under ${reducedMotion}`);
    await page.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.busy === 'false');
    if (table.phase === 'opening') {
      const ended = await page.getByTestId('end-turn').count();
      if (ended) await acting(page, () => page.getByTestId('end-turn').click());
    }
    // The computer draws and guesses: its move is highlighted; a new card arrives animated.
    table = await myMove(page);
    if (table.phase === 'over') {
      // The computer found the only hideout at once: nothing more to see here.
      await page.context().close();
      continue;
    }
    assert.match(await page.getByTestId('last-move').textContent(), /Marshal/);
    assert.ok((await page.locator('[data-testid^=deck-][data-recent=true]').count()) >= 1, 'the deck drawn from');
    await draw(page, deckFor(table.trail.at(-1).card ?? 0, { 1: 1, 2: 1, 3: 1 }));
    table = await myMove(page);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the clock turns urgent, a game aborted by the clock is told in words, the rematch swaps roles', async () => {
  const { page, room } = await roomVia({ role: 'marshal', opponent: { bot: 'easy' }, turn_clock_secs: 4 });
  const watcher = await newPlayer(browser, { viewport: PHONE });
  await watcher.goto(`${server.url}${room.links.spectate}`);
  await watcher.getByTestId('room').waitFor();
  await page.locator('[data-testid=seat-marshal] [data-testid=clock].urgent').waitFor({ timeout: 10000 });
  const size = await page.getByTestId('clock').evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
  assert.ok(size >= 24, `the clock is large: ${size}px`);
  await shot(page, 'table-clock-urgent');
  await page.getByTestId('game-over').waitFor({ timeout: 15000 });
  // The Marshal never moved: the game was aborted (issue 25), not lost on time.
  assert.match(
    await page.getByTestId('over-line').textContent(),
    /Game aborted, not rated\. You did not move before your clock ran out\./,
  );
  await watcher.getByTestId('game-over').waitFor();
  assert.match(
    await watcher.getByTestId('over-line').textContent(),
    /The Marshal did not move before the clock ran out\./,
  );
  // Every hideout and sprint card in place for everyone.
  for (const p of [page, watcher]) {
    const hidden = await p
      .locator('[data-testid=trail] > li.trail-card:not(.goal)')
      .evaluateAll((lis) => lis.filter((li) => !li.querySelector('.card.face')).length);
    assert.equal(hidden, 0, 'every hideout is shown');
  }
  assert.equal(await page.getByTestId('rematch').count(), 1);
  assert.equal(await page.getByTestId('new-game').getAttribute('href'), '/');
  await checkAxe(page, 'game over');
  await checkAxe(watcher, 'game over, spectator on a phone');
  await shot(page, 'table-over');
  await shot(watcher, 'table-over-spectator-phone');
  await openHowto(page, 'game-over');

  // Rematch: the computer accepts, the roles swap, and the page says so.
  await page.getByTestId('rematch').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.viewer === 'fugitive');
  assert.match(await page.getByTestId('notice').textContent(), /you now play the Fugitive/);
  await shot(page, 'table-rematch');
  await checkAxe(watcher, 'spectator on a phone');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(watcher.errors, []);
  await page.context().close();
  await watcher.context().close();
});

test('a person invited: the spectator, resign in words, How to play from the table', async () => {
  const alice = await newPlayer(browser, { viewport: DESKTOP });
  const { invite, spectate } = await createRoom(alice, server.url, 'fugitive');
  const bob = await newPlayer(browser, { viewport: PHONE });
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  const watcher = await newPlayer(browser, { viewport: DESKTOP });
  await watcher.goto(spectate);
  await watcher.getByTestId('spectating').waitFor();
  assert.ok((await alice.locator('h1').count()) >= 1, 'the table has an h1');
  await checkAxe(alice, 'Fugitive (desktop)');
  await checkAxe(bob, 'Marshal (phone)');
  await checkAxe(watcher, 'spectator (desktop)');
  await shot(watcher, 'table-spectator');
  await openHowto(bob, 'table-phone');
  const table = await readTable(alice);
  const move = plan(table.hand, 0, { no42: true });
  await alice.getByTestId(`hand-${move.hideout}`).click();
  assert.equal(await aboveFold(alice, 'place'), true, 'Place is above the fold at 1280×800');
  await alice.getByTestId(`hand-${move.hideout}`).click();
  await place(alice, move.hideout, move.sprints);
  await acting(alice, () => alice.getByTestId('end-turn').click());
  // The Marshal on a phone: the decks to draw from in sight; her notebook without the assist
  // lists the numbers the hideout can still be, without shares.
  await bob.waitForFunction(() => document.querySelector('[data-testid=room]')?.classList.contains('my-turn'));
  assert.equal(await aboveFold(bob, 'deck-1'), true, 'the decks are above the fold on a phone');
  await bob.getByTestId('inspect-1').click();
  const listed = await bob
    .locator('[data-testid=candidates] button')
    .evaluateAll((els) => els.map((e) => [Number(e.dataset.number), e.dataset.positionShare ?? null]));
  assert.ok(listed.length > 0 && listed.every(([n, share]) => n >= 1 && n <= 41 && share === null), `${listed}`);
  assert.ok(
    listed.some(([n]) => n === move.hideout),
    'the true hideout is among them',
  );
  await checkAxe(bob, 'Marshal notebook (phone)');
  await shot(bob, 'table-marshal-notebook-phone');
  await bob.getByTestId('notebook-close').click();
  await bob.getByTestId('resign').click();
  await acting(bob, () => bob.getByTestId('resign-yes').click());
  await alice.getByTestId('game-over').waitFor();
  assert.match(await alice.getByTestId('over-line').textContent(), /You win! The Marshal resigned\./);
  assert.match(await bob.getByTestId('over-line').textContent(), /You lose\. You resigned\./);
  for (const page of [alice, bob, watcher]) assert.deepEqual(page.errors, []);
});
