// The trail: card 0 first, each position numbered, face-down cards as backs with their sprint
// cards' count, the events beside it and the goal; what the dashed secret cards mean.

import { h, sprintValue } from './dom.js';
import { BACK } from './art.js';
import { t } from './i18n.js';
import { trailEventsAt, freeSpaces } from './events.js';
import { cardFace, cardBack } from './cards.js';

function sprintLabel(card) {
  return card === 0 ? t('card.start') : t('card.label', { card, value: sprintValue(card) });
}

/// The sprint cards under a hideout: small faces when their numbers are known, small backs when
/// only their count is.
function sprintPile(pos, index) {
  if (!(pos.sprint_count > 0)) return null;
  const known = pos.sprints && pos.sprints.length ? pos.sprints : null;
  const hidden = pos.sprint_count - (known?.length ?? 0);
  return h(
    'span',
    { class: 'sprints', 'data-testid': `sprints-${index}` },
    (known ?? []).map((c) =>
      h(
        'span',
        { class: 'chip mini-card', 'data-card': c },
        c,
        h('span', { class: 'mini-value' }, `+${sprintValue(c)}`),
      ),
    ),
    Array.from({ length: Math.max(0, hidden) }, () => h('span', { class: 'mini-back', 'aria-hidden': 'true' })),
    hidden > 0 ? h('span', { class: 'visually-hidden' }, t('trail.sprintCount', { n: hidden })) : null,
  );
}

/// The trail, card 0 first, each position numbered. A face-down card shows its back and its
/// sprint cards' count; its number only to the Fugitive (and to everyone once the game is over,
/// when the view carries it). `opts`: { recent: Set of positions of the last move, arrive:
/// { positions, elapsed } that changed with the last state (animated in), inspect(position) for
/// the Marshal's notebook, inspected: the position it shows, replay: a step of a replay, where
/// every card is public }.
export function renderTrail(view, opts = {}) {
  const recent = opts.recent ?? new Set();
  const items = view.trail.map((pos, index) => {
    const item = trailItem(view, opts, recent, pos, index);
    // A render during the deal animation continues it where it is (CSSOM, not a style attribute).
    if (opts.arrive?.positions.has(index)) item.style.setProperty('--arrive-delay', `${-opts.arrive.elapsed}ms`);
    return item;
  });
  return trailList(view, items, opts.replay ?? false);
}

/// One position of the trail.
function trailItem(view, opts, recent, pos, index) {
  const known = pos.card !== null && pos.card !== undefined;
  const state = pos.face_up ? 'face-up' : 'face-down';
  const label = [
    t('trail.position', { n: index }),
    known ? sprintLabel(pos.card) : t('trail.hidden'),
    pos.face_up ? null : known ? t('trail.faceDownKnown') : null,
    pos.sprint_count > 0 ? t('trail.sprintCount', { n: pos.sprint_count }) : null,
    pos.sprints && pos.sprints.length ? t('trail.sprints', { cards: pos.sprints.join(', ') }) : null,
    recent.has(index) ? t('trail.justNow') : null,
  ]
    .filter(Boolean)
    .join(', ');
  let face;
  if (known) face = cardFace(pos.card, { class: pos.face_up ? null : 'secret' });
  else if (opts.inspect && !view.outcome) {
    face = h(
      'button',
      {
        type: 'button',
        class: ['card', 'back', 'inspect', opts.inspected === index ? 'inspected' : null],
        'data-testid': `inspect-${index}`,
        'aria-expanded': opts.inspected === index,
        'aria-controls': opts.inspected === index ? 'notebook' : null,
        // A label, not text: the card itself shows no digit (the tests read face-down cards).
        'aria-label': t('notebook.open', { n: index }),
        onclick: () => opts.inspect(index),
      },
      h('img', { class: 'emblem', src: BACK, alt: '' }),
    );
  } else face = cardBack();
  return h(
    'li',
    {
      class: [
        'trail-card',
        state,
        known && !pos.face_up ? 'secret' : null,
        recent.has(index) ? 'recent' : null,
        opts.arrive?.positions.has(index) ? 'arrive' : null,
      ],
      'data-testid': `trail-${index}`,
      'data-position': index,
      'data-face-up': pos.face_up,
      'data-sprint-count': pos.sprint_count,
      'data-recent': recent.has(index),
    },
    h('span', { class: 'pos', 'aria-hidden': 'true' }, index),
    h('span', { class: 'visually-hidden' }, label),
    face,
    sprintPile(pos, index),
    trailEventsAt(view, index),
  );
}

/// The trail's list, with the empty spaces that hold events and the goal.
function trailList(view, items, replay) {
  return h(
    'section',
    { class: 'trail-wrap', 'aria-labelledby': 'trail-title' },
    h('h2', { id: 'trail-title', class: 'visually-hidden' }, t('trail.title')),
    h(
      'ol',
      { class: 'trail', 'data-testid': 'trail', start: 0 },
      items,
      freeSpaces(view),
      view.outcome || view.trail.some((p) => p.card === 42)
        ? null
        : h(
            'li',
            { class: 'trail-card goal', 'aria-hidden': 'true' },
            h('span', { class: 'pos' }, '\u00a0'),
            h(
              'span',
              { class: 'card goal-card' },
              h('span', { class: 'num' }, '42'),
              h('span', { class: 'value word' }, t('card.escape')),
            ),
          ),
    ),
    secretNote(view, replay),
  );
}

/// What the dashed cards on the trail mean, when there are any: the Fugitive's secret while the
/// game runs, face down at that moment on a replay (which shows every card), never found after
/// the end.
function secretNote(view, replay) {
  if (!view.trail.some((p) => !p.face_up && p.card !== null)) return null;
  const key = view.outcome ? 'trail.neverFound' : replay ? 'trail.replayNote' : 'trail.secretNote';
  return h('p', { class: 'trail-note' }, t(key));
}
