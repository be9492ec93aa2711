// Issue 26: puzzles. The server loads the puzzles `fugitive-sim --puzzles` wrote
// (`puzzles/puzzles.jsonl`); a player reaches `/puzzles` from the landing page, solves one and
// fails the next, each answer checked by the server and explained; in three languages, axe-clean.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openTable, closeTable, newPlayer, checkAxe, shot } from './harness.mjs';

const FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../puzzles/puzzles.jsonl');

let server;
let browser;
let known;

before(async () => {
  ({ server, browser } = await openTable(['--puzzles', FILE]));
  // The file holds the answers; the page is never told them before an attempt.
  known = (await readFile(FILE, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
});
after(() => closeTable({ server, browser }));

/// Opens the next puzzle (by `open`, a click or a visit) and finds it in the file: its theme,
/// role, legal actions and answer.
async function nextPuzzle(page, open) {
  const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/puzzles/next')), open()]);
  const shown = await response.json();
  await page.getByTestId('puzzle').waitFor();
  assert.equal(shown.answer, undefined);
  const stored = known.find((p) => p.theme === shown.theme && isDeepStrictEqual(p.view, shown.view));
  assert.ok(stored, 'the puzzle shown is one of the file');
  return { ...shown, answer: stored.answer };
}

/// Picks `numbers` the way a player does: numbers on the Marshal's board, a card of the
/// Fugitive's hand.
async function pick(page, puzzle, numbers) {
  for (const n of numbers) {
    await page.getByTestId(puzzle.role === 'marshal' ? `number-${n}` : `hand-${n}`).click();
  }
}

/// A wrong answer the rules allow: a guess of numbers she may name, or a card he may place.
function wrongAnswer(puzzle) {
  if (puzzle.role === 'fugitive') {
    return [puzzle.legal.placements.map((p) => p.hideout).find((c) => !puzzle.answer.includes(c))];
  }
  if (puzzle.theme === 'finds_all') return [puzzle.answer[0]];
  return [puzzle.legal.guess.numbers.find((n) => !puzzle.answer.includes(n))];
}

test('a puzzle is solved, the next one failed, each explained', async () => {
  const page = await newPlayer(browser);
  await page.goto(server.url);
  const first = await nextPuzzle(page, () => page.getByTestId('to-puzzles').click());
  assert.equal(new URL(page.url()).pathname, '/puzzles');
  await checkAxe(page, 'a puzzle');
  await pick(page, first, first.answer);
  await page.getByTestId('puzzle-answer').click();
  const result = page.getByTestId('puzzle-result');
  await result.waitFor();
  assert.equal(await result.getAttribute('data-solved'), 'true');
  assert.match(await page.getByTestId('puzzle-why').textContent(), new RegExp(first.answer.join('|')));
  assert.match(await page.getByTestId('puzzle-rating').textContent(), /^Puzzle rating [0-9]+/);
  await checkAxe(page, 'a puzzle solved');
  await shot(page, 'puzzle-solved');

  const second = await nextPuzzle(page, () => page.getByTestId('puzzle-next').click());
  await pick(page, second, wrongAnswer(second));
  await page.getByTestId('puzzle-answer').click();
  await page.getByTestId('puzzle-result').waitFor();
  assert.equal(await page.getByTestId('puzzle-result').getAttribute('data-solved'), 'false');
  assert.equal(await page.getByTestId('puzzle-result').locator('h2').textContent(), 'Not this time.');
  // The explanation names the answer the player missed.
  const why = await page.getByTestId('puzzle-why').textContent();
  for (const n of second.answer) assert.match(why, new RegExp(`\\b${n}\\b`));
  await checkAxe(page, 'a puzzle failed');
  assert.deepEqual(page.errors, []);
});

for (const [locale, solved] of [
  ['de-DE', 'Gelöst!'],
  ['fr-FR', 'Résolue !'],
]) {
  test(`a puzzle is solved in ${locale}, axe-clean`, async () => {
    const page = await newPlayer(browser, { locale });
    const puzzle = await nextPuzzle(page, () => page.goto(`${server.url}/puzzles`));
    await checkAxe(page, `a puzzle ${locale}`);
    await pick(page, puzzle, puzzle.answer);
    await page.getByTestId('puzzle-answer').click();
    await page.getByTestId('puzzle-result').waitFor();
    assert.equal(await page.getByTestId('puzzle-result').locator('h2').textContent(), solved);
    await checkAxe(page, `a puzzle solved ${locale}`);
    assert.deepEqual(page.errors, []);
  });
}
