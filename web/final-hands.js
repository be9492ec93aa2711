// Both hands shown whole once a game is over (R18): on the game-over panel of the room and on
// every step of a replay, which shows everything.

import { h } from './dom.js';
import { t } from './i18n.js';

/// The Fugitive's and the Marshal's hands; each list's test id is `{testid}-{role}`.
export function renderFinalHands(view, testid) {
  return h(
    'dl',
    { class: 'final-hands' },
    ['fugitive', 'marshal'].map((role) => [
      h('dt', {}, t(`over.hand.${role}`)),
      h(
        'dd',
        { 'data-testid': `${testid}-${role}` },
        (view.hands[role].cards ?? []).length
          ? view.hands[role].cards.map((c) => h('span', { class: 'chip', 'data-card': c }, c))
          : t('over.handEmpty'),
      ),
    ]),
  );
}
