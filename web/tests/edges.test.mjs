// Issue 23, "The table", items 4–10: the rough edges a first-time player still met. One test
// (or two) per item, each failing on the code before its fix:
// - 4: the chat box follows new messages for the other player and the spectator, unless the
//   reader has scrolled up (then a quiet "New messages" button);
// - 5: the result, the series' result and the rematch's "you now play…" are brought into sight
//   (the Marshal who misses in the Manhunt on a phone, scrolled to her board) and read out;
// - 6: the Marshal reads the result of her own guess in "Just now";
// - 7: the replay says something true about dashed cards;
// - 8: "you can draw here" and "drawn just now" are two marks, each with its words;
// - 9: on a phone the replay controls stay in one row, drawn without symbols a font may lack;
//   the escape card's word fits in every language; the sound button is named in each;
// - 10: the spectator after the end, no series line against the computer, the name field drawn
//   like the page's other fields.
// Desktop 1280×800, phone 390×844; axe-core on each new screen. Screenshots: edges-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  openTable,
  closeTable,
  newPlayer,
  createRoom,
  createComputerRoom,
  nextMove,
  readTable,
  waitForTurn,
  acting,
  draw,
  place,
  guess,
  shot,
  checkAxe,
  SCREENSHOTS,
  chooseLanguage,
} from './harness.mjs';
import path from 'node:path';
import { plan } from './planner.mjs';
import { contrast } from './colours.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
let server;
let browser;

before(async () => {
  process.env.FUGITIVE_BOT_PAUSE = '30ms';
  ({ server, browser } = await openTable());
});
after(() => closeTable({ server, browser }));

/// The part of the element's box outside the window, in words, or true when all of it shows.
const inSight = (page, testid) =>
  page.evaluate((testid) => {
    const el = document.querySelector(`[data-testid="${testid}"]`);
    if (!el) return `${testid} is not shown`;
    const box = el.getBoundingClientRect();
    return box.top >= -1 && box.bottom <= window.innerHeight + 1 && box.height > 0
      ? true
      : `${testid} at ${Math.round(box.top)}–${Math.round(box.bottom)} in a ${window.innerHeight} px window`;
  }, testid);

/// Waits until the element shows in the window (the page may scroll smoothly to it).
const waitInSight = (page, testid) =>
  page
    .waitForFunction(
      (testid) => {
        const box = document.querySelector(`[data-testid="${testid}"]`)?.getBoundingClientRect();
        return box && box.height > 0 && box.top >= -1 && box.bottom <= window.innerHeight + 1;
      },
      testid,
      { timeout: 5000 },
    )
    .catch(async () => assert.fail(await inSight(page, testid)));

/// Whether the chat's last message shows inside the chat box, and whether the box was scrolled.
const chatEnd = (page) =>
  page.getByTestId('chat-log').evaluate((list) => {
    const last = list.lastElementChild.getBoundingClientRect();
    const box = list.getBoundingClientRect();
    return { shown: last.top >= box.top - 1 && last.bottom <= box.bottom + 1, top: list.scrollTop };
  });

const deckSizes = (page) =>
  page.evaluate(() =>
    [1, 2, 3].map((d) => Number(document.querySelector(`[data-testid=deck-size-${d}]`).dataset.size)),
  );

/// The Marshal draws from the lowest deck that has cards.
async function drawLowest(page) {
  const sizes = await deckSizes(page);
  await draw(
    page,
    [1, 2, 3].find((d) => sizes[d - 1] > 0),
  );
}

/// Resigns the game on this page.
async function resign(page) {
  await page.getByTestId('resign').click();
  await acting(page, () => page.getByTestId('resign-yes').click());
}

/// Alice (the Fugitive, who made the room) and Bob (the Marshal, by the invitation), on desktops;
/// `alice.spectate` is the room's spectator link.
async function twoPlayers() {
  const alice = await newPlayer(browser, { viewport: DESKTOP });
  const { invite, spectate } = await createRoom(alice, server.url, 'fugitive');
  alice.spectate = spectate;
  const bob = await newPlayer(browser, { viewport: DESKTOP });
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  return [alice, bob];
}

/// A finished game against the computer (the Fugitive places one hideout, then resigns); returns
/// its replay's address.
async function finishedGame() {
  const page = await computerRoom('fugitive', DESKTOP);
  await waitForTurn(page, 'opening');
  const { hand } = await readTable(page);
  const move = plan(hand, 0, { no42: true });
  await place(page, move.hideout, move.sprints);
  await resign(page);
  await page.getByTestId('game-over').waitFor();
  const replay = server.url + (await page.getByTestId('replay-link').getAttribute('href'));
  await page.context().close();
  return replay;
}

/// A room against the easy computer made through the API, and its seat's page.
async function computerRoom(role, viewport) {
  const res = await fetch(`${server.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role, opponent: { bot: 'easy' } }),
  });
  assert.equal(res.status, 201);
  const room = await res.json();
  const page = await newPlayer(browser, { viewport });
  await page.goto(`${server.url}${room.links.seat}`);
  await page.getByTestId('room').waitFor();
  return page;
}

/// Sends `text` in the chat and waits until the page shows it.
async function say(page, text) {
  const before = await page.locator('.chat-line').count();
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-send').click();
  await page.waitForFunction((n) => document.querySelectorAll('.chat-line').length > n, before);
}

test('item 4: the chat box follows new messages unless the reader scrolled up', async () => {
  const alice = await newPlayer(browser, { viewport: DESKTOP });
  const { invite, spectate } = await createRoom(alice, server.url, 'fugitive');
  const bob = await newPlayer(browser, { viewport: PHONE });
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  for (const page of [alice, bob]) await page.getByTestId('chat-public').check();
  const watcher = await newPlayer(browser, { viewport: DESKTOP });
  await watcher.goto(spectate);
  await watcher.getByTestId('chat-mute').waitFor(); // both players let spectators read
  // A shorter box makes four messages overflow it in any font (as they did in the report).
  for (const page of [bob, watcher]) {
    await page.evaluate(() => document.styleSheets[0].insertRule('.chat-log { max-height: 90px !important; }'));
  }
  const long = 'A long message to read. '.repeat(9).slice(0, 200);
  assert.equal(long.length, 200);
  for (const text of ['Hello!', 'Ready?', long, 'The fourth message']) await say(alice, text);
  for (const [name, page] of [
    ['Marshal', bob],
    ['spectator', watcher],
  ]) {
    await page.waitForFunction(() => document.querySelectorAll('.chat-line').length === 4);
    const end = await chatEnd(page);
    assert.ok(end.top > 0 && end.shown, `the ${name} sees the fourth message: ${JSON.stringify(end)}`);
    assert.equal(await page.getByTestId('chat-new').count(), 0);
  }

  // Both scroll up to read: a new message leaves them there and offers the way down.
  for (const page of [bob, watcher]) {
    await page.getByTestId('chat-log').evaluate((list) => {
      list.scrollTop = 0;
    });
  }
  await say(alice, 'A fifth one');
  for (const page of [bob, watcher]) {
    await page.waitForFunction(() => document.querySelectorAll('.chat-line').length === 5);
    assert.equal((await chatEnd(page)).top, 0, 'the reader stays where he was');
    await page.getByTestId('chat-new').waitFor();
    assert.match(await page.getByTestId('chat-new').textContent(), /New messages/);
  }
  await checkAxe(bob, 'chat with new messages (phone)');
  await shot(bob, 'edges-chat-new-messages-phone');
  // The button goes down to the new message, and goes away; so does reaching the end by hand.
  await bob.getByTestId('chat-new').click();
  assert.ok((await chatEnd(bob)).shown, 'the button goes down to the new message');
  assert.equal(await bob.getByTestId('chat-new').count(), 0, 'and goes away');
  await watcher.getByTestId('chat-log').evaluate((list) => {
    list.scrollTop = list.scrollHeight;
  });
  await watcher.getByTestId('chat-new').waitFor({ state: 'detached' });

  // His own message, sent while he reads back, takes him to the end.
  await bob.getByTestId('chat-log').evaluate((list) => {
    list.scrollTop = 0;
  });
  await say(bob, 'Bob here');
  assert.ok((await chatEnd(bob)).shown, 'his own message shows');
  assert.equal(await bob.getByTestId('chat-new').count(), 0);
  for (const page of [alice, bob, watcher]) assert.deepEqual(page.errors, []);
  for (const page of [alice, bob, watcher]) await page.context().close();
});

test('item 5: the Manhunt lost on a phone, and the rematch, where she looks and read out', async () => {
  const page = await newPlayer(browser, { viewport: PHONE });
  await createComputerRoom(page, server.url, 'marshal');
  // Always-wrong guesses (a number in her hand) until the computer plays 42 and the Manhunt begins.
  let table;
  for (let moves = 0; moves < 200; moves += 1) {
    table = await nextMove(page);
    if (table.phase === 'manhunt' || table.phase === 'over') break;
    if (table.phase === 'draw') await drawLowest(page);
    else await guess(page, [table.hand[0]]);
  }
  assert.equal(table.phase, 'manhunt', 'the computer reached 42 with nothing found: the Manhunt');
  // She looks at her board, the top of the page out of sight, and misses.
  await page.getByTestId('board').evaluate((board) => board.scrollIntoView({ block: 'end' }));
  assert.notEqual(await inSight(page, 'status'), true, 'the top of the page is out of sight');
  await guess(page, [table.hand[0]]);
  await page.getByTestId('game-over').waitFor();
  await waitInSight(page, 'over-line');
  assert.match(await page.getByTestId('over-line').textContent(), /^You lose\./);
  await page.waitForFunction(() => /You lose\./.test(document.getElementById('live').textContent));
  await checkAxe(page, 'the Manhunt lost (phone)');
  await shot(page, 'edges-manhunt-lost-phone');

  // The rematch, the top of the page out of sight: "you now play the Fugitive" where she looks.
  await page.getByTestId('rematch').evaluate((button) => button.scrollIntoView({ block: 'start' }));
  assert.notEqual(await inSight(page, 'seat-fugitive'), true, 'the top of the page is out of sight');
  await page.getByTestId('rematch').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.viewer === 'fugitive');
  await waitInSight(page, 'notice');
  assert.match(await page.getByTestId('notice').textContent(), /you now play the Fugitive/);
  await page.waitForFunction(() => /you now play the Fugitive/.test(document.getElementById('live').textContent));
  await checkAxe(page, 'rematch (phone)');
  await shot(page, 'edges-rematch-phone');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('item 5: the series result where each player looks, and read out', async () => {
  const alice = await newPlayer(browser, { viewport: PHONE });
  const { invite } = await createRoom(alice, server.url, 'fugitive', { series: '3' });
  const bob = await newPlayer(browser, { viewport: PHONE });
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  // Bob resigns both games, each time from the bottom of his page; Alice looks at her cards.
  for (let game = 1; game <= 2; game += 1) {
    await alice.waitForFunction((g) => document.querySelector('[data-testid=room]')?.dataset.game === String(g), game);
    await alice.getByTestId(game === 1 ? 'hand' : 'board').evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await bob.getByTestId('resign').evaluate((button) => button.scrollIntoView({ block: 'end' }));
    assert.notEqual(await inSight(bob, 'status'), true, 'the top of his page is out of sight');
    await resign(bob);
    for (const page of [alice, bob]) await waitForTurn(page, 'over');
    await waitInSight(bob, 'over-line');
    assert.match(await bob.getByTestId('over-line').textContent(), /You lose\. You resigned\./);
    if (game === 1) {
      await alice.getByTestId('rematch').click();
      await acting(bob, () => bob.getByTestId('rematch').click());
    }
  }
  for (const [page, words] of [
    [bob, /Your opponent wins the series\./],
    [alice, /You win the series!/],
  ]) {
    await waitInSight(page, 'over-line');
    await waitInSight(page, 'series-winner');
    assert.match(await page.getByTestId('series-winner').textContent(), words);
    await page.waitForFunction((w) => new RegExp(w).test(document.getElementById('live').textContent), words.source);
  }
  await checkAxe(alice, 'series won (phone)');
  await shot(alice, 'edges-series-won-phone');
  for (const page of [alice, bob]) assert.deepEqual(page.errors, []);
  for (const page of [alice, bob]) await page.context().close();
});

test('item 6: the Marshal reads the result of her own guess in "Just now"', async () => {
  const [alice, bob] = await twoPlayers();
  await waitForTurn(alice, 'opening');
  const { hand } = await readTable(alice);
  const first = plan(hand, 0, { no42: true });
  await place(alice, first.hideout, first.sprints);
  await acting(alice, () => alice.getByTestId('end-turn').click());
  await waitForTurn(bob, 'draw');
  const line = bob.getByTestId('last-move');
  assert.match(await line.textContent(), /placed a hideout/);
  while ((await readTable(bob)).phase === 'draw') await drawLowest(bob);
  const held = (await readTable(bob)).hand[0];
  await guess(bob, [held]);
  // Her own guess and its result, not the Fugitive's move she saw before it.
  assert.match(await line.textContent(), new RegExp(`^Just now: You guessed ${held}: wrong\\.`));
  assert.equal(await line.getAttribute('data-own'), 'true');
  await checkAxe(bob, 'Marshal after her guess');
  await shot(bob, 'edges-own-guess');
  // Once the Fugitive moves again, "Just now" is his move.
  await waitForTurn(alice, 'draw');
  await drawLowest(alice);
  await acting(alice, () => alice.getByTestId('pass').click());
  await bob.waitForFunction(() => document.querySelector('[data-testid=last-move]')?.dataset.own === 'false');
  assert.match(await line.textContent(), /passed/);
  for (const page of [alice, bob]) assert.deepEqual(page.errors, []);
  for (const page of [alice, bob]) await page.context().close();
});

test('item 7: the replay says every card is public, not "only you see their numbers"', async () => {
  const page = await newPlayer(browser, { viewport: DESKTOP });
  await page.goto(await finishedGame());
  await page.getByTestId('replay-next').click();
  await page.locator('[data-testid=replay][data-step="1"]').waitFor();
  assert.equal(await page.locator('[data-testid=trail] .card.secret').count(), 1, 'a dashed card: face down then');
  const note = await page.locator('.trail-note').textContent();
  assert.doesNotMatch(note, /only you/);
  assert.match(note, /the replay shows every card/);
  await page.getByTestId('replay-last').click();
  assert.match(await page.locator('.trail-note').textContent(), /never found/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('item 9: on a phone the replay controls stay in one row, drawn, in every language', async () => {
  const page = await newPlayer(browser, { viewport: PHONE });
  await page.goto(await finishedGame());
  await page.getByTestId('replay').waitFor();
  for (const [lang, names] of [
    ['en', ['Start', 'Back', 'Next', 'End']],
    ['de', ['Anfang', 'Zurück', 'Weiter', 'Ende']],
    ['fr', ['Début', 'Précédent', 'Suivant', 'Fin']],
  ]) {
    await chooseLanguage(page, lang);
    const controls = await page.locator('.replay-controls').evaluate((group) => {
      // One row: a horizontal line crosses every control.
      const boxes = [...group.children].map((el) => el.getBoundingClientRect());
      return {
        row: Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom)),
        overflow: group.scrollWidth > group.clientWidth || document.documentElement.scrollWidth > window.innerWidth,
        icons: group.querySelectorAll('button svg').length,
        // Words and digits only: no symbol a font may lack (⏮ ◀ ▶ ⏭).
        glyphs: group.textContent.match(/[^\p{L}\p{N}\s]/gu) ?? [],
        small: [...group.querySelectorAll('button')].filter((b) => b.offsetWidth < 44 || b.offsetHeight < 44).length,
      };
    });
    assert.deepEqual(
      controls,
      { row: true, overflow: false, icons: 4, glyphs: [], small: 0 },
      `replay controls (${lang})`,
    );
    for (const [i, testid] of ['replay-first', 'replay-prev', 'replay-next', 'replay-last'].entries()) {
      assert.equal(await page.getByRole('button', { name: names[i], exact: true }).getAttribute('data-testid'), testid);
    }
  }
  await chooseLanguage(page, 'en');
  await page.getByTestId('replay-next').click();
  await page.locator('[data-testid=replay][data-step="1"]').waitFor();
  await checkAxe(page, 'replay (phone)');
  await shot(page, 'edges-replay-phone');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('item 10: the spectator after the end; the name field drawn like the others', async () => {
  const [alice, bob] = await twoPlayers();
  const watcher = await newPlayer(browser, { viewport: PHONE });
  await watcher.goto(alice.spectate);
  await watcher.getByTestId('spectating').waitFor();
  assert.match(await watcher.getByTestId('spectating').textContent(), /only what is public/);

  // The name field has the page's colours (the chat field's), readable on the dark panel.
  const field = await alice.getByTestId('name-input').evaluate((input) => {
    const style = getComputedStyle(input);
    const chat = getComputedStyle(document.querySelector('[data-testid=chat-input]'));
    return {
      color: style.color,
      background: style.backgroundColor,
      height: input.offsetHeight,
      chat: chat.backgroundColor,
    };
  });
  const hex = (rgb) =>
    `#${rgb
      .match(/\d+/g)
      .slice(0, 3)
      .map((n) => Number(n).toString(16).padStart(2, '0'))
      .join('')}`;
  assert.equal(hex(field.background), '#2d2a25', `the name field has the page's field colour: ${field.background}`);
  assert.equal(field.chat, field.background, 'like the chat field');
  assert.ok(
    contrast(hex(field.color), hex(field.background)) >= 4.5,
    `readable: ${field.color} on ${field.background}`,
  );
  assert.ok(field.height >= 44, `a finger can hit it: ${field.height}px`);

  // After the end everything is public (R18): the spectator is not told otherwise.
  await resign(bob);
  await watcher.getByTestId('game-over').waitFor();
  const words = await watcher.getByTestId('spectating').textContent();
  assert.doesNotMatch(words, /only what is public/);
  assert.match(words, /every card is public now/);
  await checkAxe(watcher, 'spectator after the end (phone)');
  await shot(watcher, 'edges-spectator-over-phone');
  for (const page of [alice, bob, watcher]) assert.deepEqual(page.errors, []);
  for (const page of [alice, bob, watcher]) await page.context().close();
});

test('item 10: no series line in a game against the computer', async () => {
  const page = await newPlayer(browser, { viewport: DESKTOP });
  await createComputerRoom(page, server.url, 'fugitive');
  await resign(page);
  await page.getByTestId('game-over').waitFor();
  await page.getByTestId('rematch').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.game === '2');
  assert.equal(await page.getByTestId('series').count(), 0, 'no series score against the computer');
  // The server says the room is against the computer (room.computer), so another device that
  // opens the seat link, and a spectator, show no series line either.
  const roomUrl = await page.evaluate(() => location.href);
  const token = await page.evaluate(
    (room) => localStorage.getItem(`fugitive:seat:${room}`),
    roomUrl.split('/room/')[1].split('/')[0],
  );
  assert.ok(token, 'the seat is kept in localStorage');
  const seatLink = `${roomUrl}#seat=${token}`;
  for (const url of [seatLink, roomUrl]) {
    const other = await newPlayer(browser, { viewport: DESKTOP });
    await other.goto(url);
    await other.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.game === '2');
    assert.equal(
      await other.getByTestId('series').count(),
      0,
      `no series score at ${url === roomUrl ? 'a spectator' : 'a second device'}`,
    );
    assert.deepEqual(other.errors, []);
    await other.context().close();
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('item 8: "you can draw here" and "drawn just now" are two marks with their words', async () => {
  const page = await computerRoom('fugitive', DESKTOP);
  let table = await nextMove(page);
  // Two opening hideouts: the computer cannot end the game with its first guess.
  for (let i = 0; i < 2; i += 1) {
    const move = plan(table.hand, table.trail.at(-1).card, { no42: true });
    await place(page, move.hideout, move.sprints);
    table = await readTable(page);
  }
  table = await nextMove(page);
  assert.equal(table.phase, 'draw', 'his draw, after the computer drew and guessed');
  const marks = await page.evaluate(() =>
    [1, 2, 3].map((d) => {
      const deck = document.querySelector(`[data-testid=deck-${d}]`);
      const style = getComputedStyle(deck);
      return {
        deck: d,
        drawable: deck.tagName === 'BUTTON',
        recent: deck.dataset.recent === 'true',
        border: style.borderTopColor,
        ring: style.boxShadow,
        can: document.querySelector(`[data-testid=deck-can-${d}]`)?.textContent ?? null,
        drawn: document.querySelector(`[data-testid=deck-drawn-${d}]`)?.textContent.trim() ?? null,
      };
    }),
  );
  const drawable = marks.filter((m) => m.drawable);
  const recent = marks.filter((m) => m.recent);
  assert.ok(drawable.length > 0 && recent.length > 0, JSON.stringify(marks));
  for (const m of marks) {
    assert.equal(
      m.can?.trim() ?? null,
      m.drawable ? 'Draw here' : null,
      `deck ${m.deck}: the words of "you can draw here"`,
    );
    assert.equal(m.drawn, m.recent ? 'Drawn just now' : null, `deck ${m.deck}: the words of "drawn just now"`);
  }
  // The two marks differ in colour: the drawable deck's border is not the last move's ring.
  const ringColours = (shadow) => shadow.match(/rgba?\([^)]*\)/g) ?? [];
  for (const d of drawable) {
    for (const r of recent) {
      assert.ok(!ringColours(r.ring).includes(d.border), `deck ${d.deck}'s border ${d.border} vs ring ${r.ring}`);
    }
  }
  assert.ok(
    drawable.every((m) => m.border === drawable[0].border),
    'one colour for "you can draw here"',
  );
  // A screen reader hears both.
  for (const m of drawable) {
    const name = await page.getByTestId(`deck-${m.deck}`).evaluate((el) => el.textContent.replace(/\s+/g, ' '));
    assert.match(name, /^Draw here Deck \d/);
    if (m.recent) assert.match(name, /Drawn just now$/);
  }
  await checkAxe(page, 'decks: drawable and drawn from');
  await page.locator('.decks').screenshot({ path: path.join(SCREENSHOTS, 'edges-decks.png') });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("item 9: on a phone the escape card's word fits and the sound button is named, in every language", async () => {
  const page = await computerRoom('fugitive', PHONE);
  await page.locator('[data-testid=hand] .card[data-card="42"]').waitFor();
  for (const [lang, word] of [
    ['en', 'Sound'],
    ['de', 'Ton'],
    ['fr', 'Son'],
  ]) {
    await chooseLanguage(page, lang);
    // Every word on a card (0's "start", 42's "escape") lies inside its card's border.
    const spill = await page.evaluate(() =>
      [...document.querySelectorAll('.card .value.word')]
        .map((el) => {
          const card = el.closest('.card');
          const style = getComputedStyle(card);
          const inner = card.getBoundingClientRect();
          const box = el.getBoundingClientRect();
          const left = inner.left + parseFloat(style.borderLeftWidth);
          const right = inner.right - parseFloat(style.borderRightWidth);
          return box.left >= left - 0.5 && box.right <= right + 0.5
            ? null
            : `${el.textContent}: ${box.left.toFixed(1)}–${box.right.toFixed(1)} in ${left.toFixed(1)}–${right.toFixed(1)}`;
        })
        .filter(Boolean),
    );
    assert.deepEqual(spill, [], `card words fit (${lang})`);
    const sound = page.getByTestId('sound');
    assert.equal(await page.getByRole('button', { name: word, exact: true }).getAttribute('data-testid'), 'sound');
    assert.equal((await sound.textContent()).trim(), word, 'the word alone, its icon drawn');
    assert.equal(await sound.locator('svg').count(), 1);
    const box = await sound.boundingBox();
    assert.ok(box.width >= 44 && box.height >= 44, `the sound button is big enough: ${box.width}×${box.height}`);
  }
  await page.getByTestId('sound').click();
  assert.equal(await page.getByTestId('sound').getAttribute('aria-pressed'), 'true');
  await checkAxe(page, 'Fugitive in French (phone)');
  await shot(page, 'edges-escape-fr-phone');
  await chooseLanguage(page, 'en');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
