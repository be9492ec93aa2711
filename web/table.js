// The table: the trail, the decks, both hands and the line that says whose turn it is. Pure
// rendering of a View (crates/fugitive-core/src/view.rs); the controls live in fugitive.js and
// marshal.js.

import { h, sprintValue } from './dom.js';
import { t } from './i18n.js';
import { cardName, trailEventsAt, freeSpaces } from './events.js';

export const DECK_RANGES = { 1: [4, 14], 2: [15, 28], 3: [29, 41] };

/// Whose move it is in `phase`, or null once the game is over.
export function toMove(phase) {
  switch (phase.phase) {
    case 'opening':
    case 'place_or_pass':
      return 'fugitive';
    case 'draw':
    case 'pending':
      return phase.role;
    case 'guess':
    case 'manhunt':
      return 'marshal';
    default:
      return null;
  }
}

/// What the player (or the watched side) must do now, in words.
export function statusText(view) {
  const { phase } = view;
  const mover = toMove(phase);
  if (!mover) return '';
  const mine = view.viewer === mover;
  const who = mine ? 'you' : mover;
  switch (phase.phase) {
    case 'opening':
      if (phase.placed === 0) return t(`status.${who}.opening`);
      if (view.rules.opening_hideouts === 'exactly_two') return t(`status.${who}.openingSecond`);
      return t(`status.${who}.openingMore`);
    case 'draw':
      return t(`status.${who}.draw`, { n: phase.left });
    case 'place_or_pass':
      return t(`status.${who}.placeOrPass`);
    case 'guess':
      return t(`status.${who}.guess`);
    case 'manhunt':
      return t(`status.${who}.manhunt`);
    case 'pending':
      return t(`status.${who}.pending`, { card: cardName(phase.card) });
    default:
      return '';
  }
}

/// One card face: its number and sprint value.
export function cardFace(card, extra = {}) {
  return h(
    'span',
    { class: ['card', 'face', extra.class], 'data-card': card, 'data-testid': extra.testid },
    h('span', { class: 'num' }, card),
    card === 0 ? null : h('span', { class: 'value', 'aria-hidden': 'true' }, `+${sprintValue(card)}`),
  );
}

function sprintLabel(card) {
  return card === 0 ? t('card.start') : t('card.label', { card, value: sprintValue(card) });
}

/// A card of a deck after the end: a number, an event card's name, or a Catchup card.
function deckCardName(card) {
  if (typeof card === 'number') return card;
  return card === 'catchup' ? t('log.catchupCard') : cardName(card);
}

/// The trail, card 0 first. A face-down card shows its sprint-card count; its number only to
/// the Fugitive (and to everyone once the game is over, when the view carries it).
export function renderTrail(view) {
  const items = view.trail.map((pos, index) => {
    const known = pos.card !== null && pos.card !== undefined;
    const state = pos.face_up ? 'face-up' : 'face-down';
    const label = [
      t('trail.position', { n: index }),
      known ? sprintLabel(pos.card) : t('trail.hidden'),
      pos.face_up ? null : known ? t('trail.faceDownKnown') : null,
      pos.sprint_count > 0 ? t('trail.sprintCount', { n: pos.sprint_count }) : null,
      pos.sprints && pos.sprints.length ? t('trail.sprints', { cards: pos.sprints.join(', ') }) : null,
    ]
      .filter(Boolean)
      .join(', ');
    const face = known
      ? cardFace(pos.card, { class: pos.face_up ? null : 'secret' })
      : h('span', { class: 'card back' }, h('span', { class: 'mark', 'aria-hidden': 'true' }, '?'));
    const sprints =
      pos.sprint_count > 0
        ? h(
            'span',
            { class: 'sprints', 'data-testid': `sprints-${index}` },
            pos.sprints
              ? pos.sprints.map((c) => h('span', { class: 'chip', 'data-card': c }, c))
              : h('span', { class: 'chip count' }, t('trail.sprintChip', { n: pos.sprint_count })),
          )
        : null;
    return h(
      'li',
      {
        class: ['trail-card', state, known && !pos.face_up ? 'secret' : null],
        'data-testid': `trail-${index}`,
        'data-position': index,
        'data-face-up': pos.face_up,
        'data-sprint-count': pos.sprint_count,
        'aria-label': label,
      },
      face,
      sprints,
      trailEventsAt(view, index),
    );
  });
  return h(
    'section',
    { class: 'trail-wrap', 'aria-labelledby': 'trail-title' },
    h('h2', { id: 'trail-title', class: 'visually-hidden' }, t('trail.title')),
    h(
      'ol',
      { class: 'trail', 'data-testid': 'trail' },
      items,
      freeSpaces(view),
      view.outcome || view.trail.some((p) => p.card === 42)
        ? null
        : h(
            'li',
            { class: 'trail-card goal', 'aria-hidden': 'true' },
            h('span', { class: 'card' }, h('span', { class: 'num' }, '→42')),
          ),
    ),
    secretNote(view),
  );
}

/// What the dashed cards on the trail mean, when there are any.
function secretNote(view) {
  if (!view.trail.some((p) => !p.face_up && p.card !== null)) return null;
  return h('p', { class: 'trail-note' }, t(view.outcome ? 'trail.neverFound' : 'trail.secretNote'));
}

/// The three decks; a deck is a button when drawing from it is legal now.
export function renderDecks(view, legal, onDraw) {
  const draws = legal?.draws ?? [];
  return h(
    'section',
    { class: 'decks', 'aria-label': t('decks.title') },
    view.decks.map((deck) => {
      const [from, to] = DECK_RANGES[deck.deck];
      const can = draws.includes(deck.deck);
      const body = [
        h('span', { class: 'deck-name' }, t('decks.deck', { n: deck.deck })),
        h('span', { class: 'deck-range' }, `${from}–${to}`),
        h(
          'span',
          { class: 'deck-size', 'data-testid': `deck-size-${deck.deck}`, 'data-size': deck.size },
          t('decks.size', { n: deck.size }),
        ),
      ];
      // After the end the deck order is public too (R18).
      if (deck.cards && deck.cards.length > 0) {
        body.push(
          h(
            'span',
            { class: 'deck-order', 'data-testid': `deck-order-${deck.deck}` },
            t('decks.order', { cards: deck.cards.map(deckCardName).join(', ') }),
          ),
        );
      }
      const label = `${t('decks.deck', { n: deck.deck })} (${from}–${to}), ${t('decks.size', { n: deck.size })}`;
      if (can) {
        return h(
          'button',
          {
            class: ['deck', 'drawable', deck.size === 0 ? 'empty' : null],
            'data-testid': `deck-${deck.deck}`,
            'aria-label': t('decks.draw', { label }),
            onclick: () => onDraw(deck.deck),
          },
          body,
        );
      }
      return h(
        'div',
        {
          class: ['deck', deck.size === 0 ? 'empty' : null],
          'data-testid': `deck-${deck.deck}`,
          'aria-label': label,
          role: 'group',
        },
        body,
      );
    }),
  );
}

/// The two seats: who plays which side, who is to move, who is away.
export function renderSeats(view, room, me, deadline) {
  const mover = toMove(view.phase);
  return h(
    'div',
    { class: 'seats' },
    ['fugitive', 'marshal'].map((role) => {
      const here = room?.presence?.[role] ?? false;
      const size = view.hands[role].size;
      return h(
        'div',
        {
          class: ['seat', role, mover === role ? 'to-move' : null, here ? 'here' : 'away'],
          'data-testid': `seat-${role}`,
        },
        h('span', { class: 'presence', title: here ? t('seat.here') : t('seat.away'), 'aria-hidden': 'true' }),
        h('span', { class: 'seat-role' }, t(`role.${role}`)),
        me === role ? h('span', { class: 'you' }, t('seat.you')) : null,
        h('span', { class: 'seat-hand', 'data-testid': `hand-size-${role}` }, t('seat.hand', { n: size })),
        here ? null : h('span', { class: 'visually-hidden' }, t('seat.away')),
        room?.clock?.role === role && !view.outcome
          ? h(
              'span',
              { class: 'clock', 'data-testid': 'clock', 'data-deadline': deadline, role: 'timer' },
              clockText(deadline - Date.now()),
            )
          : null,
        mover === role ? h('span', { class: 'turn-mark' }, t('seat.toMove')) : null,
      );
    }),
  );
}

/// Time left on a turn clock, as m:ss (or h:mm:ss).
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const two = (n) => String(n).padStart(2, '0');
  return hours ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/// Lets every shown turn clock count down between the server's states.
export function tickClocks() {
  for (const el of document.querySelectorAll('[data-testid=clock][data-deadline]')) {
    el.textContent = clockText(Number(el.dataset.deadline) - Date.now());
  }
}
