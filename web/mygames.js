// "My games" (issue 13): the rooms this browser holds a seat in, from localStorage, each with
// whose turn it is or how it ended, so a player comes back to a game without its link. The seat
// tokens are seat.js's; which role the seat played in which game is noted here
// (`fugitive:games`) each time the table shows a state. Every rematch swaps the roles, so the
// role in a later game follows from the game number.

import { h } from './dom.js';
import { t } from './i18n.js';
import { outcomeText, reasonText } from './history.js';
import { seatRooms } from './seat.js';
import { local } from './storage.js';

const GAMES_KEY = 'fugitive:games';

const notes = () => local.getJson(GAMES_KEY, {});

/// Notes that this browser's seat in `room` plays `role` in game `game`.
export function rememberGame(room, role, game) {
  if (role !== 'fugitive' && role !== 'marshal') return;
  const all = notes();
  const old = all[room];
  if (old && old.role === role && old.game === game) return;
  all[room] = { role, game, at: Date.now() };
  // Without storage there is no list.
  local.setJson(GAMES_KEY, all);
}

/// The rooms this browser holds a seat in, newest noted first.
export function myRooms() {
  const all = notes();
  return seatRooms()
    .map((room) => ({ room, note: all[room] ?? null }))
    .sort((a, b) => (b.note?.at ?? 0) - (a.note?.at ?? 0));
}

/// This seat's role in game `game`, from the note of an earlier game.
export function roleIn(note, game) {
  if (!note) return null;
  const other = note.role === 'fugitive' ? 'marshal' : 'fugitive';
  return (game - note.game) % 2 === 0 ? note.role : other;
}

/// What one entry says: `{ state, text }`, `state` one of your-turn, their-turn, waiting, won, lost,
/// aborted.
export function describeGame(summary, role) {
  const other = role === 'fugitive' ? 'marshal' : role === 'marshal' ? 'fugitive' : null;
  if (summary.outcome && summary.aborted) {
    return { state: 'aborted', text: outcomeText(summary.outcome, role ?? 'spectator', true) };
  }
  if (summary.outcome) {
    const won = summary.outcome.winner === role;
    const head = role ? (won ? t('myGames.won') : t('myGames.lost')) : t(`over.wins.${summary.outcome.winner}`);
    return { state: won ? 'won' : 'lost', text: `${head} ${reasonText(summary.outcome, role ?? 'spectator')}` };
  }
  if (other && !summary.seats[other]) return { state: 'waiting', text: t('myGames.waiting') };
  if (summary.to_move === role) return { state: 'your-turn', text: t('myGames.yourTurn') };
  return { state: 'their-turn', text: t('myGames.theirTurn') };
}

/// Fetches each room's summary; the rooms that no longer exist are left out.
export async function loadMyGames() {
  const rooms = myRooms();
  const entries = await Promise.all(
    rooms.map(async ({ room, note }) => {
      try {
        const response = await fetch(`/api/rooms/${room}`);
        if (!response.ok) return null;
        return { room, note, summary: await response.json() };
      } catch {
        return null;
      }
    }),
  );
  return entries.filter(Boolean);
}

/// The list, your turn first.
export function renderMyGames(entries) {
  if (!entries?.length) return null;
  const rank = { 'your-turn': 0, waiting: 1, 'their-turn': 2, won: 3, lost: 3, aborted: 3 };
  const rows = entries
    .map(({ room, note, summary }) => {
      const role = roleIn(note, summary.game);
      const other = role === 'fugitive' ? 'marshal' : 'fugitive';
      return { room, role, summary, other, ...describeGame(summary, role) };
    })
    .sort((a, b) => rank[a.state] - rank[b.state]);
  return h(
    'section',
    { class: 'my-games', 'data-testid': 'my-games', 'aria-labelledby': 'my-games-title' },
    h('h2', { id: 'my-games-title' }, t('myGames.title')),
    h(
      'ul',
      {},
      rows.map((row) =>
        h(
          'li',
          { class: ['my-game', row.state], 'data-testid': `my-game-${row.room}`, 'data-state': row.state },
          h(
            'a',
            { href: `/room/${row.room}` },
            h('span', { class: 'my-game-state' }, row.text),
            ' ',
            h(
              'span',
              { class: 'my-game-detail' },
              [
                row.role ? t(`myGames.as.${row.role}`) : null,
                row.summary.names?.[row.other] ? t('myGames.against', { name: row.summary.names[row.other] }) : null,
                t('myGames.game', { n: row.summary.game }),
              ]
                .filter(Boolean)
                .join(' · '),
            ),
          ),
        ),
      ),
    ),
  );
}
