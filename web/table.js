// The table: the trail, the decks, both hands and the line that says whose turn it is. Pure
// rendering of a View (crates/fugitive-core/src/view.rs); the controls live in fugitive.js and
// marshal.js.

import { h, sprintValue } from './dom.js';
import { FOOTPRINT, BACK } from './art.js';
import { t } from './i18n.js';
import { cardName, trailEventsAt, freeSpaces } from './events.js';

/// What the player (or the watched side) must do now, in words.
export function statusText(view) {
  const { phase } = view;
  const mover = view.to_move;
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
      // No card asks the pass bonus (R11a).
      if (phase.card === null) return t(`status.${who}.passBonus`);
      return t(`status.${who}.pending`, { card: cardName(phase.card) });
    default:
      return '';
  }
}

/// Who made a history entry (null for entries that belong to nobody's move).
export function actor(event) {
  if (event.role) return event.role;
  switch (event.type) {
    case 'placed':
    case 'passed':
    case 'turn_ended':
    case 'sprint_added':
      return 'fugitive';
    case 'guessed':
    case 'revealed':
    case 'manhunt_started':
      return 'marshal';
    default:
      return null;
  }
}

/// What just happened: the history entries of the other side's last move (for a spectator, of
/// whoever moved last), with the trail positions and decks they touched. They stay highlighted
/// while the player makes her own move, until the other side moves again.
export function lastMove(view) {
  const { history, viewer } = view;
  let end = history.length;
  // The player's own entries since then do not hide it.
  while (end > 0 && actor(history[end - 1]) === viewer) end -= 1;
  let mover = null;
  let from = end;
  for (let i = end - 1; i >= 0; i -= 1) {
    const who = actor(history[i]);
    if (who !== null && history[i].type !== 'game_over') {
      if (mover === null) mover = who;
      else if (who !== mover) break;
    }
    from = i;
  }
  const entries = mover === null ? [] : history.slice(from, end);
  const positions = new Set();
  const decks = new Set();
  for (const e of entries) {
    if (e.type === 'placed' || e.type === 'revealed' || e.type === 'sprint_added' || e.type === 'sprints_shown')
      positions.add(e.position);
    if ((e.type === 'drew' || e.type === 'event_drawn' || e.type === 'catchup_drawn') && e.deck) decks.add(e.deck);
  }
  return { mover, entries, positions, decks };
}

/// The viewer's own last guess with what followed it (a reveal, the Manhunt), while the other
/// side has not moved since: unlike her draws, its result is news to the Marshal too. Empty when
/// there is none.
export function ownGuess(view) {
  const { history, viewer } = view;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const who = actor(history[i]);
    if (who !== null && who !== viewer) break;
    if (history[i].type === 'guessed' && who === viewer) return history.slice(i);
  }
  return [];
}

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

function sprintLabel(card) {
  return card === 0 ? t('card.start') : t('card.label', { card, value: sprintValue(card) });
}

/// A card of a deck after the end: a number, an event card's name, or a Catchup card.
function deckCardName(card) {
  if (typeof card === 'number') return card;
  return card === 'catchup' ? t('log.catchupCard') : cardName(card);
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

/// How tall a deck's pile is drawn: one step for every two cards, at most eight.
export const pileLevel = (size) => Math.min(8, Math.ceil(size / 2));

/// The three decks, drawn as piles whose height shows what is left; a deck is a button when
/// drawing from it is legal now. `recent`: the decks of the last move. "You can draw here" and
/// "drawn from in the last move" are two marks, each with its words (a deck may carry both).
export function renderDecks(view, legal, onDraw, recent = new Set()) {
  const draws = legal?.draws ?? [];
  return h(
    'section',
    { class: 'decks', 'aria-labelledby': 'decks-title' },
    h('h2', { id: 'decks-title', class: 'visually-hidden' }, t('decks.title')),
    view.decks.map((deck) => {
      const can = draws.includes(deck.deck);
      const body = [
        h(
          'span',
          { class: 'pile', 'data-level': pileLevel(deck.size), 'aria-hidden': 'true' },
          deck.size
            ? h('span', { class: 'card back pile-top' }, h('img', { class: 'emblem', src: BACK, alt: '' }))
            : null,
        ),
        h(
          'span',
          { class: 'deck-text' },
          can
            ? h(
                'span',
                { class: 'deck-mark can-draw', 'data-testid': `deck-can-${deck.deck}` },
                `${t('decks.canDraw')} `,
              )
            : null,
          h('span', { class: 'deck-name' }, t('decks.deck', { n: deck.deck })),
          h('span', { class: 'deck-range' }, ` ${deck.low}–${deck.high} `),
          h(
            'span',
            { class: 'deck-size', 'data-testid': `deck-size-${deck.deck}`, 'data-size': deck.size },
            t('decks.size', { n: deck.size }),
          ),
          recent.has(deck.deck)
            ? h(
                'span',
                { class: 'deck-mark just-drawn', 'data-testid': `deck-drawn-${deck.deck}` },
                ` ${t('decks.justDrawn')}`,
              )
            : null,
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
      const cls = ['deck', deck.size === 0 ? 'empty' : null, recent.has(deck.deck) ? 'recent' : null];
      if (can) {
        return h(
          'button',
          {
            class: [...cls, 'drawable'],
            'data-testid': `deck-${deck.deck}`,
            'data-recent': recent.has(deck.deck),
            onclick: () => onDraw(deck.deck),
          },
          body,
        );
      }
      return h('div', { class: cls, 'data-testid': `deck-${deck.deck}`, 'data-recent': recent.has(deck.deck) }, body);
    }),
  );
}

/// The two seats: who plays which side, who is to move, who is away.
export function renderSeats(view, room, me, deadline) {
  const mover = view.to_move;
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
        // The player's own words: text only, never markup.
        room?.names?.[role] ? h('span', { class: 'seat-name', 'data-testid': `name-${role}` }, room.names[role]) : null,
        h('span', { class: 'seat-hand', 'data-testid': `hand-size-${role}` }, t('seat.hand', { n: size })),
        here ? null : h('span', { class: 'visually-hidden' }, t('seat.away')),
        room?.clock?.role === role && !view.outcome
          ? h(
              'span',
              {
                class: ['clock', deadline - Date.now() <= URGENT_MS ? 'urgent' : null],
                'data-testid': 'clock',
                'data-deadline': deadline,
                role: 'timer',
              },
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
  const [days, hours, minutes, seconds] = [
    Math.floor(total / 86400),
    Math.floor(total / 3600) % 24,
    Math.floor(total / 60) % 60,
    total % 60,
  ];
  const two = (n) => String(n).padStart(2, '0');
  // A slow game's clock (issue 13): days, then h:mm:ss.
  if (days) return `${days}d ${hours}:${two(minutes)}:${two(seconds)}`;
  return hours ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/// The last seconds of a turn clock, drawn urgent.
export const URGENT_MS = 10_000;

/// Lets every shown turn clock count down between the server's states, turning urgent in the
/// last ten seconds.
export function tickClocks() {
  for (const el of document.querySelectorAll('[data-testid=clock][data-deadline]')) {
    const left = Number(el.dataset.deadline) - Date.now();
    el.textContent = clockText(left);
    el.classList.toggle('urgent', left <= URGENT_MS);
  }
}
