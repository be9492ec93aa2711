// Issue 26: the guided first game, walked through in English, German and French. It is reached
// from the landing page and from How to play; the server deals the tutorial's fixed deal and its
// computer Marshal plays it the same way every time, so these moves (the same as
// crates/fugitive-server/tests/it/tutorial.rs) meet every step the panel explains: the first hideout
// on a sprint card, a draw, a pass, the Marshal's multi-number guess, the Manhunt, the end.
// Axe-clean at the start and at the end.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, checkAxe, shot, nextMove, acting, draw, place } from './harness.mjs';

const MOVES = [
  { type: 'place', hideout: 5, sprints: [2] },
  { type: 'end_turn' },
  { type: 'draw', deck: 1 },
  { type: 'place', hideout: 10, sprints: [4] },
  { type: 'draw', deck: 1 },
  { type: 'pass' },
  { type: 'draw', deck: 1 },
  { type: 'place', hideout: 14, sprints: [1] },
  { type: 'draw', deck: 2 },
  { type: 'place', hideout: 18, sprints: [3] },
  { type: 'draw', deck: 2 },
  { type: 'place', hideout: 23, sprints: [20] },
  { type: 'draw', deck: 2 },
  { type: 'place', hideout: 27, sprints: [7] },
  { type: 'draw', deck: 3 },
  { type: 'place', hideout: 31, sprints: [13] },
  { type: 'draw', deck: 3 },
  { type: 'place', hideout: 34, sprints: [] },
  { type: 'draw', deck: 3 },
  { type: 'place', hideout: 38, sprints: [15] },
  { type: 'draw', deck: 3 },
  { type: 'place', hideout: 42, sprints: [40] },
];

let server;
let browser;

// The computer moves 30 ms after each move: what the panel says between two moves is seen by
// `recordPanel`, not read within a pause long enough for the test to look.
before(async () => ({ server, browser } = await openTable(['--bot-pause', '30ms'])));
after(() => closeTable({ server, browser }));

/// What the tutorial's panel says now.
async function panel(page) {
  const tutorial = page.getByTestId('tutorial');
  await tutorial.waitFor();
  const note = page.getByTestId('tutorial-note');
  return {
    step: await tutorial.getAttribute('data-step'),
    note: (await note.count()) ? await note.getAttribute('data-note') : null,
    text: await tutorial.textContent(),
  };
}

/// Records each state of the panel the page draws, in order (`window.__panel`): what it said of
/// his own move before the computer's next one, and the Manhunt's step however soon it ends.
function recordPanel(page) {
  return page.addInitScript(() => {
    const shown = (window.__panel = []);
    new MutationObserver(() => {
      const tutorial = document.querySelector('[data-testid=tutorial]');
      if (!tutorial) return;
      const now = {
        step: tutorial.dataset.step,
        note: tutorial.querySelector('[data-testid=tutorial-note]')?.dataset.note ?? null,
        text: tutorial.textContent,
      };
      const last = shown.at(-1);
      if (!last || last.step !== now.step || last.note !== now.note || last.text !== now.text) shown.push(now);
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

async function move(page, m) {
  if (m.type === 'place') await place(page, m.hideout, m.sprints);
  else if (m.type === 'draw') await draw(page, m.deck);
  else await acting(page, () => page.getByTestId(m.type === 'pass' ? 'pass' : 'end-turn').click());
}

for (const [locale, lang, via] of [
  ['en-US', 'en', 'landing'],
  ['de-DE', 'de', 'howto'],
  ['fr-FR', 'fr', 'landing'],
]) {
  test(`the guided first game, walked through in ${lang} (from the ${via})`, async () => {
    const page = await newPlayer(browser, { locale });
    await recordPanel(page);
    await page.goto(server.url);
    if (via === 'howto') {
      // The header's button is in the page the server draws, before its script listens to it:
      // the script's own landing page says it does.
      await page.getByTestId('to-tutorial').waitFor();
      await page.getByTestId('howto-open').click();
      await page.getByTestId('howto-tutorial').click();
    } else {
      await page.getByTestId('to-tutorial').click();
    }
    await page.getByTestId('room').waitFor();
    assert.equal(new URL(page.url()).pathname, '/tutorial');
    assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
    const steps = [];
    const notes = [];
    for (const m of MOVES) {
      await nextMove(page);
      const now = await panel(page);
      // Every explanation is a filled-in sentence of the page's language, never a key.
      assert.doesNotMatch(now.text, /tutorial\.|\{/);
      if (steps.at(-1) !== now.step) steps.push(now.step);
      if (now.note && notes.at(-1) !== now.note) notes.push(now.note);
      if (steps.length === 1) await checkAxe(page, `the tutorial's first step, ${lang}`);
      await move(page, m);
    }
    await page.locator('[data-testid=tutorial][data-step=won]').waitFor();
    // Every state the panel showed, what it said of his own moves and the Manhunt included.
    for (const shown of await page.evaluate(() => window.__panel)) {
      assert.doesNotMatch(shown.text, /tutorial\.|\{/);
      if (steps.at(-1) !== shown.step) steps.push(shown.step);
      if (shown.note && notes.at(-1) !== shown.note) notes.push(shown.note);
    }
    for (const step of ['opening', 'openingMore', 'draw', 'placeOrPass', 'manhunt', 'won']) {
      assert.ok(steps.includes(step), `${step} in ${steps}`);
    }
    for (const note of ['sprints', 'passed', 'multiGuess', 'guessWrong']) {
      assert.ok(notes.includes(note), `${note} in ${notes}`);
    }
    await checkAxe(page, `the tutorial's end, ${lang}`);
    await shot(page, `tutorial-${lang}`);
    await page.getByTestId('tutorial-done').waitFor();
    assert.deepEqual(page.errors, []);
  });
}
