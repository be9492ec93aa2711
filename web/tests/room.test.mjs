// The room page as a whole (issue 24): a refused request is said in the reader's language from
// the refusal's typed reason (`error.reason` of the reply); leaving the page stops everything it
// runs (the clocks' countdown, the connection), and coming back to it from the browser's cache
// starts them again.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, createRoom, readTable } from './harness.mjs';
import { setLanguage, strings } from '../i18n.js';
import { refusalText } from '../panels/banner.js';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

test('a refusal reads its typed reason, else its code, else that it was refused', async () => {
  const wrongPhase = { code: 'wrong_phase', message: 'draw a card first (R7, R8)', reason: 'draw_first' };
  await Promise.all(['en', 'de', 'fr'].map(strings));
  setLanguage('en');
  assert.equal(refusalText(wrongPhase), 'Draw a card first.');
  assert.equal(refusalText({ code: 'bad_choice', reason: 'stakeout' }), 'Name a range: deck 1, 2 or 3.');
  // A reason this client has no words for: the code's words.
  assert.equal(
    refusalText({ code: 'wrong_phase', reason: 'a_new_reason' }),
    'That does not fit this step of the turn.',
  );
  assert.equal(
    refusalText({ code: 'too_far', message: 'hideout 30 is more than 3 + sprint 0 above 5 (R9)' }),
    'That hideout is too far for its sprint cards.',
  );
  assert.equal(refusalText({ code: 'a_new_code', message: 'something' }), 'That move was refused.');
  setLanguage('de');
  assert.equal(refusalText(wrongPhase), 'Zieh zuerst eine Karte.');
  setLanguage('fr');
  assert.equal(refusalText(wrongPhase), 'Pioche d’abord une carte.');
  setLanguage('en');
});

test('the server refuses a move: the page says why in the reader’s language and nothing changes', async () => {
  const alice = await newPlayer(browser, { locale: 'de-DE' });
  // The Fugitive's first placement leaves the page as a pass, which the first turn does not
  // allow (R11a): the server refuses it with `wrong_phase` and the reason `no_pass_first_turn`.
  let rewritten = 0;
  await alice.routeWebSocket(/\/ws\//, (page) => {
    const toServer = page.connectToServer();
    page.onMessage((text) => {
      const message = JSON.parse(text);
      if (message.type === 'action' && message.action.type === 'place' && rewritten === 0) {
        rewritten += 1;
        message.action = { type: 'pass' };
      }
      toServer.send(JSON.stringify(message));
    });
  });
  await createRoom(alice, server.url, 'fugitive');
  const version = (await readTable(alice)).version;
  await alice.getByTestId('hand-1').click();
  await alice.getByTestId('place').click();
  const error = alice.getByTestId('error');
  await error.waitFor();
  assert.equal(await error.textContent(), 'Im ersten Zug darfst du nicht passen.');
  assert.equal(rewritten, 1);
  const table = await readTable(alice);
  assert.equal(table.version, version, 'the refusal changed nothing');
  assert.equal(table.trail.length, 1, 'only card 0 lies on the trail');
  assert.deepEqual(alice.errors, []);
});

test('leaving the room stops its clocks and its connection; coming back from the cache starts them', async () => {
  const alice = await newPlayer(browser);
  // Counts the intervals the page keeps running and the sockets it opens.
  await alice.addInitScript(() => {
    const running = new Set();
    const [set, clear] = [window.setInterval.bind(window), window.clearInterval.bind(window)];
    window.setInterval = (...args) => {
      const id = set(...args);
      running.add(id);
      return id;
    };
    window.clearInterval = (id) => {
      running.delete(id);
      clear(id);
    };
    window.__running = running;
    window.__sockets = [];
    window.WebSocket = class extends window.WebSocket {
      constructor(...args) {
        super(...args);
        window.__sockets.push(this);
      }
    };
  });
  await createRoom(alice, server.url, 'fugitive');
  const state = () =>
    alice.evaluate(() => ({
      running: window.__running.size,
      sockets: window.__sockets.map((s) => s.readyState),
    }));
  assert.deepEqual(await state(), { running: 1, sockets: [WebSocketState.OPEN] }, 'the clocks tick, one socket');

  await alice.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true })));
  const left = await state();
  assert.equal(left.running, 0, 'nothing ticks once the room is left');
  assert.ok(left.sockets[0] >= WebSocketState.CLOSING, 'the socket is closed');

  await alice.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true })));
  await alice.waitForFunction(() => window.__sockets.length === 2 && window.__sockets[1].readyState === 1);
  assert.equal((await state()).running, 1, 'the clocks tick again');
  assert.equal(await alice.getByTestId('connection').count(), 0, 'connected again');
  assert.deepEqual(alice.errors, []);
});

const WebSocketState = { OPEN: 1, CLOSING: 2 };
