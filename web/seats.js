// The seats: who plays which side, who is to move and the turn clock counting down, who is
// away; and how many people watch.

import { h } from './dom.js';
import { t } from './i18n.js';

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

/// How many people watch, for everyone at the table.
export function renderSpectators(room) {
  const n = room.spectators ?? 0;
  return h('p', { class: 'spectators', 'data-testid': 'spectators', 'data-count': n }, t('room.spectators', { n }));
}
