// The lines above the table that are about the room rather than the game: the question about
// this browser's own invitation, a notice, the connection, whether the opponent has come or is
// away, and why the last request was refused, in the reader's language.

import { h } from '../dom.js';
import { t, has } from '../i18n.js';

/// The banner. `page`: { ownInvite (the question's element, or null), notice, status (of the
/// connection), msg (the last state, or null), error }.
export function renderBanner({ ownInvite, notice, status, msg, error }) {
  const lines = [];
  if (ownInvite) lines.push(ownInvite);
  if (notice) lines.push(h('p', { class: 'notice', 'data-testid': 'notice', role: 'status' }, notice));
  if (status === 'gone') lines.push(h('p', { class: 'alert', 'data-testid': 'connection' }, t('conn.gone')));
  else if (status === 'origin') {
    const text = t('conn.origin', { origin: location.origin });
    lines.push(h('p', { class: 'alert', 'data-testid': 'connection' }, text));
  } else if (status === 'waiting' || status === 'reconnecting') {
    lines.push(h('p', { class: 'alert', 'data-testid': 'connection', role: 'status' }, t('conn.reconnecting')));
  }
  if (msg && msg.view.viewer !== 'spectator' && !msg.view.outcome) {
    const other = msg.view.viewer === 'fugitive' ? 'marshal' : 'fugitive';
    if (!msg.room.seats[other])
      lines.push(h('p', { class: 'notice', 'data-testid': 'opponent-missing' }, t('presence.notJoined')));
    else if (!msg.room.presence[other])
      lines.push(h('p', { class: 'notice', 'data-testid': 'opponent-away' }, t(`presence.away.${other}`)));
  }
  if (error) lines.push(h('p', { class: 'alert', 'data-testid': 'error', role: 'alert' }, error));
  return h('div', { class: 'banner' }, lines);
}

/// Why the server refused a request, in the reader's language: the refusal's typed reason
/// (`error.reason`, e.g. `draw_first`, from `ActionError::reason` of fugitive-core) when the
/// client has words for it, else the words for its code, else that it was refused.
export function refusalText(error) {
  const reason = `refusal.${error?.reason}`;
  if (error?.reason && has(reason)) return t(reason);
  const code = `error.${error?.code}`;
  return has(code) ? t(code) : t('room.refused');
}
