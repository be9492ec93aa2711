// Event cards (../shared/EVENTS.md): a card with its icon, name and text in the player's
// language, the events beside the trail, the public state of the variant, and the prompt when an
// event waits for a choice (E3). The card texts are translations (i18n/*.js, see event-cards.js).

import { h } from './dom.js';
import { t } from './i18n.js';
import { EVENT_CARDS } from './event-cards.js';

// Drawn as small SVGs: emoji fonts are not everywhere (headless Chromium has none).
const svg = (body) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">${body}</svg>`)}`;
const ICONS = {
  footprints: svg(
    '<g fill="#b86a12"><ellipse cx="7.5" cy="15" rx="3" ry="4.6"/><circle cx="5.2" cy="8.6" r="1.1"/><circle cx="7.4" cy="8" r="1.1"/><circle cx="9.6" cy="8.6" r="1.1"/>' +
      '<ellipse cx="16.5" cy="10" rx="3" ry="4.6"/><circle cx="14.2" cy="3.6" r="1.1"/><circle cx="16.4" cy="3" r="1.1"/><circle cx="18.6" cy="3.6" r="1.1"/></g>',
  ),
  binoculars: svg(
    '<g fill="none" stroke="#2f6ad0" stroke-width="2.2"><circle cx="6.5" cy="15" r="4"/><circle cx="17.5" cy="15" r="4"/><path d="M10.5 14h3M4 11l2-6h3l1 6M20 11l-2-6h-3l-1 6"/></g>',
  ),
  none: svg('<path fill="#6d6659" d="M12 2l2.6 7.4L22 12l-7.4 2.6L12 22l-2.6-7.4L2 12l7.4-2.6z"/>'),
};

/// The range of cards deck `number` holds, as the view's decks say (R2): "4–14".
export function deckRange(decks, number) {
  const deck = decks.find((d) => d.deck === number);
  return deck ? `${deck.low}–${deck.high}` : String(number);
}

/// A card's name and text in the current language.
export function cardText(id) {
  if (!EVENT_CARDS[id]) return { name: id, text: '' };
  return { name: t(`eventCard.${id}.name`), text: t(`eventCard.${id}.text`) };
}

export const cardName = (id) => cardText(id).name;

/// One event card: icon, name and (unless small) its text.
export function renderEventCard(id, { small = false, testid = null, effect = null } = {}) {
  const icon = EVENT_CARDS[id]?.icon ?? 'none';
  const { name, text } = cardText(id);
  const help = t(`event.icon.${icon}`);
  // N4 Shortcut lies on the trail as Safe House or Roadblock, depending on who drew it.
  const as = effect ? cardName(effect === 'safe_house' ? 'F1' : 'M1') : null;
  return h(
    'div',
    {
      class: ['event-card', icon, small ? 'small' : null],
      'data-event': id,
      'data-testid': testid,
      title: small ? `${name}: ${text}` : null,
      'aria-label': `${name}${as && as !== name ? ` (${as})` : ''}. ${help}. ${text}`,
    },
    h('img', { class: 'event-icon', src: ICONS[icon], alt: '', title: help, 'data-icon': icon }),
    h('span', { class: 'event-name' }, name),
    as && as !== name ? h('span', { class: 'event-as' }, as) : null,
    small ? null : h('span', { class: 'event-help' }, help),
    small ? null : h('span', { class: 'event-text' }, text),
  );
}

/// The events lying under trail space `index` (E4).
export function trailEventsAt(view, index) {
  return (view.events?.trail ?? [])
    .filter((e) => e.position === index)
    .map((e) =>
      h(
        'div',
        { class: 'trail-event', 'data-testid': `trail-event-${e.position}` },
        renderEventCard(e.card, { small: true, effect: e.effect }),
      ),
    );
}

/// Trail spaces beyond the last card that already hold an event: shown as empty slots with the
/// event under them.
export function freeSpaces(view) {
  const from = view.trail.length;
  const spaces = [...new Set((view.events?.trail ?? []).map((e) => e.position))].filter((p) => p >= from);
  return spaces
    .sort((a, b) => a - b)
    .map((position) =>
      h(
        'li',
        { class: 'trail-space free', 'data-position': position, 'aria-label': t('event.underSpace', { position }) },
        h('span', { class: 'card slot', 'aria-hidden': 'true' }, position),
        trailEventsAt(view, position),
      ),
    );
}

/// The variant's public state: the latest event card, Lie Low, Detour, the piles.
export function renderEventsPanel(view) {
  const events = view.events;
  if (!events) return null;
  const latest = view.history.findLast((e) => e.type === 'event_drawn');
  const notes = [];
  if (events.single_guess) notes.push(t('event.singleGuess'));
  for (const role of ['fugitive', 'marshal']) if (events.skips[role] > 0) notes.push(t(`event.skip.${role}`));
  if (view.rules.events === 'discovery') notes.push(t('event.pile', { n: events.piles[0] }));
  if (view.rules.events === 'catchup') {
    const [a, b, c] = events.piles;
    notes.push(t('event.piles', { a, b, c }));
  }
  return h(
    'section',
    { class: 'events-panel', 'data-testid': 'events-panel', 'aria-label': t(`events.${view.rules.events}`) },
    h('h2', {}, t(`events.${view.rules.events}`)),
    latest
      ? h(
          'figure',
          { class: 'latest-event' },
          h('figcaption', {}, t('event.latest')),
          renderEventCard(latest.card, { testid: 'latest-event' }),
        )
      : null,
    notes.map((note) => h('p', { class: 'event-note' }, note)),
  );
}

/// One answer to a pending decision, in words.
export function choiceLabel(choice, decision = null, decks = []) {
  switch (choice.kind) {
    case 'card':
      return t('choice.card', { card: choice.card });
    case 'sprint':
      return t('choice.sprint', { card: choice.card, position: choice.position });
    case 'hideout':
      return t('choice.hideout', { position: choice.position });
    case 'range':
      return deckRange(decks, choice.deck);
    case 'number':
      return String(choice.number);
    case 'deck':
      return t(decision === 'pass_bonus' ? 'choice.bonus' : 'choice.deck', { deck: choice.deck });
    case 'move':
      return t(choice.bottom ? 'choice.bottom' : 'choice.keep');
    case 'decline':
      return t('choice.decline');
    default:
      return JSON.stringify(choice);
  }
}

/// The prompt while an event (or the pass bonus, R11a, which has no card) waits for a choice: the
/// card, what to choose, and a button for every legal answer (for the chooser) or who is choosing
/// (for everyone else).
export function renderPending(view, legal, onChoose) {
  const { phase } = view;
  if (phase.phase !== 'pending') return null;
  const choices = legal?.choices ?? [];
  const mine = view.viewer === phase.role;
  return h(
    'section',
    {
      class: ['pending', mine ? 'mine' : null],
      'data-testid': 'pending',
      role: 'region',
      'aria-label': t('pending.title'),
    },
    h('h2', {}, t(phase.card === null ? 'pending.titleBonus' : 'pending.title')),
    phase.card === null ? null : renderEventCard(phase.card, { testid: 'pending-card' }),
    mine
      ? h('p', { class: 'prompt' }, t(`pending.${phase.decision.kind}`, { deck: phase.decision.deck }))
      : h('p', { class: 'prompt' }, t('pending.waiting', { who: t(`role.subject.${phase.role}`) })),
    mine && choices.length
      ? h(
          'div',
          { class: ['choices', phase.decision.kind] },
          choices.map((choice, i) =>
            h(
              'button',
              {
                class: choice.kind === 'decline' ? 'secondary' : 'primary',
                'data-testid': `choice-${i}`,
                'data-kind': choice.kind,
                onclick: () => onChoose(choice),
              },
              choiceLabel(choice, phase.decision.kind, view.decks),
            ),
          ),
        )
      : null,
  );
}
