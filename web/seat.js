// The seat this browser holds in a room: its token, kept in localStorage (`fugitive:seat:{room}`)
// or, for the other seat of a room this browser already plays in, in this tab's sessionStorage;
// the invitation claimed for it (`POST /api/rooms/{room}/claim`); and the links the landing page
// made for a new room, shown while the opponent has not come.

import { t } from './i18n.js';
import { local, session } from './storage.js';

const SEAT_PREFIX = 'fugitive:seat:';
const seatKey = (room) => `${SEAT_PREFIX}${room}`;
const shareKey = (room) => `fugitive:share:${room}`;

/// Keeps the seat of a room this browser made, with its invitation and spectator links.
export function keepSeat(room, token, links) {
  local.set(seatKey(room), token);
  local.setJson(shareKey(room), links);
}

/// Keeps a seat that came back with the profile (`profile.js`), unless this browser holds one in
/// that room already.
export function holdSeat(room, token) {
  if (local.get(seatKey(room)) === null) local.set(seatKey(room), token);
}

/// The rooms this browser holds a seat in.
export function seatRooms() {
  return local
    .keys()
    .filter((key) => key.startsWith(SEAT_PREFIX))
    .map((key) => key.slice(SEAT_PREFIX.length));
}

/// The invitation and spectator links kept for `room`, if this browser made it.
export function sharedLinks(room) {
  return local.getJson(shareKey(room), null);
}

/// Forgets the seat in `room`, in this tab and in this browser: the room does not know it.
export function forgetSeat(room) {
  local.remove(seatKey(room));
  session.remove(seatKey(room));
}

/// Keeps for this tab the other seat of a room this browser plays in (see `findSeat`): the
/// browser's own seat (localStorage) stays.
export function keepTabSeat(room, token) {
  session.set(seatKey(room), token);
}

/// Claims the invitation `invite`; returns the seat token, or the error code.
export async function claim(room, invite) {
  const res = await fetch(`/api/rooms/${room}/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invite }),
  }).catch(() => null);
  if (res?.ok) return { token: (await res.json()).token };
  const body = res ? await res.json().catch(() => ({})) : {};
  return { error: body.error ?? 'unreachable' };
}

/// Whether the room still waits for someone to claim a seat.
async function seatOpen(room) {
  const res = await fetch(`/api/rooms/${room}`).catch(() => null);
  if (!res?.ok) return false;
  const { seats } = await res.json();
  return !seats?.fugitive || !seats?.marshal;
}

/// Reads `#seat=` or `#invite=` from the address, claims an invitation, and returns the seat
/// token to use (null: watch as a spectator) and a notice to show, if any. A browser that already
/// holds a seat in the room does not claim the other one by opening the invitation: it is most
/// likely the player's own link for the opponent, so the page asks (`ownInvite`).
export async function findSeat(room) {
  const params = new URLSearchParams(location.hash.slice(1));
  const seat = params.get('seat');
  const invite = params.get('invite');
  if (seat || invite) history.replaceState(null, '', location.pathname);
  if (seat) {
    local.set(seatKey(room), seat);
    return { token: seat };
  }
  const known = session.get(seatKey(room)) ?? local.get(seatKey(room));
  if (invite) {
    if (known) return { token: known, ownInvite: (await seatOpen(room)) ? invite : null };
    const claimed = await claim(room, invite);
    if (claimed.token) {
      local.set(seatKey(room), claimed.token);
      return { token: claimed.token };
    }
    return { token: null, notice: claimed.error === 'seat_taken' ? t('room.inviteUsed') : t('room.inviteFailed') };
  }
  return { token: known };
}
