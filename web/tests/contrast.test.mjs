// The colours of style.css pass WCAG AA: 4.5:1 for text on the backgrounds it is drawn on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { contrast } from './colours.mjs';

const css = await readFile(new URL('../style.css', import.meta.url), 'utf8');
const vars = Object.fromEntries([...css.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})/g)].map((m) => [m[1], m[2]]));

// [text, background] pairs as the stylesheet uses them.
const PAIRS = [
  ...['text', 'muted', 'fugitive', 'marshal', 'ok', 'no', 'focus', 'recent'].flatMap((fg) =>
    ['bg', 'panel', 'panel-2'].map((bg) => [fg, bg]),
  ),
  ['paper-ink', 'paper'],
  ['paper-ink', 'secret'],
  ['back-ink', 'back'],
  ['primary-ink', 'primary'],
];

// Colours written out in the stylesheet rather than as variables.
const LITERAL = [
  ['#5b4a2c', '#f3ede2'], // a card's sprint value on paper
  ['#5b4a2c', '#d8ccb6'], // … on the Fugitive's face-down card
  ['#cfead5', '#1d3321'], // a number the Marshal holds
  ['#1c1a17', '#ffd75e'], // a number picked for the guess
  ['#ffffff', '#8f2a22'], // the resign button
  ['#f7d9ad', '#23211d'], // a placement in the history
  ['#ebe7df', '#3b1714'], // the Manhunt note
  ['#ff8f85', '#3b1714'], // its title
  ['#ebe7df', '#3a362f'], // a hovered deck, the chosen mode
];

test('colours written out in the stylesheet reach 4.5:1', () => {
  for (const [fg] of LITERAL) assert.ok(css.toLowerCase().includes(fg), `${fg} is still used`);
  const failing = LITERAL.map(([fg, bg]) => [fg, bg, contrast(fg, bg)]).filter(([, , ratio]) => !(ratio >= 4.5));
  assert.deepEqual(failing, []);
});

test('text colours reach 4.5:1 on their backgrounds (WCAG AA)', () => {
  const failing = PAIRS.map(([fg, bg]) => [fg, bg, contrast(vars[fg], vars[bg])]).filter(
    ([, , ratio]) => !(ratio >= 4.5),
  );
  assert.deepEqual(failing, []);
});

// Marks that are not text (WCAG 1.4.11, 3:1 against what they sit on): "you can draw here", the
// drawable deck's --ok border on the deck (--panel-2); the last move's --recent ring, around the
// deck and the trail's cards, on the page and on the trail (--bg, --panel). Two meanings, two
// colours.
const MARKS = [
  ['ok', 'panel-2'],
  ['ok', 'bg'],
  ['recent', 'bg'],
  ['recent', 'panel'],
];

test('the marks of the table reach 3:1, and "you can draw here" is not the last move\'s colour', () => {
  const failing = MARKS.map(([mark, bg]) => [mark, bg, contrast(vars[mark], vars[bg])]).filter(
    ([, , ratio]) => !(ratio >= 3),
  );
  assert.deepEqual(failing, []);
  assert.notEqual(vars.ok.toLowerCase(), vars.recent.toLowerCase());
  assert.match(css, /\.deck\.drawable \{[^}]*var\(--ok\)/);
  assert.match(css, /\.deck\.recent \{[^}]*var\(--recent\)/);
});
