// The public history, in words (R8a, R13): every draw source, placement, guess and reveal.
// Each viewer's View already blanks what they may not know; this only puts it into sentences.

import { h } from './dom.js';
import { t, list } from './i18n.js';

/// One history entry as a sentence, for `viewer` ("you" for their own moves).
export function describe(event, viewer) {
  const mine = (role) => viewer === role;
  const subject = (role) => t(`role.subject.${role}`);
  switch (event.type) {
    case 'drew':
      if (mine(event.role) && event.card !== null) return t('log.drewYou', { deck: event.deck, card: event.card });
      if (event.card !== null)
        return t('log.drewCard', { who: subject(event.role), deck: event.deck, card: event.card });
      return t('log.drew', { who: subject(event.role), deck: event.deck });
    case 'draw_skipped':
      return t('log.drawSkipped', { who: subject(event.role) });
    case 'placed': {
      const base = { position: event.position, n: event.sprint_count };
      if (event.hideout === 42 && event.sprints === null) return t('log.placed42', base);
      if (event.hideout !== null && event.sprints !== null) {
        const who = mine('fugitive') ? 'log.placedYou' : 'log.placedCard';
        const key = event.sprints.length ? who : `${who}NoSprint`;
        return t(key, { ...base, card: event.hideout, sprints: event.sprints.join(', ') });
      }
      return t(event.sprint_count ? 'log.placed' : 'log.placedNoSprint', base);
    }
    case 'passed':
      return t(mine('fugitive') ? 'log.passedYou' : 'log.passed');
    case 'turn_ended':
      return t(mine('fugitive') ? 'log.turnEndedYou' : 'log.turnEnded');
    case 'guessed': {
      const key = event.right ? 'log.guessRight' : 'log.guessWrong';
      return t(mine('marshal') ? `${key}You` : key, { who: subject('marshal'), numbers: list(event.numbers) });
    }
    case 'revealed':
      return t(event.sprints.length ? 'log.revealed' : 'log.revealedNoSprint', {
        card: event.hideout,
        position: event.position,
        sprints: event.sprints.join(', '),
        n: event.sprints.length,
      });
    case 'manhunt_started':
      return t('log.manhunt', { h: event.highest_revealed });
    case 'resigned':
      return t(mine(event.role) ? 'log.resignedYou' : 'log.resigned', { who: subject(event.role) });
    case 'timed_out':
      return t(mine(event.role) ? 'log.timedOutYou' : 'log.timedOut', { who: subject(event.role) });
    case 'game_over':
      return `${t(`over.wins.${event.outcome.winner}`)} ${t(`reason.${event.outcome.reason}`)}`;
    default:
      return '';
  }
}

/// The kind of entry, for its colour in the log.
function tone(event) {
  switch (event.type) {
    case 'guessed':
      return event.right ? 'right' : 'wrong';
    case 'revealed':
    case 'manhunt_started':
    case 'game_over':
      return 'loud';
    case 'placed':
      return 'fugitive';
    default:
      return null;
  }
}

export function renderHistory(view) {
  const entries = view.history.map((event, i) =>
    h(
      'li',
      { class: ['entry', event.type, tone(event)], 'data-testid': `log-${i}`, 'data-type': event.type },
      describe(event, view.viewer),
    ),
  );
  return h(
    'section',
    { class: 'history', 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title' }, t('log.title')),
    entries.length
      ? h('ol', { class: 'log', 'data-testid': 'log' }, entries)
      : h('p', { class: 'empty', 'data-testid': 'log' }, t('log.empty')),
  );
}
