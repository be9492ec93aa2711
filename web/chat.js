// The chat between the two players (issue 13): their own words or a one-tap message, shown to
// spectators read-only while both players allow it, and a mute button (kept per room in this
// browser) that hides the other side's messages. A message is shown as text, never as markup.
// The list follows new messages while the reader is at its end; a reader scrolled up to older
// ones stays there and is offered a quiet "New messages" button instead, as chat apps do.

import { h, atEnd } from './dom.js';
import { t } from './i18n.js';
import { local } from './storage.js';

export const MAX_CHAT = 200;
export const QUICK = ['good_luck', 'well_played', 'thinking'];
const muteKey = (room) => `fugitive:mute:${room}`;

/// The chat as a room's page holds it: the messages shown, whether this browser muted the other
/// side here (kept per room), the text being typed, `unseen` (messages came while the reader was
/// scrolled up) and `toEnd` (the next render shows the chat's end: the reader's own message, or
/// the "New messages" button pressed).
export class ChatState {
  constructor(room) {
    this.room = room;
    this.messages = [];
    this.muted = local.get(muteKey(room)) === '1';
    this.draft = null;
    this.unseen = false;
    this.toEnd = false;
  }

  /// Takes a `chat` frame for the viewer `me`, whose list is `shown` (null before the first
  /// render); returns the other side's new messages in words, to read out (none while muted).
  receive(frame, me, shown) {
    this.messages = mergeChat(this.messages, frame);
    if (frame.full) return null;
    const readingBack = shown !== null && !atEnd(shown);
    if (frame.messages.some((m) => m.from === me)) this.toEnd = true;
    else if (readingBack && !this.muted && frame.messages.length) this.unseen = true;
    if (this.muted) return null;
    const theirs = frame.messages.filter((m) => m.from !== me);
    return theirs.length ? theirs.map((m) => `${t(`role.${m.from}`)}: ${chatText(m)}`).join(' ') : null;
  }

  /// Mutes or unmutes the other side, and remembers it for this room.
  toggleMute() {
    this.muted = !this.muted;
    if (this.muted) local.set(muteKey(this.room), '1');
    else local.remove(muteKey(this.room));
  }

  /// The chat panel of the room's page: `conn` is the room's connection, `send(request)` sends a
  /// request the page's way (a promise of its reply), `render()` draws the page again.
  panel(view, room, { conn, send, render }) {
    return renderChat(view, room, this, {
      send: async (text) => {
        const reply = await send(conn.chat({ text }));
        if (reply.ok) {
          this.draft = null;
          render();
        }
      },
      quick: (quick) => send(conn.chat({ quick })),
      allow: (allow) => send(conn.chatSpectators(allow)),
      mute: () => {
        this.toggleMute();
        render();
      },
      draft: (text) => {
        this.draft = text;
      },
      seen: () => {
        this.unseen = false;
        this.toEnd = true;
        render();
      },
    });
  }
}

/// Merges a `chat` frame into the messages shown: `full` replaces them, otherwise new ones are
/// added (a message already shown is not shown twice).
export function mergeChat(shown, frame) {
  if (frame.full) return [...frame.messages];
  const seen = new Set(shown.map((m) => m.n));
  return [...shown, ...frame.messages.filter((m) => !seen.has(m.n))];
}

/// The words of one message, in the reader's language for a one-tap message.
export function chatText(message) {
  return message.quick ? t(`chat.quick.${message.quick}`) : message.text;
}

function who(message, me, names) {
  if (message.from === me) return t('chat.you');
  return names?.[message.from] || t(`role.${message.from}`);
}

/// The chat panel. `state`: { messages, muted, draft, unseen }; `on`: { send(text), quick(id),
/// allow(bool), mute(), draft(text), seen() }. `unseen`: messages arrived while the reader was
/// scrolled up; `seen()` is called when the reader reaches the end or asks to jump there.
export function renderChat(view, room, state, on) {
  const me = view.viewer;
  const spectator = me === 'spectator';
  const open = room.chat_spectators?.fugitive && room.chat_spectators?.marshal;
  const title = h('h2', { id: 'chat-title' }, t('chat.title'));
  if (spectator && !open) {
    return h(
      'section',
      { class: 'chat', 'data-testid': 'chat', 'aria-labelledby': 'chat-title' },
      title,
      h('p', { class: 'empty', 'data-testid': 'chat-private' }, t('chat.private')),
    );
  }
  const shown = state.muted ? state.messages.filter((m) => m.from === me) : state.messages;
  const list = shown.length
    ? h(
        'ol',
        {
          class: 'chat-log',
          'data-testid': 'chat-log',
          tabindex: 0,
          'aria-labelledby': 'chat-title',
          onscroll: (event) => {
            if (state.unseen && atEnd(event.target)) on.seen();
          },
        },
        shown.map((m) =>
          h(
            'li',
            { class: ['chat-line', m.from, m.from === me ? 'mine' : null], 'data-testid': `chat-${m.n}` },
            h('span', { class: 'chat-who' }, `${who(m, me, room.names)}: `),
            h('span', { class: 'chat-text' }, chatText(m)),
          ),
        ),
      )
    : h('p', { class: 'empty' }, t('chat.empty'));
  const unseen =
    state.unseen && shown.length
      ? h(
          'button',
          { type: 'button', class: 'quiet chat-new', 'data-testid': 'chat-new', onclick: on.seen },
          t('chat.newMessages'),
        )
      : null;
  const muteButton = h(
    'button',
    {
      type: 'button',
      class: 'quiet',
      'data-testid': 'chat-mute',
      'aria-pressed': state.muted,
      onclick: on.mute,
    },
    state.muted ? t('chat.unmute') : t('chat.mute'),
  );
  const parts = [title, state.muted ? h('p', { class: 'notice', 'data-testid': 'chat-muted' }, t('chat.muted')) : null];
  parts.push(list, unseen);
  if (spectator) {
    parts.push(muteButton);
    return h('section', { class: 'chat', 'data-testid': 'chat', 'aria-labelledby': 'chat-title' }, parts);
  }
  parts.push(
    h(
      'div',
      { class: 'chat-quick' },
      QUICK.map((id) =>
        h(
          'button',
          { type: 'button', 'data-testid': `chat-quick-${id}`, onclick: () => on.quick(id) },
          t(`chat.quick.${id}`),
        ),
      ),
    ),
    h(
      'form',
      {
        class: 'chat-form',
        onsubmit: (event) => {
          event.preventDefault();
          const text = event.target.querySelector('input').value.trim();
          if (text) on.send(text);
        },
      },
      h('label', { for: 'chat-input', class: 'visually-hidden' }, t('chat.label')),
      h('input', {
        type: 'text',
        id: 'chat-input',
        'data-testid': 'chat-input',
        maxlength: MAX_CHAT,
        autocomplete: 'off',
        placeholder: t('chat.label'),
        value: state.draft ?? '',
        oninput: (event) => on.draft(event.target.value),
      }),
      h('button', { type: 'submit', 'data-testid': 'chat-send' }, t('chat.send')),
    ),
    h(
      'label',
      { class: 'chat-public' },
      h('input', {
        type: 'checkbox',
        'data-testid': 'chat-public',
        checked: room.chat_spectators?.[me] ?? false,
        onchange: (event) => on.allow(event.target.checked),
      }),
      ` ${t('chat.public')}`,
    ),
    muteButton,
  );
  return h('section', { class: 'chat', 'data-testid': 'chat', 'aria-labelledby': 'chat-title' }, parts);
}
