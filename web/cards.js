// One card as the table draws it: its face (the number, the sprint value as footprints, 42 the
// escape card) or its back, which is the same for every card and so tells nothing.

import { h, sprintValue } from './dom.js';
import { FOOTPRINT, BACK } from './art.js';
import { t } from './i18n.js';

/// A sprint value drawn as footprints: one for +1 (odd cards), two for +2 (even cards).
function footprints(card) {
  const value = sprintValue(card);
  return h(
    'span',
    { class: ['value', `v${value}`], 'aria-hidden': 'true', 'data-value': value },
    Array.from({ length: value }, () => h('img', { class: 'foot', src: FOOTPRINT, alt: '' })),
  );
}

/// One card face: its number and its sprint value as footprints; 42 is the escape card.
export function cardFace(card, extra = {}) {
  return h(
    'span',
    {
      class: ['card', 'face', card === 42 ? 'escape' : null, card === 0 ? 'start' : null, extra.class],
      'data-card': card,
      'data-testid': extra.testid,
    },
    h('span', { class: 'num' }, card),
    card === 0 || card === 42
      ? h('span', { class: 'value word', 'aria-hidden': 'true' }, t(card === 0 ? 'card.startWord' : 'card.escape'))
      : footprints(card),
  );
}

/// The back of a card: the same for every face-down card, so it tells nothing.
export function cardBack(extra = {}) {
  return h('span', { class: ['card', 'back', extra.class] }, h('img', { class: 'emblem', src: BACK, alt: '' }));
}
