// Protocol 2 in the browser (docs/protocol-v2.md, issue 10): the page opens `/ws/v2/…`, holds
// its state as a snapshot with the deltas applied, and a delta lost on the way is mended by a
// `resync`: the page asks, and shows the server's state again.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, createRoom, readTable, place } from './harness.mjs';
import { applyDelta, fits } from '../delta.js';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

test('a delta adds history and trail, replaces what changed, and keeps the state it came from', () => {
  const card = (face_up) => ({ card: null, face_up, sprint_count: 0, sprints: null });
  const held = {
    version: 4,
    game: 1,
    view: { phase: { phase: 'guess' }, trail: [card(true), card(false)], history: [{ type: 'passed' }] },
    legal: null,
    room: { spectators: 1, names: { fugitive: 'Zoë', marshal: null } },
    notepad: { trails: 3, positions: [] },
  };
  const delta = {
    version: 5,
    base: 4,
    game: 1,
    history: [{ type: 'guessed', numbers: [7], right: true }],
    trail: {
      length: 3,
      cards: [
        [1, { ...card(true), card: 7 }],
        [2, card(false)],
      ],
    },
    view: { phase: { phase: 'draw', role: 'fugitive', left: 1 } },
    room: { spectators: 2 },
    notepad: null,
  };
  assert.ok(fits(held, delta));
  assert.ok(!fits(held, { ...delta, base: 3 }) && !fits(held, { ...delta, game: 2 }) && !fits(null, delta));
  const next = applyDelta(held, delta);
  assert.equal(next.version, 5);
  assert.deepEqual(next.view.history, [{ type: 'passed' }, { type: 'guessed', numbers: [7], right: true }]);
  assert.deepEqual(next.view.trail, [card(true), { ...card(true), card: 7 }, card(false)]);
  assert.deepEqual(next.view.phase, { phase: 'draw', role: 'fugitive', left: 1 });
  assert.deepEqual(next.room, { spectators: 2, names: { fugitive: 'Zoë', marshal: null } });
  assert.equal(next.legal, null);
  assert.ok(!('notepad' in next));
  // The held state is untouched: the page compares before and after.
  assert.equal(held.view.history.length, 1);
  assert.equal(held.view.trail.length, 2);
  assert.equal(held.room.spectators, 1);
  // At the end of a game, entries once blanked come whole.
  const revealed = applyDelta(next, { version: 6, base: 5, game: 1, revealed: [[0, { type: 'drew', card: 9 }]] });
  assert.deepEqual(revealed.view.history[0], { type: 'drew', card: 9 });
  assert.deepEqual(next.view.history[0], { type: 'passed' });
});

test("a delta's legal and candidates replace the held ones as sent, and null removes the candidates", () => {
  // The server sends each placement's `from` whole: the client fills nothing in (issue 23).
  const hands = { fugitive: { size: 4, cards: [4, 9, 12, 42] }, marshal: { size: 2, cards: null } };
  const held = { version: 1, game: 1, view: { hands, trail: [], history: [] }, legal: null, room: {} };
  const legal = {
    draws: [],
    placements: [
      { hideout: 9, sprints: { kind: 'at_least', value: 0, from: [4] } },
      { hideout: 12, sprints: { kind: 'at_least', value: 2, from: [] } },
    ],
    pass: false,
    end_turn: false,
    guess: null,
    resign: true,
    time_out: true,
  };
  const candidates = {
    positions: [{ position: 1, numbers: [1, 2, 3] }],
    ruled_out: { revealed: [], sprint: [], held: [], guessed: [], trail: [4, 5] },
    doubtful: [],
  };
  const next = applyDelta(held, { version: 2, base: 1, game: 1, legal, candidates });
  assert.deepEqual(next.legal, legal);
  assert.deepEqual(next.candidates, candidates);
  const over = applyDelta(next, { version: 3, base: 2, game: 1, candidates: null });
  assert.ok(!('candidates' in over), 'none once the game is over');
  assert.deepEqual(next.candidates, candidates, 'the held state is untouched');
});

test('the page speaks protocol 2 and mends a lost delta with a resync', async () => {
  const alice = await newPlayer(browser);
  const frames = [];
  alice.on('websocket', (ws) => ws.on('framereceived', (frame) => frames.push({ url: ws.url(), text: frame.payload })));
  const { spectate } = await createRoom(alice, server.url, 'fugitive');

  // A spectator whose connection loses the first delta after its snapshot.
  const carol = await newPlayer(browser);
  const sent = [];
  const received = [];
  let lost = 0;
  await carol.routeWebSocket(/\/ws\/v2\/rooms\//, (ws) => {
    const upstream = ws.connectToServer();
    ws.onMessage((message) => {
      sent.push(JSON.parse(message));
      upstream.send(message);
    });
    upstream.onMessage((message) => {
      const frame = JSON.parse(message);
      if (frame.type === 'delta' && lost === 0) {
        lost += 1;
        return;
      }
      received.push(frame);
      ws.send(message);
    });
  });
  await carol.goto(spectate);
  await carol.getByTestId('room').waitFor();

  // The Fugitive's opening: two hideouts, two versions.
  await place(alice, 1);
  await place(alice, 2);
  await carol.waitForFunction(() => document.querySelector('[data-testid=room]')?.dataset.version === '2');
  const seen = await readTable(carol);
  const shown = await readTable(alice);
  assert.equal(seen.trail.length, shown.trail.length);
  assert.deepEqual(
    seen.trail.map((t) => t.faceUp),
    shown.trail.map((t) => t.faceUp),
  );
  assert.equal(seen.log, shown.log);
  assert.equal(lost, 1);
  assert.ok(
    sent.some((m) => m.type === 'resync' && m.v === 2),
    'the page asked for a snapshot',
  );
  assert.equal(received.filter((f) => f.type === 'snapshot').length, 2, "hello's and the resync's");

  // Alice's page used protocol 2: after its snapshot, deltas only, and small ones.
  assert.ok(frames.length > 0 && frames.every((f) => f.url.includes('/ws/v2/rooms/')));
  const parsed = frames.map((f) => ({ size: f.text.length, frame: JSON.parse(f.text) }));
  assert.equal(parsed.filter((f) => f.frame.type === 'snapshot').length, 1);
  assert.ok(parsed.some((f) => f.frame.type === 'delta'));
  assert.ok(parsed.every((f) => f.frame.v === 2 && f.frame.type !== 'state'));
  for (const page of [alice, carol]) assert.deepEqual(page.errors, []);
});
