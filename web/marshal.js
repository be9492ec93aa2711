// The Marshal's guess board, her notebook per trail position and her own marks. In the "guess"
// mode, picking numbers and pressing Guess sends one guess (in the Manhunt one number at a time);
// the other modes mark numbers ("ruled out", "suspect"), kept in localStorage per room and game.
// What is allowed comes from the server's `legal`; what the public record already says about a
// number (in her hand, face up, guessed alone and wrong) and, with the notepad assist, the
// server's deduction (`state.notepad`) are only shown, never turned into rules here.

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

/// What the public record and the notepad say about each number.
export function knowledge(view, notepad) {
  const held = new Set(view.hands.marshal.cards ?? []);
  const revealed = new Set(view.trail.filter((p) => p.face_up).map((p) => p.card));
  // Sprint cards whose numbers are shown on the trail (under found hideouts, or by an event).
  const sprintsShown = new Set(view.trail.flatMap((p) => p.sprints ?? []));
  const wrong = new Set();
  const doubtful = new Set();
  for (const event of view.history) {
    if (event.type !== 'guessed' || event.right) continue;
    if (event.numbers.length === 1) wrong.add(event.numbers[0]);
  }
  for (const event of view.history) {
    if (event.type !== 'guessed' || event.right || event.numbers.length === 1) continue;
    for (const n of event.numbers) if (!wrong.has(n)) doubtful.add(n);
  }
  const shares = assistShares(notepad);
  const assisted = Boolean(notepad && notepad.trails);
  const impossible = new Set();
  for (let n = 1; n <= 41; n += 1) {
    if (revealed.has(n)) continue;
    if (held.has(n) || sprintsShown.has(n) || wrong.has(n) || (assisted && !shares.has(n))) impossible.add(n);
  }
  return { held, revealed, sprintsShown, wrong, doubtful, shares, assisted, impossible };
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
/// position (`share` is null without the notepad assist). With the assist they are the server's
/// candidates; without it, the numbers between the face-up cards around it that the public
/// record has not excluded.
export function positionCandidates(view, notepad, position) {
  if (notepad && notepad.trails) {
    const entry = notepad.positions.find((p) => p.position === position);
    return (entry?.candidates ?? [])
      .map(({ number, trails }) => ({ number, share: trails / notepad.trails }))
      .sort((a, b) => b.share - a.share || a.number - b.number);
  }
  const { impossible, revealed } = knowledge(view, null);
  const trail = view.trail;
  let low = 0;
  for (let i = position - 1; i >= 0; i -= 1) {
    if (trail[i].card !== null && trail[i].card !== undefined) {
      low = trail[i].card + (position - i);
      break;
    }
  }
  // The trail climbs: every face-down card after it needs a higher number (41 at most).
  let high = 41 - (trail.length - 1 - position);
  for (let i = position + 1; i < trail.length; i += 1) {
    if (trail[i].card !== null && trail[i].card !== undefined) {
      high = Math.min(41, trail[i].card - (i - position));
      break;
    }
  }
  const numbers = [];
  for (let n = Math.max(1, low); n <= high; n += 1) if (!impossible.has(n) && !revealed.has(n)) numbers.push(n);
  return numbers.map((number) => ({ number, share: null }));
}

/// Why a guess of `numbers` cannot be right, in sentences (empty when it can be).
export function guessWarnings(view, notepad, numbers) {
  const k = knowledge(view, notepad);
  const reasons = [];
  for (const n of numbers) {
    if (k.held.has(n)) reasons.push(t('warn.held', { n }));
    else if (k.sprintsShown.has(n)) reasons.push(t('warn.sprint', { n }));
    else if (k.wrong.has(n)) reasons.push(t('warn.wrong', { n }));
    else if (k.assisted && !k.shares.has(n)) reasons.push(t('warn.impossible', { n }));
  }
  return reasons;
}

/// `notes`: { mode, selected: Set, marks: {n: mark}, assist, inspected }, `assist` being the
/// server's deduction (`state.notepad`) when the room has the notepad assist and `inspected` the
/// position open in the notebook (its shares replace the board's). `on`: { pick(n), mode(m) }.
export function renderBoard(view, legal, notes, on) {
  const k = knowledge(view, notes.assist);
  const focus =
    k.assisted && notes.inspected !== null && notes.inspected !== undefined
      ? new Map(positionCandidates(view, notes.assist, notes.inspected).map((c) => [c.number, c.share]))
      : null;
  const guessing = legal?.guess ?? null;
  const allowed = new Set(guessing?.numbers ?? []);
  const numbers = [];
  for (let n = 1; n <= 41; n += 1) {
    const fact = k.revealed.has(n)
      ? 'revealed'
      : k.held.has(n)
        ? 'held'
        : k.sprintsShown.has(n)
          ? 'sprint'
          : k.wrong.has(n)
            ? 'wrong'
            : k.impossible.has(n)
              ? 'impossible'
              : k.doubtful.has(n)
                ? 'doubtful'
                : null;
    const states = [fact, notes.marks[n] ?? null, notes.selected.has(n) ? 'selected' : null].filter(Boolean);
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
          disabled: k.revealed.has(n) || (inGuess && (!guessing || !allowed.has(n))),
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
  const candidates = positionCandidates(view, notes.assist, position);
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
