// "How to play": a short summary of ../shared/RULES.md, its words in the three languages of the
// rulebooks (i18n/), with drawn examples: the cards, a sprint, a guess, the Manhunt, the options.

import { h, sprintValue } from './dom.js';
import { cardFace, cardBack } from './cards.js';
import { renderEventCard } from './events.js';
import { t, useStrings } from './i18n.js';

// Its strings, not in the first visit's table.
await useStrings('howto');

/// The summary's sections, in order: each a title and a paragraph (`howto.section.{id}.title`,
/// `howto.section.{id}.text` in i18n/).
const SECTIONS = ['goal', 'cards', 'fugitive', 'placing', 'marshal', 'manhunt', 'after'];

/// A few cards in a row, as on the table.
const row = (...items) => h('div', { class: 'howto-row', 'aria-hidden': 'true' }, items);
const arrow = (text = '→') => h('span', { class: 'howto-arrow' }, text);
const under = (hideout, sprints) =>
  h(
    'span',
    { class: 'howto-stack' },
    cardFace(hideout),
    h(
      'span',
      { class: 'sprints' },
      sprints.map((c) =>
        h('span', { class: 'chip mini-card' }, c, h('span', { class: 'mini-value' }, `+${sprintValue(c)}`)),
      ),
    ),
  );
const chips = (numbers, cls) => numbers.map((n) => h('span', { class: ['howto-number', cls] }, n));

/// The drawn examples, each a picture and a sentence.
const PICTURES = {
  keys: () => row(cardFace(7), cardFace(10), cardFace(42)),
  sprint: () => row(cardFace(8), arrow(t('howto.sprint.gap')), under(14, [12, 5])),
  guess: () =>
    h(
      'div',
      { class: 'howto-guess', 'aria-hidden': 'true' },
      row(chips([9, 17], 'right'), arrow(), cardFace(9), cardFace(17)),
      row(chips([9, 20], 'wrong'), arrow(), cardBack(), cardBack()),
    ),
  manhunt: () => row(cardBack(), cardBack(), cardFace(42), arrow(), chips([31], 'right'), chips([35], 'wrong')),
  events: () => h('div', { class: 'howto-row' }, renderEventCard('F3'), renderEventCard('M4')),
  pass: () => row(h('span', { class: 'howto-word' }, t('place.pass')), arrow('+'), cardBack()),
};

function figure(id) {
  return h(
    'figure',
    { class: 'howto-figure', 'data-testid': `howto-${id}` },
    PICTURES[id](),
    h('figcaption', {}, h('strong', {}, t(`howto.${id}.title`)), ' ', t(`howto.${id}.text`)),
  );
}

// The picture that follows a section: the cards, a sprint, a guess, the Manhunt; the event cards
// and the pass bonus close the walkthrough.
const AFTER = { cards: 'keys', placing: 'sprint', marshal: 'guess', manhunt: 'manhunt' };

export function renderHowto(onClose) {
  return h(
    'div',
    { class: 'howto' },
    h(
      'div',
      { class: 'howto-head' },
      h('h2', { id: 'howto-title' }, t('nav.howto')),
      h(
        'button',
        { type: 'button', class: 'quiet', 'data-testid': 'howto-close', onclick: onClose, autofocus: true },
        t('howto.close'),
      ),
    ),
    SECTIONS.map((id) =>
      h(
        'section',
        {},
        h('h3', {}, t(`howto.section.${id}.title`)),
        h('p', {}, t(`howto.section.${id}.text`)),
        AFTER[id] ? figure(AFTER[id]) : null,
      ),
    ),
    h('section', {}, h('h3', {}, t('howto.options')), figure('events'), figure('pass')),
    h('p', {}, h('a', { class: 'button', href: '/tutorial', 'data-testid': 'howto-tutorial' }, t('tutorial.link'))),
  );
}
