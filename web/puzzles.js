// Puzzles, `/puzzles` (issue 26): a position from a played game where one answer is clearly
// best. The server sends the solver's view, what the rules let him do in it (`legal`) and the
// public candidates, the same pieces a table gets; the answer is checked by the server, which
// then tells it with the figures that explain it. Nothing here works out a rule: the trail, the
// log, the Marshal's board and the Fugitive's hand are the table's own components.

import { h, replace } from './dom.js';
import { t, list, onLanguageChange, useStrings } from './i18n.js';
import { renderTrail } from './trail.js';
import { renderHistory } from './history.js';
import { renderBoard } from './marshal.js';
import { renderHand, emptySelection } from './fugitive.js';
import { ratingText } from './profile-page.js';

// Its strings, not in the first visit's table.
await useStrings('puzzles');

/// The refusals this page has words for (`docs/protocol.md`); any other reads as `unavailable`.
const PROBLEMS = ['no_puzzles', 'already_answered', 'attempt_unknown', 'bad_answer', 'puzzle_not_found'];
const problemOf = (json) => (PROBLEMS.includes(json.error) ? json.error : 'unavailable');

/// A share (0–1) as a whole percentage.
const percent = (share) => String(Math.round(share * 100));

export function showPuzzles(root) {
  // `puzzle`: the server's answer to `next`; `result`: its answer to the attempt.
  let puzzle = null;
  let result = null;
  let problem = null;
  let notes = null;
  let selection = emptySelection();

  function chosen() {
    if (!puzzle) return [];
    if (puzzle.role === 'fugitive') return selection.hideout === null ? [] : [selection.hideout];
    return [...notes.selected].sort((a, b) => a - b);
  }

  function pick(n) {
    if (result) return;
    if (notes.mode !== 'guess') {
      if (notes.marks[n] === notes.mode) delete notes.marks[n];
      else notes.marks[n] = notes.mode;
    } else if (notes.selected.has(n)) notes.selected.delete(n);
    else {
      // "A guess is certain" is answered with one number: a new pick replaces the last.
      if (puzzle.theme === 'certain') notes.selected.clear();
      notes.selected.add(n);
    }
    render();
  }

  function solverPanel() {
    const legal = result ? null : puzzle.legal;
    if (puzzle.role === 'fugitive') {
      return renderHand(puzzle.view, legal, selection, (card) => {
        selection = { hideout: selection.hideout === card ? null : card, sprints: new Set() };
        render();
      });
    }
    return renderBoard(puzzle.view, legal, notes, {
      pick,
      mode: (mode) => {
        notes.mode = mode;
        render();
      },
    });
  }

  function explanation() {
    const answer = list(result.answer);
    return t(`puzzle.why.${result.theme}`, { answer, best: percent(result.best), next: percent(result.next) });
  }

  function resultPanel() {
    if (!result) {
      const numbers = chosen();
      return h(
        'div',
        { class: 'buttons' },
        h(
          'button',
          { class: 'primary big', 'data-testid': 'puzzle-answer', disabled: numbers.length === 0, onclick: send },
          numbers.length ? t('puzzle.answerWith', { numbers: list(numbers) }) : t('puzzle.pick'),
        ),
      );
    }
    return h(
      'section',
      {
        class: ['puzzle-result', result.solved ? 'solved' : 'failed'],
        'data-testid': 'puzzle-result',
        'data-solved': String(result.solved),
        'aria-labelledby': 'puzzle-result-title',
      },
      h('h2', { id: 'puzzle-result-title' }, t(result.solved ? 'puzzle.solved' : 'puzzle.failed')),
      h('p', { 'data-testid': 'puzzle-why' }, explanation()),
      h(
        'p',
        { 'data-testid': 'puzzle-rating' },
        t('puzzle.rating', { rating: ratingText(result.rating) }),
        result.solver ? ` · ${t('puzzle.yourRating', { rating: ratingText(result.solver) })}` : '',
      ),
      h(
        'div',
        { class: 'buttons' },
        h('button', { class: 'primary', 'data-testid': 'puzzle-next', onclick: load }, t('puzzle.next')),
      ),
    );
  }

  function render() {
    document.title = `${t('puzzle.title')} — Fugitive`;
    let body;
    if (problem) body = h('p', { role: 'alert', 'data-testid': 'puzzle-problem' }, t(`puzzle.error.${problem}`));
    else if (!puzzle) body = h('p', { role: 'status' }, t('profilePage.loading'));
    else {
      body = h(
        'div',
        { class: 'puzzle', 'data-testid': 'puzzle', 'data-theme': puzzle.theme, 'data-role': puzzle.role },
        h('h2', {}, t(`puzzle.theme.${puzzle.theme}`)),
        h('p', { 'data-testid': 'puzzle-ask' }, t(`puzzle.ask.${puzzle.theme}`)),
        h(
          'p',
          {},
          t('puzzle.youPlay', { role: t(`role.${puzzle.role}`) }),
          ' · ',
          t('puzzle.rating', { rating: ratingText(puzzle.rating) }),
        ),
        h('section', { class: 'trail-area', 'aria-label': t('puzzle.trail') }, renderTrail(puzzle.view)),
        solverPanel(),
        resultPanel(),
        renderHistory(puzzle.view),
      );
    }
    replace(
      root,
      h(
        'div',
        { class: 'landing puzzles' },
        h('h1', {}, t('puzzle.title')),
        body,
        h('p', {}, h('a', { href: '/' }, t('notFound.home'))),
      ),
    );
  }

  async function send() {
    const numbers = chosen();
    const res = await fetch(`/api/puzzles/${puzzle.id}/attempt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ attempt: puzzle.attempt, numbers }),
    }).catch(() => null);
    const json = res ? await res.json().catch(() => ({})) : {};
    if (res?.ok) result = json;
    else problem = problemOf(json);
    render();
  }

  async function load() {
    puzzle = null;
    result = null;
    problem = null;
    selection = emptySelection();
    notes = { mode: 'guess', selected: new Set(), marks: {}, candidates: null, assist: null, inspected: null };
    render();
    const res = await fetch('/api/puzzles/next').catch(() => null);
    const json = res ? await res.json().catch(() => ({})) : {};
    if (res?.ok) {
      puzzle = json;
      notes.candidates = json.candidates;
    } else problem = problemOf(json);
    render();
  }

  onLanguageChange(render);
  load();
}
