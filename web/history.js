// The public history, in words (R8a, R13): every draw source, placement, guess and reveal.
// Each viewer's View already blanks what they may not know; this only puts it into sentences.

import { h } from './dom.js';
import { t, list } from './i18n.js';
import { cardName } from './events.js';

/// Why a game ended, in words; time and resignation name the loser ("you" for the viewer).
export function reasonText(outcome, viewer) {
  if (outcome.reason === 'time_out' || outcome.reason === 'resignation') {
    const loser = outcome.winner === 'fugitive' ? 'marshal' : 'fugitive';
    return t(`reason.${outcome.reason}.${viewer === loser ? 'you' : loser}`);
  }
  return t(`reason.${outcome.reason}`);
}

/// How a game ended, for `viewer`: who won ("You win." for the winner), and why. An `aborted`
/// game (the server says so: the loser's clock ran out before his first move) has no winner.
export function outcomeText(outcome, viewer, aborted = false) {
  if (aborted) {
    const loser = outcome.winner === 'fugitive' ? 'marshal' : 'fugitive';
    return `${t('over.aborted')} ${t(`over.aborted.${viewer === loser ? 'you' : loser}`)}`;
  }
  const head =
    viewer === 'spectator'
      ? t(`over.wins.${outcome.winner}`)
      : outcome.winner === viewer
        ? t('over.youWin')
        : t('over.youLose');
  return `${head} ${reasonText(outcome, viewer)}`;
}

/// One history entry as a sentence, for `viewer` ("you" for their own moves); `decks` are the
/// view's decks, whose ranges name what M3 Stakeout counted; `aborted`: the server said the game
/// was aborted.
export function describe(event, viewer, decks = [], aborted = false) {
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
      return aborted
        ? outcomeText(event.outcome, viewer, true)
        : `${t(`over.wins.${event.outcome.winner}`)} ${reasonText(event.outcome, viewer)}`;
    default:
      return describeEvent(event, viewer, decks);
  }
}

/// The entries of the event variants (../shared/EVENTS.md).
function describeEvent(event, viewer, decks) {
  const mine = (role) => viewer === role;
  const who = event.role ? t(`role.subject.${event.role}`) : '';
  const card = typeof event.card === 'string' ? cardName(event.card) : null;
  switch (event.type) {
    case 'event_drawn': {
      const key = event.deck === null ? 'log.eventFromPile' : 'log.eventDrawn';
      return t(mine(event.role) ? `${key}You` : key, { who, card, deck: event.deck });
    }
    case 'catchup_drawn':
      return t('log.catchupDrawn', { who, deck: event.deck, hidden: event.hidden });
    case 'no_effect':
      return t('log.noEffect', { card });
    case 'draw_missed':
      return t('log.drawMissed', { who });
    case 'trail_event_laid':
      return t('log.trailEvent', { card, position: event.position });
    case 'returned_to_deck':
      if (event.card === null) return t('log.returned', { who, deck: event.deck });
      return t(mine(event.role) ? 'log.returnedYou' : 'log.returnedCard', {
        who,
        number: event.card,
        deck: event.deck,
      });
    case 'sprint_added':
      if (event.card === null) return t('log.sprintAdded', { position: event.position });
      return t(mine('fugitive') ? 'log.sprintAddedYou' : 'log.sprintAddedCard', {
        number: event.card,
        position: event.position,
      });
    case 'sprints_shown':
      return t(event.sprints.length ? 'log.sprintsShown' : 'log.sprintsShownNone', {
        position: event.position,
        sprints: event.sprints.join(', '),
      });
    case 'stakeout_counted': {
      const deck = decks.find((d) => d.deck === event.deck);
      return t('log.stakeout', { n: event.count, from: deck?.low, to: deck?.high });
    }
    case 'eyewitness':
      return t('log.eyewitness', { position: event.position, low: event.low, high: event.high });
    case 'peeked': {
      if (event.card === null) return t('log.peeked', { who, deck: event.deck });
      const top = typeof event.card === 'number' ? event.card : event.card === 'catchup' ? t('log.catchupCard') : card;
      return t(mine(event.role) ? 'log.peekedYou' : 'log.peekedCard', { who, deck: event.deck, top });
    }
    case 'moved_to_bottom':
      return t(event.moved ? 'log.moved' : 'log.kept', { deck: event.deck });
    case 'declined':
      // No card: the Fugitive did not draw the pass bonus (R11a).
      if (card === null) return t(mine(event.role) ? 'log.declinedBonusYou' : 'log.declinedBonus', { who });
      return t(mine(event.role) ? 'log.declinedYou' : 'log.declined', { who, card });
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
    case 'event_drawn':
    case 'catchup_drawn':
    case 'trail_event_laid':
      return 'event';
    default:
      return null;
  }
}

export function renderHistory(view, aborted = false) {
  const entries = view.history.map((event, i) =>
    h(
      'li',
      { class: ['entry', event.type, tone(event)], 'data-testid': `log-${i}`, 'data-type': event.type },
      describe(event, view.viewer, view.decks, aborted),
    ),
  );
  return h(
    'section',
    { class: 'history', 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title' }, t('log.title')),
    entries.length
      ? h('ol', { class: 'log', 'data-testid': 'log', tabindex: 0, 'aria-labelledby': 'history-title' }, entries)
      : h('p', { class: 'empty', 'data-testid': 'log' }, t('log.empty')),
  );
}
