// The Marshal's guess board, her notebook per trail position and her own marks. In the "guess"
// mode, picking numbers and pressing Guess sends one guess (in the Manhunt one number at a time);
// the other modes mark numbers ("ruled out", "suspect"), kept in localStorage per room and game.
// What is allowed comes from the server's `legal`; what each face-down hideout can be, and why a
// number cannot be any, from the server's `state.candidates` (the public rules alone, issue 23)
// and, with the notepad assist, its deduction (`state.notepad`). Nothing here works out a rule:
// a client that did once told her a number guessed wrong before it was placed was impossible.

import { h } from './dom.js';
import { t, list } from './i18n.js';
import { local } from './storage.js';

const MARKS = ['out', 'suspect'];

const marksKey = (room, game) => `fugitive:notes:${room}:${game}`;

export function loadMarks(room, game) {
  const stored = local.getJson(marksKey(room, game), {});
  return Object.fromEntries(Object.entries(stored).filter(([, mark]) => MARKS.includes(mark)));
}

/// Storage full or disabled: the marks last as long as the page.
export function saveMarks(room, game, marks) {
  local.setJson(marksKey(room, game), marks);
}

/// How the board marks a number each reason of `candidates.ruled_out` names (`why`).
const RULED_OUT = { revealed: 'revealed', sprint: 'sprint', held: 'held', guessed: 'wrong', trail: 'impossible' };

/// What the server says about each number: `candidates` (`state.candidates`, what each face-down
/// hideout can be by the public rules alone) and, with the notepad assist, `notepad`. `why`: the
/// reason each number no hideout can be is ruled out.
export function knowledge(candidates, notepad) {
  const why = new Map();
  for (const [reason, numbers] of Object.entries(candidates?.ruled_out ?? {})) {
    for (const n of numbers) why.set(n, reason);
  }
  const shares = assistShares(notepad);
  const assisted = Boolean(notepad && notepad.trails);
  return { why, doubtful: new Set(candidates?.doubtful ?? []), shares, assisted };
}

/// The board's mark of `n`: why it is ruled out, or out by the notepad's exact count, or doubtful.
function fact(k, n) {
  const why = k.why.get(n);
  if (why) return RULED_OUT[why];
  if (k.assisted && !k.shares.has(n)) return 'impossible';
  return k.doubtful.has(n) ? 'doubtful' : null;
}

/// The notepad assist (room option `notepad_assist`): for each number, the share of the trails
/// consistent with everything the Marshal has seen on which it is a face-down hideout (at any
/// position: a trail puts a number at one position at most, so this never passes 100 %).
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

/// The numbers the face-down hideout at `position` can still be, each with its share of that
/// position (`share` is null without the notepad assist): the notepad's with the assist, else
/// the server's public candidates.
export function positionCandidates(candidates, notepad, position) {
  if (notepad && notepad.trails) {
    const entry = notepad.positions.find((p) => p.position === position);
    return (entry?.candidates ?? [])
      .map(({ number, trails }) => ({ number, share: trails / notepad.trails }))
      .sort((a, b) => b.share - a.share || a.number - b.number);
  }
  const entry = candidates?.positions.find((p) => p.position === position);
  return (entry?.numbers ?? []).map((number) => ({ number, share: null }));
}

/// Why a guess of `numbers` cannot be right, in sentences (empty when it can be): only what the
/// server's sets say, each in the words of its reason.
export function guessWarnings(candidates, notepad, numbers) {
  const k = knowledge(candidates, notepad);
  const reasons = [];
  for (const n of numbers) {
    const why = k.why.get(n);
    if (why) reasons.push(t(`warn.${why}`, { n }));
    else if (k.assisted && !k.shares.has(n)) reasons.push(t('warn.impossible', { n }));
  }
  return reasons;
}

/// `notes`: { mode, selected: Set, marks: {n: mark}, candidates, assist, inspected },
/// `candidates` being the server's public sets (`state.candidates`), `assist` its deduction
/// (`state.notepad`) when the room has the notepad assist and `inspected` the position open in
/// the notebook (its shares replace the board's). `on`: { pick(n), mode(m) }.
export function renderBoard(view, legal, notes, on) {
  const k = knowledge(notes.candidates, notes.assist);
  const focus =
    k.assisted && notes.inspected !== null && notes.inspected !== undefined
      ? new Map(positionCandidates(notes.candidates, notes.assist, notes.inspected).map((c) => [c.number, c.share]))
      : null;
  const guessing = legal?.guess ?? null;
  const allowed = new Set(guessing?.numbers ?? []);
  const numbers = [];
  for (let n = 1; n <= 41; n += 1) {
    const mark = fact(k, n);
    const states = [mark, notes.marks[n] ?? null, notes.selected.has(n) ? 'selected' : null].filter(Boolean);
    const share = k.shares.get(n);
    // With a position open in the notebook, the board shows that position's shares.
    const shown = focus ? (focus.get(n) ?? null) : (share ?? null);
    const percent = shown ? percentText(shown) : null;
    const words = states.filter((s) => s !== 'selected').map((s) => t(`board.state.${s}`));
    if (shown)
      words.push(focus ? t('board.assistAt', { percent, n: notes.inspected }) : t('board.assist', { percent }));
    const inGuess = notes.mode === 'guess';
    numbers.push(
      h(
        'button',
        {
          class: ['number', ...states, share ? 'candidate' : null],
          'data-testid': `number-${n}`,
          'data-share': share ?? null,
          'aria-pressed': inGuess ? notes.selected.has(n) : Boolean(notes.marks[n]),
          disabled: mark === 'revealed' || (inGuess && (!guessing || !allowed.has(n))),
          onclick: () => on.pick(n),
        },
        n,
        shown ? h('span', { class: 'odds', 'aria-hidden': 'true' }, `${percent}%`) : null,
        words.length ? h('span', { class: 'visually-hidden' }, `, ${words.join(', ')}`) : null,
      ),
    );
  }
  const manhunt = view.phase.phase === 'manhunt';
  const legend = ['held', 'revealed', 'sprint', 'wrong', 'impossible', 'doubtful', 'out', 'suspect'];
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
    k.assisted
      ? h(
          'p',
          { class: 'odds-note', 'data-testid': 'odds-note' },
          focus ? t('board.oddsAt', { n: notes.inspected }) : t('board.oddsAny'),
        )
      : null,
    h(
      'p',
      { class: 'legend' },
      legend.map((s) =>
        h('span', { class: ['key', s] }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), t(`board.state.${s}`)),
      ),
    ),
  );
}

/// The Guess button and, when the chosen numbers cannot all be hideouts, the warning that asks
/// first. `on`: { guess(force), clear(), back() }.
export function renderGuessAction(view, legal, notes, on) {
  const guessing = legal?.guess ?? null;
  if (!guessing) return null;
  const chosen = [...notes.selected].sort((a, b) => a - b);
  const manhunt = view.phase.phase === 'manhunt';
  if (notes.warning) {
    return h(
      'section',
      { class: 'guess-warning', 'data-testid': 'guess-warning', role: 'alert', 'aria-labelledby': 'warning-title' },
      h('h2', { id: 'warning-title' }, t('warn.title', { numbers: list(chosen) })),
      h(
        'ul',
        {},
        notes.warning.map((reason) => h('li', {}, reason)),
      ),
      h(
        'div',
        { class: 'buttons' },
        h('button', { class: 'primary', 'data-testid': 'guess-back', onclick: on.back }, t('warn.back')),
        h(
          'button',
          { class: 'danger', 'data-testid': 'guess-anyway', onclick: () => on.guess(true) },
          t('warn.anyway'),
        ),
      ),
    );
  }
  return h(
    'div',
    { class: 'buttons' },
    h(
      'button',
      { class: 'primary big', 'data-testid': 'guess', disabled: chosen.length === 0, onclick: () => on.guess(false) },
      chosen.length ? t('board.guess', { numbers: list(chosen) }) : t(manhunt ? 'board.pickOne' : 'board.pick'),
    ),
    chosen.length ? h('button', { 'data-testid': 'clear-guess', onclick: on.clear }, t('board.clear')) : null,
  );
}

/// The notebook for one face-down position: the numbers it can still be (with the notepad
/// assist, each with its share of that position); a tap adds one to the guess.
export function renderNotebook(view, legal, notes, position, on) {
  if (position === null || position === undefined) return null;
  const pos = view.trail[position];
  if (!pos || pos.face_up || view.outcome) return null;
  const candidates = positionCandidates(notes.candidates, notes.assist, position);
  const allowed = new Set(legal?.guess?.numbers ?? []);
  return h(
    'section',
    { class: 'notebook', id: 'notebook', 'data-testid': 'notebook', 'aria-labelledby': 'notebook-title' },
    h(
      'div',
      { class: 'notebook-head' },
      h('h2', { id: 'notebook-title' }, t('notebook.title', { n: position })),
      h('button', { class: 'quiet', 'data-testid': 'notebook-close', onclick: on.close }, t('notebook.close')),
    ),
    h('p', { class: 'help' }, notes.assist && notes.assist.trails ? t('notebook.assistHelp') : t('notebook.plainHelp')),
    candidates.length
      ? h(
          'ul',
          { class: 'candidates', 'data-testid': 'candidates' },
          candidates.map(({ number, share }) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  class: ['candidate-number', notes.selected.has(number) ? 'selected' : null],
                  'data-testid': `candidate-${number}`,
                  'data-number': number,
                  'data-position-share': share,
                  'aria-pressed': notes.selected.has(number),
                  disabled: !allowed.has(number),
                  onclick: () => on.pick(number),
                },
                h('span', { class: 'cand-num' }, number),
                share === null ? null : h('span', { class: 'cand-share' }, `${percentText(share)}%`),
                share === null
                  ? null
                  : h('span', { class: 'cand-bar', 'aria-hidden': 'true', 'data-width': Math.round(share * 10) }),
              ),
            ),
          ),
        )
      : h('p', { class: 'empty' }, t('notebook.none')),
  );
}

/// A click on a number: select it for the guess (one only in the Manhunt) or cycle a mark.
export function pickNumber(notes, n, single) {
  notes.warning = null;
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
