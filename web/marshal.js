// The Marshal's guess board, which is also her notepad: numbers 1–41 showing what she holds,
// what is revealed, what was guessed wrong, and her own marks ("ruled out", "suspect"), kept in
// localStorage per room and game. Picking numbers and pressing Guess sends one guess; in the
// Manhunt only one number at a time.

import { h } from './dom.js';
import { t, list } from './i18n.js';

const MARKS = ['out', 'suspect'];

export function loadMarks(room, game) {
  try {
    const stored = JSON.parse(localStorage.getItem(`fugitive:notes:${room}:${game}`) ?? '{}');
    return Object.fromEntries(Object.entries(stored).filter(([, mark]) => MARKS.includes(mark)));
  } catch {
    return {};
  }
}

export function saveMarks(room, game, marks) {
  try {
    localStorage.setItem(`fugitive:notes:${room}:${game}`, JSON.stringify(marks));
  } catch {
    // Storage full or disabled: the marks last as long as the page.
  }
}

/// What the public record says about each number.
function knowledge(view) {
  const held = new Set(view.hands.marshal.cards ?? []);
  const revealed = new Set(view.trail.filter((p) => p.face_up).map((p) => p.card));
  const wrong = new Set();
  const doubtful = new Set();
  for (const event of view.history) {
    if (event.type !== 'guessed' || event.right) continue;
    const target = event.numbers.length === 1 ? wrong : doubtful;
    for (const n of event.numbers) target.add(n);
  }
  return { held, revealed, wrong, doubtful };
}

/// The notepad assist (room option `notepad_assist`): for each number, the share of the trails
/// consistent with everything the Marshal has seen on which it is a face-down hideout.
export function assistShares(notepad) {
  const shares = new Map();
  if (!notepad || !notepad.trails) return shares;
  for (const position of notepad.positions) {
    for (const { number, trails } of position.candidates) {
      shares.set(number, (shares.get(number) ?? 0) + trails / notepad.trails);
    }
  }
  return shares;
}

/// A share as a whole percentage; a live candidate never reads 0 %.
export function percentText(share) {
  const percent = Math.round(share * 100);
  return percent === 0 ? '<1' : String(percent);
}

/// `notes`: { mode, selected: Set, marks: {n: mark}, assist }, `assist` being the server's
/// deduction (`state.notepad`) when the room has the notepad assist. `on`: { pick(n), mode(m),
/// guess(), clear() }.
export function renderBoard(view, legal, notes, on) {
  const { held, revealed, wrong, doubtful } = knowledge(view);
  const shares = assistShares(notes.assist);
  const guessing = legal?.guess ?? null;
  const numbers = [];
  for (let n = 1; n <= 41; n += 1) {
    const states = [
      held.has(n) ? 'held' : null,
      revealed.has(n) ? 'revealed' : null,
      wrong.has(n) ? 'wrong' : doubtful.has(n) ? 'doubtful' : null,
      notes.marks[n] ?? null,
      notes.selected.has(n) ? 'selected' : null,
    ].filter(Boolean);
    const words = states.filter((s) => s !== 'selected').map((s) => t(`board.state.${s}`));
    const share = shares.get(n);
    const percent = share ? percentText(share) : null;
    if (share) words.push(t('board.assist', { percent }));
    numbers.push(
      h(
        'button',
        {
          class: ['number', ...states, share ? 'candidate' : null],
          'data-testid': `number-${n}`,
          'data-share': share ?? null,
          'aria-pressed': notes.mode === 'guess' ? notes.selected.has(n) : Boolean(notes.marks[n]),
          'aria-label': words.length ? `${n}, ${words.join(', ')}` : String(n),
          disabled: revealed.has(n) || (notes.mode === 'guess' && !guessing),
          onclick: () => on.pick(n),
        },
        n,
        share ? h('span', { class: 'odds', 'aria-hidden': 'true' }, `${percent}%`) : null,
      ),
    );
  }
  const chosen = [...notes.selected].sort((a, b) => a - b);
  const manhunt = view.phase.phase === 'manhunt';
  return h(
    'section',
    { class: ['board', manhunt ? 'manhunt' : null], 'aria-labelledby': 'board-title' },
    h('h2', { id: 'board-title' }, t('board.title')),
    h(
      'div',
      { class: 'modes', role: 'radiogroup', 'aria-labelledby': 'modes-label' },
      h('span', { id: 'modes-label', class: 'modes-label' }, t('board.modeLabel')),
      ['guess', ...MARKS].map((mode) =>
        h(
          'button',
          {
            role: 'radio',
            'aria-checked': notes.mode === mode,
            class: ['mode', mode, notes.mode === mode ? 'on' : null],
            'data-testid': `mode-${mode}`,
            onclick: () => on.mode(mode),
          },
          t(`board.mode.${mode}`),
        ),
      ),
    ),
    h('div', { class: 'numbers', 'data-testid': 'board' }, numbers),
    h(
      'p',
      { class: 'legend' },
      ['held', 'revealed', 'wrong', 'doubtful', 'out', 'suspect'].map((s) =>
        h('span', { class: ['key', s] }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), t(`board.state.${s}`)),
      ),
    ),
    guessing
      ? h(
          'div',
          { class: 'buttons' },
          h(
            'button',
            { class: 'primary', 'data-testid': 'guess', disabled: chosen.length === 0, onclick: on.guess },
            chosen.length ? t('board.guess', { numbers: list(chosen) }) : t(manhunt ? 'board.pickOne' : 'board.pick'),
          ),
          chosen.length ? h('button', { 'data-testid': 'clear-guess', onclick: on.clear }, t('board.clear')) : null,
        )
      : null,
  );
}

/// A click on a number: select it for the guess (one only in the Manhunt) or cycle a mark.
export function pickNumber(notes, n, single) {
  if (notes.mode === 'guess') {
    if (notes.selected.has(n)) notes.selected.delete(n);
    else {
      if (single) notes.selected.clear();
      notes.selected.add(n);
    }
    return false;
  }
  if (notes.marks[n] === notes.mode) delete notes.marks[n];
  else notes.marks[n] = notes.mode;
  return true;
}

/// The Marshal's hand, shown as cards.
export function renderMarshalHand(view, cardFace) {
  const cards = view.hands.marshal.cards ?? [];
  return h(
    'section',
    { class: 'hand', 'aria-labelledby': 'hand-title' },
    h('h2', { id: 'hand-title' }, t('hand.yours', { n: cards.length })),
    h(
      'ul',
      { class: 'hand-cards', 'data-testid': 'hand' },
      cards.length
        ? cards.map((card) => h('li', { 'data-testid': `hand-${card}` }, cardFace(card)))
        : h('li', { class: 'empty' }, t('hand.empty')),
    ),
  );
}
