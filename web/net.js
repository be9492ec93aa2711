// The WebSocket connection to one room (docs/protocol.md, protocol version 2 of
// docs/protocol-v2.md): hello with the seat token, replies matched by `seq`, the state held as a
// snapshot with the deltas since applied (a delta that does not fit asks for a `resync`), and
// reconnection with back-off. An action
// still waiting for its reply when the socket drops is sent again with the same `seq`: the server
// answers a repeated `seq` with its stored reply instead of applying it twice. An `unavailable`
// reply (the server could not store the action) is retried with the same `seq` a few times.

import { applyDelta, fits } from './delta.js';

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const ROOM_GONE = 4004;
/// `GET /api/origin?origin=…`: whether the server lets a page of this origin open a socket.
const ORIGIN_CHECK = '/api/origin?origin=';
const RETRIES = 3;
/// The protocol version this client speaks (`/ws/v2/…`, `"v": 2`).
const VERSION = 2;

export class Connection {
  /// `handlers`: { welcome(msg), state(msg), status(kind, detail), error(code, message) };
  /// `state` gets the whole state (`version`, `game`, `view`, `legal`, `room`, `notepad`) after
  /// every change, as a snapshot holds it.
  constructor(room, token, handlers) {
    this.room = room;
    this.token = token;
    /// The player's display name, sent with `hello` (a spectator's is not sent).
    this.name = null;
    this.handlers = handlers;
    this.lastSeq = 0;
    this.pending = new Map(); // seq → { message, resolve }
    this.version = -1;
    /// The state held: the last snapshot with every delta since.
    this.held = null;
    /// A `resync` was asked for: deltas are dropped until its snapshot comes.
    this.resyncing = false;
    this.attempt = 0;
    this.socket = null;
    this.closed = false;
    this.timer = null;
    this.ready = false;
    window.addEventListener('online', () => this.reconnectNow());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.reconnectNow();
    });
  }

  /// A fresh `seq`, larger than every one sent before, even by an earlier page of this seat.
  nextSeq() {
    this.lastSeq = Math.max(this.lastSeq + 1, Date.now());
    return this.lastSeq;
  }

  open() {
    this.closed = false;
    this.timer = null;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/ws/v${VERSION}/rooms/${this.room}`);
    this.socket = socket;
    this.ready = false;
    // A new socket starts with its own snapshot.
    this.held = null;
    this.resyncing = false;
    this.handlers.status(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      this.hello();
    });
    socket.addEventListener('message', (event) => this.receive(event.data));
    socket.addEventListener('close', (event) => {
      // A refused upgrade never opens, and the browser hides why: ask the server whether it
      // refuses this page's origin (--allowed-origins), which no reconnection would change.
      if (opened) this.dropped(socket, event.code);
      else originRefused().then((refused) => (refused ? this.refused(socket) : this.dropped(socket, event.code)));
    });
  }

  hello() {
    const message = { v: VERSION, seq: this.nextSeq(), type: 'hello', token: this.token ?? null };
    if (this.token && this.name) message.name = this.name;
    this.socket.send(JSON.stringify(message));
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    switch (msg.type) {
      case 'welcome':
        this.ready = true;
        this.attempt = 0;
        this.lastSeq = Math.max(this.lastSeq, msg.last_seq ?? 0);
        this.handlers.status('online');
        this.handlers.welcome(msg);
        for (const [seq, entry] of this.pending) this.sendRaw({ ...entry.message, seq });
        break;
      case 'snapshot': {
        this.resyncing = false;
        const { v, type, ...state } = msg;
        this.held = state;
        if (state.version < this.version) return;
        this.version = state.version;
        this.handlers.state(state);
        break;
      }
      case 'delta':
        if (this.resyncing) return;
        if (!fits(this.held, msg)) {
          // A delta made from another state than the one held: ask for a whole one.
          this.resync();
          return;
        }
        this.held = applyDelta(this.held, msg);
        this.version = this.held.version;
        this.handlers.state(this.held);
        break;
      case 'chat':
        this.handlers.chat?.(msg);
        break;
      case 'reply': {
        const entry = this.pending.get(msg.seq);
        if (entry && msg.error?.code === 'unavailable' && entry.tries < RETRIES) {
          // The server could not store it and changed nothing: the same `seq` again, later.
          entry.tries += 1;
          setTimeout(() => this.sendRaw({ ...entry.message, seq: msg.seq }), 500 * entry.tries);
        } else if (entry) {
          this.pending.delete(msg.seq);
          entry.resolve(msg);
        } else if (!msg.ok) {
          // A refused hello: a token this room does not know. Watch as a spectator instead.
          this.handlers.error(msg.error?.code, msg.error?.message);
          if (msg.error?.code === 'bad_token' && this.token) {
            this.token = null;
            this.hello();
          } else if (msg.error?.code === 'bad_name' && this.name) {
            // A stored name the server refuses: join without it.
            this.name = null;
            this.hello();
          }
        }
        break;
      }
      default:
        break;
    }
  }

  sendRaw(message) {
    if (this.socket?.readyState === WebSocket.OPEN && this.ready) {
      this.socket.send(JSON.stringify({ v: VERSION, ...message }));
    }
  }

  /// Asks for a snapshot of the state (its reply is not awaited: the snapshot is the answer).
  resync() {
    this.resyncing = true;
    this.sendRaw({ type: 'resync', seq: this.nextSeq() });
  }

  /// Sends `{type, ...}`; resolves with the server's reply (`ok`, `error`), even across a
  /// reconnect.
  request(message) {
    const seq = this.nextSeq();
    return new Promise((resolve) => {
      this.pending.set(seq, { message, resolve, tries: 0 });
      this.sendRaw({ ...message, seq });
    });
  }

  act(action) {
    return this.request({ type: 'action', action });
  }

  rematch() {
    return this.request({ type: 'rematch' });
  }

  /// A chat message: `{ text }` or `{ quick }`.
  chat(body) {
    return this.request({ type: 'chat', ...body });
  }

  /// Whether this player lets spectators read the chat.
  chatSpectators(allow) {
    return this.request({ type: 'chat_spectators', allow });
  }

  /// The player's new display name (`''` clears it).
  rename(name) {
    this.name = name || null;
    return this.request({ type: 'name', name });
  }

  dropped(socket, code) {
    if (socket !== this.socket || this.closed) return;
    this.ready = false;
    if (code === ROOM_GONE) {
      this.closed = true;
      this.handlers.status('gone');
      return;
    }
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    const jittered = Math.round(delay * (0.75 + Math.random() * 0.5));
    this.attempt += 1;
    this.handlers.status('waiting', jittered);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), jittered);
  }

  /// The server does not accept sockets from this page's origin: stop and say so.
  refused(socket) {
    if (socket !== this.socket || this.closed) return;
    this.closed = true;
    this.ready = false;
    this.handlers.status('origin');
  }

  /// The browser says the network is back or the tab is visible again: don't wait out the
  /// back-off.
  reconnectNow() {
    if (this.closed || !this.socket || this.socket.readyState !== WebSocket.CLOSED) return;
    clearTimeout(this.timer);
    this.open();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.socket?.close(1000);
  }
}

/// Whether the server refuses WebSockets from this page's origin (`403 origin_not_allowed`).
export async function originRefused(origin = location.origin, get = fetch) {
  try {
    const response = await get(ORIGIN_CHECK + encodeURIComponent(origin));
    if (response.status !== 403) return false;
    const body = await response.json();
    return body?.error === 'origin_not_allowed';
  } catch {
    return false;
  }
}
