// The three decks, drawn as piles whose height shows what is left, with what may be drawn now
// and what the last move drew.

import { h } from './dom.js';
import { BACK } from './art.js';
import { t } from './i18n.js';
import { cardName } from './events.js';

/// A card of a deck after the end: a number, an event card's name, or a Catchup card.
function deckCardName(card) {
  if (typeof card === 'number') return card;
  return card === 'catchup' ? t('log.catchupCard') : cardName(card);
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
