// The player's next action, under the trail: the Fugitive's hand and his move bar, the Marshal's
// guess board and her guess bar (and her notebook for a face-down card), a spectator's note that
// he only watches. The bars stay in sight (style.css); what is legal is the server's `legal`.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { emptySelection, pruneSelection, toggleCard, renderHand, renderMove } from '../fugitive.js';
import {
  loadMarks,
  saveMarks,
  renderBoard,
  renderGuessAction,
  renderNotebook,
  guessWarnings,
  pickNumber,
} from '../marshal.js';

/// The controls of the room page `page`: { room, msg (the last state), busy, selection (the
/// Fugitive's picked cards), notes (the Marshal's board), inspected (the face-down position her
/// notebook shows), act(action), render() }.
export function renderControls(page) {
  const { view } = page.msg;
  if (view.viewer === 'spectator') {
    // After the end everything is public (R18): no "only what is public" any more.
    const words = view.outcome ? t('room.watchingOver') : t('room.watching');
    return h('p', { class: 'watching', 'data-testid': 'spectating' }, words);
  }
  if (view.viewer === 'fugitive') return fugitiveControls(page);
  if (view.outcome) return null;
  return marshalControls(page);
}

/// Carries the controls over to the new state `msg` (after `before`, null for the first): a new
/// game starts with nothing picked and the Marshal's marks of that game (`page.notesGame`: the
/// game they are); what the server no longer allows is dropped, and a notebook whose card turned
/// face up closes.
export function carryControls(page, before, msg) {
  const { view, legal } = msg;
  if (before && before.game !== msg.game) {
    page.selection = emptySelection();
    page.notes.selected.clear();
    page.notes.warning = null;
    page.inspected = null;
  }
  if (page.notesGame !== msg.game) {
    page.notesGame = msg.game;
    page.notes.marks = loadMarks(page.room, msg.game);
  }
  pruneSelection(page.selection, view.hands.fugitive.cards ?? []);
  if (legal?.guess) {
    for (const n of [...page.notes.selected]) if (!legal.guess.numbers.includes(n)) page.notes.selected.delete(n);
  } else {
    page.notes.selected.clear();
    page.notes.warning = null;
  }
  if (page.inspected !== null && (view.trail[page.inspected]?.face_up ?? true)) page.inspected = null;
}

/// The server's aids for the Marshal's board and notebook, as the last state has them.
function noteAids(page) {
  page.notes.assist = page.msg.notepad;
  page.notes.candidates = page.msg.candidates;
}

function fugitiveControls(page) {
  const { view, legal } = page.msg;
  const live = page.busy ? null : legal;
  const move = renderMove(view, live, page.selection, {
    place: () => {
      const action = {
        type: 'place',
        hideout: page.selection.hideout,
        sprints: [...page.selection.sprints].sort((a, b) => a - b),
      };
      page.selection = emptySelection();
      page.act(action);
    },
    clear: () => {
      page.selection = emptySelection();
      page.render();
    },
    pass: () => page.act({ type: 'pass' }),
    endTurn: () => page.act({ type: 'end_turn' }),
  });
  return h(
    'div',
    { class: 'controls' },
    view.outcome && !view.hands.fugitive.size
      ? null
      : renderHand(view, live, page.selection, (card) => {
          toggleCard(page.selection, card);
          page.render();
        }),
    move ? h('div', { class: 'action-bar', 'data-testid': 'action-bar' }, move) : null,
  );
}

function marshalControls(page) {
  const { view, legal } = page.msg;
  const live = page.busy ? null : legal;
  const notes = page.notes;
  const single = legal?.guess?.single ?? false;
  noteAids(page);
  notes.inspected = page.inspected;
  const action = renderGuessAction(view, live, notes, {
    guess: (force) => {
      const numbers = [...notes.selected].sort((a, b) => a - b);
      const warnings = force ? [] : guessWarnings(notes.candidates, notes.assist, numbers);
      if (warnings.length) {
        notes.warning = warnings;
        page.render();
        return;
      }
      notes.selected.clear();
      notes.warning = null;
      page.act({ type: 'guess', numbers });
    },
    clear: () => {
      notes.selected.clear();
      page.render();
    },
    back: () => {
      notes.warning = null;
      page.render();
    },
  });
  return h(
    'div',
    { class: 'controls' },
    renderBoard(view, live, notes, {
      pick: (n) => {
        if (pickNumber(notes, n, single)) saveMarks(page.room, page.msg.game, notes.marks);
        page.render();
      },
      mode: (mode) => {
        notes.mode = mode;
        page.render();
      },
    }),
    action ? h('div', { class: 'action-bar', 'data-testid': 'action-bar' }, action) : null,
  );
}

/// The Marshal's notebook for the face-down position she opened (see `renderControls`).
export function renderNotebookPanel(page) {
  const { view, legal } = page.msg;
  noteAids(page);
  return renderNotebook(view, page.busy ? null : legal, page.notes, page.inspected, {
    pick: (n) => {
      page.notes.mode = 'guess';
      pickNumber(page.notes, n, legal?.guess?.single ?? false);
      page.render();
    },
    close: () => {
      page.inspected = null;
      page.render();
    },
  });
}
