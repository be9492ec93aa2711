// One whole game against each computer opponent through the web client: the player as the
// Fugitive against the hard computer Marshal, and as the Marshal (with the notepad assist) against
// the hard computer Fugitive. The computer moves by itself after its pause (30 ms here).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  openTable,
  closeTable,
  newPlayer,
  acting,
  draw,
  place,
  guess,
  shot,
  createComputerRoom,
  nextMove,
  openOptions,
} from './harness.mjs';
import { plan, deckFor } from './planner.mjs';

let server;
let browser;

before(async () => {
  process.env.FUGITIVE_BOT_PAUSE = '30ms';
  ({ server, browser } = await openTable());
});
after(() => closeTable({ server, browser }));

const deckSizes = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [1, 2, 3].map((d) => [d, Number(document.querySelector(`[data-testid=deck-size-${d}]`).dataset.size)]),
    ),
  );

/// Percentages of the notepad assist drawn outside their number's button, as big as a panel, or
/// reading 0 % on a live candidate.
const strayShares = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-share] > span')].flatMap((span) => {
      const [box, outer] = [span.getBoundingClientRect(), span.parentElement.getBoundingClientRect()];
      const inside =
        box.left >= outer.left - 0.5 &&
        box.right <= outer.right + 0.5 &&
        box.top >= outer.top - 0.5 &&
        box.bottom <= outer.bottom + 0.5;
      const problems = [];
      if (!inside) problems.push(`${span.textContent} spills out of ${span.parentElement.dataset.testid}`);
      if (getComputedStyle(span).backgroundColor !== 'rgba(0, 0, 0, 0)')
        problems.push(`${span.textContent} on a panel`);
      if (/^0\s*%$/.test(span.textContent.trim())) problems.push(`${span.parentElement.dataset.testid} reads 0%`);
      return problems;
    }),
  );

/// Creates a room against the computer from the landing page and opens the table.
async function playComputer(page, role, level, assist) {
  // One click from the landing page to the table: nobody to invite.
  await createComputerRoom(page, server.url, role, { level, assist });
  assert.equal(await page.getByTestId('link-invite').count(), 0, 'no invitation: the computer has the seat');
  assert.equal(await page.getByTestId('opponent-away').count(), 0, 'the computer is at the table');
}

test('the level select offers every level with its ratings from the server, in each language', async () => {
  const { levels } = await (await fetch(`${server.url}/api/levels`)).json();
  assert.deepEqual(
    levels.map((l) => l.level),
    ['random', 'easy', 'medium', 'hard'],
  );
  const expected = {
    'en-US': (l) => `about ${l.ratings.marshal} as the Marshal, ${l.ratings.fugitive} as the Fugitive`,
    'de-DE': (l) => `etwa ${l.ratings.marshal} als Polizeichefin, ${l.ratings.fugitive} als Flüchtender`,
    'fr-FR': (l) => `environ ${l.ratings.marshal} en Marshall, ${l.ratings.fugitive} en Fugitif`,
  };
  for (const [locale, rating] of Object.entries(expected)) {
    const page = await newPlayer(browser, { locale });
    await page.goto(server.url);
    await openOptions(page);
    const select = page.getByTestId('level');
    // The ratings arrive after the page: wait for the server's list, not for a time.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=level] option').length === 4);
    const options = await select.locator('option').evaluateAll((els) => els.map((e) => [e.value, e.textContent]));
    assert.deepEqual(
      options.map(([value]) => value),
      levels.map((l) => l.level),
    );
    for (const [i, [, text]] of options.entries()) {
      assert.ok(text.endsWith(rating(levels[i])), `${locale}: ${text}`);
    }
    if (locale === 'en-US') {
      assert.ok(options[3][1].startsWith('Expert — '), options[3][1]);
      await shot(page, 'computer-levels');
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('a whole game as the Fugitive against the computer Marshal', async () => {
  const page = await newPlayer(browser);
  await playComputer(page, 'fugitive', 'hard', false);
  let table;
  for (let moves = 0; moves < 300; moves += 1) {
    table = await nextMove(page);
    if (table.phase === 'over') break;
    const last = table.trail.at(-1).card;
    if (table.phase === 'draw') {
      await draw(page, deckFor(last, await deckSizes(page)));
    } else if (table.phase === 'opening' && table.trail.length > 1) {
      await acting(page, () => page.getByTestId('end-turn').click());
    } else {
      const move = plan(table.hand, last, { no42: table.phase === 'opening' });
      if (move) await place(page, move.hideout, move.sprints);
      else await acting(page, () => page.getByTestId('pass').click());
    }
  }
  assert.equal(table.phase, 'over', 'the game ended');
  assert.ok(['fugitive', 'marshal'].includes(table.winner), `a winner: ${table.winner}`);
  assert.equal(await page.locator('[data-share]').count(), 0, 'the Fugitive has no notepad');
  await shot(page, 'computer-marshal-over');
  assert.deepEqual(page.errors, []);
});

test('a whole game as the Marshal, with the notepad assist, against the computer Fugitive', async () => {
  const page = await newPlayer(browser);
  await playComputer(page, 'marshal', 'hard', true);
  let table;
  let assisted = 0;
  for (let moves = 0; moves < 300; moves += 1) {
    table = await nextMove(page);
    if (table.phase === 'over') break;
    if (table.phase === 'draw') {
      const sizes = await deckSizes(page);
      await draw(
        page,
        [1, 2, 3].find((d) => sizes[d] > 0),
      );
      continue;
    }
    // Guess the number the assist rates most likely to be a hideout.
    const shares = await page.evaluate(() =>
      [...document.querySelectorAll('[data-share]')].map((el) => [
        Number(el.dataset.testid.slice('number-'.length)),
        Number(el.dataset.share),
      ]),
    );
    const hidden = table.trail.filter((p) => !p.faceUp).length;
    assert.ok(shares.length > 0 || hidden === 0, 'the assist shows candidates for the face-down hideouts');
    if (shares.length) assisted += 1;
    if (assisted === 1) {
      await shot(page, 'computer-fugitive-assist');
      assert.deepEqual(await strayShares(page), [], 'each percentage sits inside its number (issue 9, defect 5)');
    }
    const [best] = shares.sort((a, b) => b[1] - a[1])[0] ?? [1];
    await guess(page, [best]);
  }
  assert.equal(table.phase, 'over', 'the game ended');
  assert.ok(['fugitive', 'marshal'].includes(table.winner), `a winner: ${table.winner}`);
  assert.ok(assisted > 0, 'the assist was shown');
  await shot(page, 'computer-fugitive-over');
  assert.deepEqual(page.errors, []);
});
