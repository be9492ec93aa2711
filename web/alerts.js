// What the room page tells the player besides the table when a new state comes: what changed,
// read out to a screen reader; the optional sounds; and, when it becomes her turn while the tab
// is hidden (a slow game, played over a day), a browser notification if she allowed them and a
// title that flashes until she looks again. The offer to allow notifications is here too.

import { h, announce } from './dom.js';
import { t } from './i18n.js';
import { play } from './sound.js';
import { statusText } from './table.js';
import { describe, outcomeText } from './history.js';
import { seriesWinnerText } from './panels/series.js';

/// The alerts of one room's page; `onChange()` re-renders it (the title flash stopped).
export class Alerts {
  constructor(room, onChange) {
    this.room = room;
    this.onChange = onChange;
    /// The title's flashing interval while it flashes, and what stops it.
    this.flashing = null;
    this.stopFlash = null;
  }

  /// Everything the state `msg` tells after `before` (null for the first one). `notice`: the
  /// page's notice that came with it (the rematch's role swap), read out with it.
  changed(before, msg, notice) {
    tell(before, msg, notice);
    sound(before, msg);
    this.turn(before, msg);
  }

  /// The notification and the flashing title when it becomes this player's turn while the tab
  /// is hidden.
  turn(before, msg) {
    const view = msg.view;
    if (!before || view.viewer === 'spectator' || view.outcome) return;
    const mineNow = view.to_move === view.viewer;
    const mineBefore = before.game === msg.game && before.view.to_move === before.view.viewer;
    if (!mineNow || mineBefore || document.visibilityState === 'visible') return;
    if (typeof Notification !== 'undefined' && Notification.permission === 'granted') {
      try {
        new Notification(t('notify.yourTurn'), { body: t(`seat.role.${view.viewer}`), tag: `fugitive-${this.room}` });
      } catch {
        // Some browsers only notify from a service worker: the title still flashes.
      }
    }
    if (this.flashing) return;
    let on = false;
    this.flashing = setInterval(() => {
      on = !on;
      document.title = on ? `● ${t('notify.yourTurn')}` : `${t('title.room')} — Fugitive`;
      document.documentElement.dataset.titleFlash = 'true';
    }, 1000);
    this.stopFlash = () => {
      if (document.visibilityState !== 'visible') return;
      this.stop();
      this.onChange();
    };
    document.addEventListener('visibilitychange', this.stopFlash);
  }

  /// Stops the title's flashing (the tab is seen again, or the room is left).
  stop() {
    if (!this.flashing) return;
    clearInterval(this.flashing);
    this.flashing = null;
    delete document.documentElement.dataset.titleFlash;
    document.removeEventListener('visibilitychange', this.stopFlash);
    this.stopFlash = null;
  }
}

/// The optional sounds: your turn, a hideout found, the Manhunt, the end.
function sound(before, msg) {
  if (!before || before.game !== msg.game) return;
  const view = msg.view;
  const fresh = view.history.slice(before.view.history.length);
  if (view.outcome && !before.view.outcome) {
    play(view.viewer === 'spectator' || view.outcome.winner === view.viewer ? 'won' : 'lost');
  } else if (fresh.some((e) => e.type === 'manhunt_started')) play('manhunt');
  else if (fresh.some((e) => e.type === 'revealed')) play('found');
  else if (view.to_move === view.viewer && before.view.to_move !== before.view.viewer) play('turn');
}

/// Tells a screen reader what changed: new history entries by the other side, and the turn;
/// the end as the player's own result ("You lose."), with the series' result.
function tell(before, msg, notice) {
  const view = msg.view;
  const sameGame = before && before.game === msg.game;
  const seen = sameGame ? before.view.history.length : view.history.length;
  const lines = view.history
    .slice(seen)
    .map((e) =>
      e.type === 'game_over'
        ? [outcomeText(view.outcome, view.viewer, msg.room?.aborted), seriesWinnerText(view, msg.room)]
        : describe(e, view.viewer, view.decks),
    )
    .flat();
  const myTurnNow = view.to_move === view.viewer;
  const myTurnBefore = sameGame && before.view.to_move === before.view.viewer;
  if (before && !sameGame && notice) lines.push(notice);
  if (!before || (myTurnNow && !myTurnBefore) || lines.length) lines.push(statusText(view));
  if (view.outcome && lines.length === 0) return;
  const text = lines.filter(Boolean).join(' ');
  if (text) announce(text);
}

/// Asks for the browser's permission to notify, in a game with a long turn clock; `onChange()`
/// re-renders once the player answered.
export function renderNotifyOffer(view, room, onChange) {
  if (view.viewer === 'spectator' || view.outcome || !room.clock || room.clock.turn_secs < 3600) return null;
  if (typeof Notification === 'undefined') return null;
  if (Notification.permission === 'granted')
    return h('p', { class: 'notify-on', 'data-testid': 'notify-on' }, t('notify.on'));
  if (Notification.permission !== 'default') return null;
  return h(
    'button',
    {
      type: 'button',
      class: 'quiet',
      'data-testid': 'notify-enable',
      onclick: async () => {
        try {
          await Notification.requestPermission();
        } catch {
          // Refused or unsupported: the title flash remains.
        }
        onChange();
      },
    },
    t('notify.enable'),
  );
}
