// The Fugitive's hand and his move: pick a hideout card and any sprint cards, see at once whether
// the placement is legal and why not (from the server's LegalActions, never re-deriving rules
// the server already decided), then place, pass or end the first turn.

import { h, sprintTotal, sprintValue } from './dom.js';
import { t, list } from './i18n.js';
import { cardFace } from './cards.js';

export function emptySelection() {
  return { hideout: null, sprints: new Set() };
}

/// Clicking a card: the first chosen card is the hideout, the others are sprint cards; clicking
/// the hideout again puts it back.
export function toggleCard(selection, card) {
  if (selection.hideout === card) {
    selection.hideout = null;
  } else if (selection.hideout === null) {
    selection.sprints.delete(card);
    selection.hideout = card;
  } else if (selection.sprints.has(card)) {
    selection.sprints.delete(card);
  } else {
    selection.sprints.add(card);
  }
}

/// Forgets cards that are no longer in the hand (after a placement or a new game).
export function pruneSelection(selection, hand) {
  if (!hand.includes(selection.hideout)) selection.hideout = null;
  for (const c of [...selection.sprints]) if (!hand.includes(c)) selection.sprints.delete(c);
}

function lastCard(view) {
  for (let i = view.trail.length - 1; i >= 0; i -= 1) {
    if (view.trail[i].card !== null) return view.trail[i].card;
  }
  return 0;
}

function legalText(hideout, sprints, value) {
  return sprints.length ? t('place.ok', { card: hideout, value }) : t('place.okNoSprint', { card: hideout });
}

/// Whether the selection is a legal placement, and a sentence saying why (not).
export function checkPlacement(view, legal, selection) {
  const { hideout } = selection;
  const sprints = [...selection.sprints].sort((a, b) => a - b);
  const have = sprintTotal(sprints);
  if (hideout === null) {
    return { ok: false, text: sprints.length ? t('place.pickHideoutFirst') : t('place.pick') };
  }
  const last = lastCard(view);
  const placement = legal.placements.find((p) => p.hideout === hideout);
  if (!placement) {
    // The server says why this card may not be placed (`legal.blocked`, from the rules).
    const why = (legal.blocked ?? []).find((b) => b.hideout === hideout)?.why;
    if (why?.kind === 'not_above')
      return { ok: false, text: t('place.why.notAbove', { card: hideout, last: why.last }) };
    if (why?.kind === 'no_second_hideout') return { ok: false, text: t('place.why.noSecond', { card: hideout }) };
    return { ok: false, text: t('place.why.unreachable', { card: hideout, need: why?.need ?? '?' }) };
  }
  const options = placement.sprints;
  if (options.kind === 'one_of') {
    const key = sprints.join(',');
    if (options.sets.some((set) => set.join(',') === key)) {
      return { ok: true, text: legalText(hideout, sprints, have) };
    }
    const shown = options.sets.slice(0, 4).map((set) => (set.length ? set.join('+') : t('place.noSprints')));
    return { ok: false, text: t('place.why.oneOf', { card: hideout, sets: list(shown) }) };
  }
  // The cards the server allows under it (never 42, R11; none on an M1 Roadblock space).
  const barred = sprints.filter((card) => !options.from.includes(card));
  if (barred.length) return { ok: false, text: t('place.why.notSprint', { card: hideout, cards: list(barred) }) };
  if (have >= options.value) {
    return { ok: true, text: legalText(hideout, sprints, have) };
  }
  return {
    ok: false,
    text: t('place.why.tooFar', { card: hideout, last, distance: hideout - last, need: options.value, have }),
  };
}

/// The Fugitive's hand as toggle buttons (while he may place) or plain cards.
export function renderHand(view, legal, selection, onToggle) {
  const cards = view.hands.fugitive.cards ?? [];
  const placing = (legal?.placements?.length ?? 0) > 0;
  const playable = new Set((legal?.placements ?? []).map((p) => p.hideout));
  return h(
    'section',
    { class: 'hand', 'aria-labelledby': 'hand-title' },
    h('h2', { id: 'hand-title' }, t('hand.yours', { n: cards.length })),
    h(
      'ul',
      { class: 'hand-cards', 'data-testid': 'hand' },
      cards.map((card) => {
        const role = selection.hideout === card ? 'hideout' : selection.sprints.has(card) ? 'sprint' : null;
        const face = cardFace(card, {
          class: [role, playable.has(card) ? 'playable' : null].filter(Boolean).join(' '),
        });
        if (!placing) return h('li', { 'data-testid': `hand-${card}` }, face);
        const tag =
          role === 'hideout'
            ? t('place.tagHideout')
            : role === 'sprint'
              ? t('place.tagSprint', { value: sprintValue(card) })
              : null;
        return h(
          'li',
          {},
          h(
            'button',
            {
              class: ['hand-card', role],
              'data-testid': `hand-${card}`,
              'aria-pressed': role !== null,
              onclick: () => onToggle(card),
            },
            face,
            h('span', { class: 'visually-hidden' }, `, ${t('card.sprintValue', { value: sprintValue(card) })}`),
            h('span', { class: 'tag' }, tag ?? ''),
          ),
        );
      }),
    ),
  );
}

/// The move panel under the hand: the legality line and the buttons.
export function renderMove(view, legal, selection, on) {
  if (!legal || (!legal.placements.length && !legal.pass && !legal.end_turn)) return null;
  const check = checkPlacement(view, legal, selection);
  const canPlace = check.ok;
  return h(
    'section',
    { class: 'move', 'aria-label': t('move.title') },
    legal.placements.length
      ? h(
          'p',
          {
            class: ['verdict', selection.hideout === null ? null : canPlace ? 'ok' : 'no'],
            'data-testid': 'verdict',
            'aria-live': 'polite',
          },
          check.text,
        )
      : h('p', { class: 'verdict' }, t('place.noneLegal')),
    h(
      'div',
      { class: 'buttons' },
      legal.placements.length
        ? h(
            'button',
            { class: 'primary', 'data-testid': 'place', disabled: !canPlace, onclick: on.place },
            selection.hideout === null ? t('place.button') : t('place.buttonCard', { card: selection.hideout }),
          )
        : null,
      selection.hideout !== null || selection.sprints.size
        ? h('button', { 'data-testid': 'clear', onclick: on.clear }, t('place.clear'))
        : null,
      legal.end_turn ? h('button', { 'data-testid': 'end-turn', onclick: on.endTurn }, t('place.endTurn')) : null,
      legal.pass ? h('button', { 'data-testid': 'pass', onclick: on.pass }, t('place.pass')) : null,
    ),
  );
}
