// One room's page: finds the seat (token from the link's fragment or localStorage), keeps the
// connection, and renders the table for the Fugitive, the Marshal or a spectator.

import { rememberGame } from './mygames.js';
import { replayPath } from './replay.js';
import { renderChat, mergeChat, chatText, muteKey } from './chat.js';
import { h, replace, announce, atEnd, keepScroll, bringIntoView } from './dom.js';
import { t, has, onLanguageChange } from './i18n.js';
import { Connection } from './net.js';
import { renderTrail, renderDecks, renderSeats, statusText, tickClocks, lastMove, ownGuess } from './table.js';
import { emptySelection, toggleCard, pruneSelection, renderHand, renderMove } from './fugitive.js';
import {
  loadMarks,
  saveMarks,
  renderBoard,
  renderGuessAction,
  renderNotebook,
  guessWarnings,
  pickNumber,
} from './marshal.js';
import { play } from './sound.js';
import { renderHistory, describe, reasonText } from './history.js';
import { renderShare, copyText } from './landing.js';
import { renderEventsPanel, renderPending } from './events.js';

export const seatKey = (room) => `fugitive:seat:${room}`;
export const shareKey = (room) => `fugitive:share:${room}`;
/// Set by the landing page in a room it made against the computer: no series score there.
/// The player's display name, one for this browser, sent with every `hello`.
export const NAME_KEY = 'fugitive:name';
export const MAX_NAME = 24;

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function forget(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    // Nothing stored, nothing to forget.
  }
}

function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Without storage the seat lasts as long as the page.
  }
}

/// This tab's seat, when it took the other seat of a room this browser already plays in (see
/// `ownInvitation`): kept in sessionStorage, so the browser's own seat (localStorage) stays.
function tabSeat(room) {
  try {
    return sessionStorage.getItem(seatKey(room));
  } catch {
    return null;
  }
}

function storeTabSeat(room, token) {
  try {
    sessionStorage.setItem(seatKey(room), token);
  } catch {
    // Without session storage the other seat lasts as long as the page.
  }
}

/// Claims the invitation `invite`; returns the seat token, or the error code.
async function claim(room, invite) {
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
async function findSeat(room) {
  const params = new URLSearchParams(location.hash.slice(1));
  const seat = params.get('seat');
  const invite = params.get('invite');
  if (seat || invite) history.replaceState(null, '', location.pathname);
  if (seat) {
    store(seatKey(room), seat);
    return { token: seat };
  }
  const known = tabSeat(room) ?? stored(seatKey(room));
  if (invite) {
    if (known) return { token: known, ownInvite: (await seatOpen(room)) ? invite : null };
    const claimed = await claim(room, invite);
    if (claimed.token) {
      store(seatKey(room), claimed.token);
      return { token: claimed.token };
    }
    return { token: null, notice: claimed.error === 'seat_taken' ? t('room.inviteUsed') : t('room.inviteFailed') };
  }
  return { token: known };
}

export async function showRoom(root, room) {
  const page = new RoomPage(root, room);
  const seat = await findSeat(room);
  page.notice = seat.notice ?? null;
  page.ownInvite = seat.ownInvite ?? null;
  page.start(seat.token);
  return page;
}

/// How long a card takes to arrive on the table (the `deal` animation of style.css).
const ARRIVE_MS = 450;

/// The trail positions that a new state adds or changes (a new hideout, a card turned, a sprint
/// card added): they arrive animated in the next render only.
function arrivals(before, msg) {
  if (!before || before.game !== msg.game) return null;
  const old = before.view.trail;
  const changed = new Set();
  msg.view.trail.forEach((pos, i) => {
    const was = old[i];
    if (!was || was.face_up !== pos.face_up || was.sprint_count !== pos.sprint_count) changed.add(i);
  });
  return changed;
}

class RoomPage {
  constructor(root, room) {
    this.root = root;
    this.room = room;
    this.msg = null; // the last `state`
    this.status = 'connecting';
    this.selection = emptySelection();
    this.notes = { mode: 'guess', selected: new Set(), marks: {}, warning: null };
    this.notesGame = null;
    this.busy = false;
    this.error = null;
    this.notice = null;
    this.ownInvite = null; // the invitation for the opponent, opened by the player who holds a seat
    this.confirmResign = false;
    this.nameDraft = null; // the name field's text while the player types
    // `unseen`: messages came while the reader was scrolled up; `toEnd`: the next render shows
    // the chat's end (the reader's own message, or the "New messages" button).
    this.chat = { messages: [], muted: stored(muteKey(room)) === '1', draft: null, unseen: false, toEnd: false };
    this.reveal = []; // what the next render brings into sight: the result, the rematch line
    this.inspected = null; // the face-down position the Marshal's notebook shows
    this.arrivals = null; // trail positions new or turned with the last state: animated once
    onLanguageChange(() => this.render());
    setInterval(tickClocks, 250);
  }

  start(token) {
    this.token = token;
    this.conn = new Connection(this.room, token, {
      welcome: () => {},
      state: (msg) => this.onState(msg),
      chat: (frame) => this.onChat(frame),
      status: (kind) => {
        this.status = kind;
        this.render();
      },
      error: (code) => {
        if (code === 'bad_token') {
          this.notice = t('room.badToken');
          forget(seatKey(this.room));
          try {
            sessionStorage.removeItem(seatKey(this.room));
          } catch {
            // Nothing stored for this tab.
          }
        }
        this.render();
      },
    });
    this.conn.name = stored(NAME_KEY);
    this.conn.open();
    this.render();
  }

  /// The player's name field: kept in this browser, sent to the room.
  namePanel() {
    if (this.msg.view.viewer === 'spectator') return null;
    const save = (event) => {
      event.preventDefault();
      const name = event.target.querySelector('input').value.trim();
      this.nameDraft = null;
      if (name) store(NAME_KEY, name);
      else forget(NAME_KEY);
      this.send(this.conn.rename(name));
    };
    return h(
      'form',
      { class: 'name-form', 'data-testid': 'name-form', onsubmit: save },
      h('label', { for: 'my-name' }, t('name.label')),
      h('input', {
        type: 'text',
        id: 'my-name',
        'data-testid': 'name-input',
        maxlength: MAX_NAME,
        autocomplete: 'nickname',
        // What the player is typing survives the re-render of a new state.
        value: this.nameDraft ?? this.msg.room.names?.[this.msg.view.viewer] ?? stored(NAME_KEY) ?? '',
        oninput: (event) => {
          this.nameDraft = event.target.value;
        },
      }),
      h('button', { type: 'submit', 'data-testid': 'name-save', disabled: this.busy }, t('name.save')),
    );
  }

  onChat(frame) {
    const before = this.chat.messages;
    this.chat.messages = mergeChat(before, frame);
    const me = this.msg?.view.viewer;
    if (!frame.full) {
      const list = this.root.querySelector('.chat-log');
      const readingBack = list !== null && !atEnd(list);
      if (frame.messages.some((m) => m.from === me)) this.chat.toEnd = true;
      else if (readingBack && !this.chat.muted && frame.messages.length) this.chat.unseen = true;
    }
    if (!frame.full && !this.chat.muted) {
      const theirs = frame.messages.filter((m) => m.from !== me);
      if (theirs.length) announce(theirs.map((m) => `${t(`role.${m.from}`)}: ${chatText(m)}`).join(' '));
    }
    this.render();
  }

  chatPanel() {
    const { view, room } = this.msg;
    return renderChat(view, room, this.chat, {
      send: async (text) => {
        const reply = await this.send(this.conn.chat({ text }));
        if (reply.ok) {
          this.chat.draft = null;
          this.render();
        }
      },
      quick: (quick) => this.send(this.conn.chat({ quick })),
      allow: (allow) => this.send(this.conn.chatSpectators(allow)),
      mute: () => {
        this.chat.muted = !this.chat.muted;
        if (this.chat.muted) store(muteKey(this.room), '1');
        else forget(muteKey(this.room));
        this.render();
      },
      draft: (text) => {
        this.chat.draft = text;
      },
      seen: () => {
        this.chat.unseen = false;
        this.chat.toEnd = true;
        this.render();
      },
    });
  }

  /// The series score by seat, under each player's current role, once there is one to show;
  /// never against the computer, where rematches are practice, not a match.
  seriesLine() {
    const { room, game } = this.msg;
    const series = room.series;
    if (!series || room.computer) return null;
    if (game === 1 && !series.best_of && !series.wins.fugitive && !series.wins.marshal) return null;
    const who = (role) => room.names?.[role] || t(`role.${role}`);
    const score = t('series.score', {
      fugitive: who('fugitive'),
      marshal: who('marshal'),
      a: series.wins.fugitive,
      b: series.wins.marshal,
    });
    const of = series.best_of ? ` ${t('series.bestOfShort', { n: series.best_of })}` : '';
    return h(
      'p',
      {
        class: 'series',
        'data-testid': 'series',
        'data-fugitive': series.wins.fugitive,
        'data-marshal': series.wins.marshal,
      },
      score + of,
    );
  }

  /// The series' winner in words, once there is one.
  seriesWinnerText() {
    const { room, view } = this.msg;
    const winner = room.series?.winner;
    if (!winner) return null;
    if (view.viewer === winner) return t('series.youWin');
    if (view.viewer === 'spectator') return t('series.wins', { name: room.names?.[winner] || t(`role.${winner}`) });
    return t('series.youLose');
  }

  /// The series' winner, announced at game over.
  seriesWinner() {
    const text = this.seriesWinnerText();
    if (!text) return null;
    const winner = this.msg.room.series.winner;
    return h('p', { class: 'series-winner', 'data-testid': 'series-winner', 'data-winner': winner }, text);
  }

  /// How many people watch, for everyone at the table.
  spectatorLine() {
    const n = this.msg.room.spectators ?? 0;
    return h('p', { class: 'spectators', 'data-testid': 'spectators', 'data-count': n }, t('room.spectators', { n }));
  }

  onState(msg) {
    const before = this.msg;
    rememberGame(this.room, msg.view.viewer, msg.game);
    this.msg = msg;
    const changed = arrivals(before, msg);
    this.arrivals = changed && changed.size ? { positions: changed, at: performance.now() } : null;
    this.deadline = msg.room.clock ? Date.now() + msg.room.clock.remaining_ms : null;
    const view = msg.view;
    if (before && before.game !== msg.game) {
      this.selection = emptySelection();
      this.notes.selected.clear();
      this.notes.warning = null;
      this.inspected = null;
      // A rematch swaps the roles: say so where the player looks, the table looks the other
      // way round now.
      if (before.view.viewer !== view.viewer && view.viewer !== 'spectator') {
        this.notice = t(`rematch.youNow.${view.viewer}`);
        this.reveal = ['notice'];
      }
    }
    // The end of the game, seen happen: the result (and the series') where the player looks,
    // wherever she was on the page (the board, the hand, the log).
    if (before && before.game === msg.game && view.outcome && !before.view.outcome) {
      this.reveal = ['over-line', 'series-winner'];
    }
    if (this.notesGame !== msg.game) {
      this.notesGame = msg.game;
      this.notes.marks = loadMarks(this.room, msg.game);
    }
    pruneSelection(this.selection, view.hands.fugitive.cards ?? []);
    if (msg.legal?.guess) {
      for (const n of [...this.notes.selected]) if (!msg.legal.guess.numbers.includes(n)) this.notes.selected.delete(n);
    } else {
      this.notes.selected.clear();
      this.notes.warning = null;
    }
    if (this.inspected !== null && (view.trail[this.inspected]?.face_up ?? true)) this.inspected = null;
    this.tell(before, msg);
    this.sound(before, msg);
    this.alertTurn(before, msg);
    this.render();
  }

  /// When it becomes this player's turn while the tab is hidden (a slow game, played over a day):
  /// a browser notification if the player allowed them, and the tab's title flashes until the tab
  /// is seen again.
  alertTurn(before, msg) {
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
    const stop = () => {
      if (document.visibilityState !== 'visible') return;
      clearInterval(this.flashing);
      this.flashing = null;
      delete document.documentElement.dataset.titleFlash;
      document.removeEventListener('visibilitychange', stop);
      this.render();
    };
    document.addEventListener('visibilitychange', stop);
  }

  /// Asks for the browser's permission to notify, in a game with a long turn clock.
  notifyOffer() {
    const { view, room } = this.msg;
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
          this.render();
        },
      },
      t('notify.enable'),
    );
  }

  /// The optional sounds: your turn, a hideout found, the Manhunt, the end.
  sound(before, msg) {
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
  tell(before, msg) {
    const view = msg.view;
    const sameGame = before && before.game === msg.game;
    const seen = sameGame ? before.view.history.length : view.history.length;
    const lines = view.history
      .slice(seen)
      .map((e) =>
        e.type === 'game_over' ? [this.outcomeText(), this.seriesWinnerText()] : describe(e, view.viewer, view.decks),
      )
      .flat();
    const myTurnNow = view.to_move === view.viewer;
    const myTurnBefore = sameGame && before.view.to_move === before.view.viewer;
    if (before && !sameGame && this.notice) lines.push(this.notice);
    if (!before || (myTurnNow && !myTurnBefore) || lines.length) lines.push(statusText(view));
    if (view.outcome && lines.length === 0) return;
    const text = lines.filter(Boolean).join(' ');
    if (text) announce(text);
  }

  async send(request) {
    this.busy = true;
    this.error = null;
    this.render();
    const reply = await request;
    this.busy = false;
    if (!reply.ok) {
      const key = `error.${reply.error?.code}`;
      this.error = has(key) ? t(key) : t('room.refused');
    }
    this.render();
    return reply;
  }

  act(action) {
    return this.send(this.conn.act(action));
  }

  render() {
    // The log and the chat follow new entries only while the player is at their end: reading
    // back, they stay.
    const log = keepScroll(this.root, '.log');
    const chat = keepScroll(this.root, '.chat-log');
    replace(this.root, this.msg ? this.table() : this.waiting());
    const myTurn = this.msg && this.msg.view.to_move === this.msg.view.viewer;
    if (!this.flashing) document.title = `${myTurn ? `● ${t('title.yourTurn')} — ` : ''}${t('title.room')} — Fugitive`;
    log();
    chat(this.chat.toEnd);
    this.chat.toEnd = false;
    bringIntoView(this.reveal.map((testid) => this.root.querySelector(`[data-testid="${testid}"]`)));
    this.reveal = [];
  }

  /// The positions still arriving, and for how long they have been: a render during the deal
  /// animation continues it instead of cutting or restarting it.
  arriving() {
    if (!this.arrivals) return null;
    const elapsed = performance.now() - this.arrivals.at;
    if (elapsed > ARRIVE_MS) {
      this.arrivals = null;
      return null;
    }
    return { positions: this.arrivals.positions, elapsed };
  }

  waiting() {
    const gone = this.status === 'gone';
    return h(
      'div',
      { class: 'room loading' },
      h('h1', { class: 'visually-hidden' }, t('title.room')),
      this.banner(),
      gone
        ? h('p', {}, h('a', { class: 'button primary', href: '/' }, t('notFound.home')))
        : h('p', { class: 'status' }, t('room.connecting')),
    );
  }

  banner() {
    const lines = [];
    const own = this.ownInvitePrompt();
    if (own) lines.push(own);
    if (this.notice) lines.push(h('p', { class: 'notice', 'data-testid': 'notice', role: 'status' }, this.notice));
    if (this.status === 'gone') lines.push(h('p', { class: 'alert', 'data-testid': 'connection' }, t('conn.gone')));
    else if (this.status === 'origin') {
      const text = t('conn.origin', { origin: location.origin });
      lines.push(h('p', { class: 'alert', 'data-testid': 'connection' }, text));
    } else if (this.status === 'waiting' || this.status === 'reconnecting') {
      lines.push(h('p', { class: 'alert', 'data-testid': 'connection', role: 'status' }, t('conn.reconnecting')));
    }
    const msg = this.msg;
    if (msg && msg.view.viewer !== 'spectator' && !msg.view.outcome) {
      const other = msg.view.viewer === 'fugitive' ? 'marshal' : 'fugitive';
      if (!msg.room.seats[other])
        lines.push(h('p', { class: 'notice', 'data-testid': 'opponent-missing' }, t('presence.notJoined')));
      else if (!msg.room.presence[other])
        lines.push(h('p', { class: 'notice', 'data-testid': 'opponent-away' }, t(`presence.away.${other}`)));
    }
    if (this.error) lines.push(h('p', { class: 'alert', 'data-testid': 'error', role: 'alert' }, this.error));
    return h('div', { class: 'banner' }, lines);
  }

  table() {
    const { view, legal, room } = this.msg;
    const me = view.viewer;
    const over = view.outcome;
    const status = over ? this.outcomeText() : statusText(view);
    const mover = view.to_move;
    const recent = lastMove(view);
    const live = this.busy ? null : legal;
    const decks = renderDecks(view, live, (deck) => this.act({ type: 'draw', deck }), recent.decks);
    return h(
      'div',
      {
        class: [
          'room',
          `as-${me}`,
          mover === me ? 'my-turn' : null,
          view.phase.phase === 'manhunt' ? 'manhunt' : null,
          over ? 'over' : null,
          over && over.winner === me ? 'won' : null,
        ],
        'data-testid': 'room',
        'data-viewer': me,
        'data-phase': view.phase.phase,
        'data-game': this.msg.game,
        'data-version': this.msg.version,
        'data-busy': String(this.busy),
      },
      h('h1', { class: 'visually-hidden' }, t(`title.table.${me}`)),
      this.banner(),
      h(
        'div',
        { class: 'play' },
        renderSeats(view, room, me === 'spectator' ? null : me, this.deadline),
        this.spectatorLine(),
        this.seriesLine(),
        this.notifyOffer(),
        h('p', { class: ['status', mover === me ? 'mine' : null], 'data-testid': 'status' }, status),
        this.lastMoveLine(recent),
        over ? this.gameOver() : null,
        view.phase.phase === 'manhunt'
          ? h(
              'div',
              { class: 'manhunt-note', 'data-testid': 'manhunt', role: 'note' },
              h('strong', {}, t('manhunt.title')),
              h('p', {}, t('manhunt.explain')),
            )
          : null,
        this.sharePanel(),
        renderTrail(view, {
          recent: recent.positions,
          arrive: this.arriving(),
          inspect:
            me === 'marshal'
              ? (position) => {
                  this.inspected = this.inspected === position ? null : position;
                  this.render();
                }
              : null,
          inspected: this.inspected,
        }),
        me === 'marshal' ? this.notebook() : null,
        renderPending(view, live, (choice) => this.act({ type: 'choose', choice })),
        // The next action first: the decks while drawing, the hand or the board otherwise.
        view.phase.phase === 'draw' ? decks : null,
        this.controls(),
        view.phase.phase === 'draw' ? null : decks,
        renderEventsPanel(view),
      ),
      h('aside', { class: 'side' }, this.chatPanel(), renderHistory(view), this.namePanel(), this.resignPanel()),
    );
  }

  /// The other side's last move in words, under the status line; after the Marshal's own guess,
  /// its result (she learns it with everyone else).
  lastMoveLine(recent) {
    const view = this.msg.view;
    const own = ownGuess(view);
    const entries = own.length ? own : recent.entries;
    if (!entries.length || view.outcome) return null;
    const text = entries
      .map((e) => describe(e, view.viewer, view.decks))
      .filter(Boolean)
      .join(' ');
    if (!text) return null;
    return h(
      'p',
      {
        class: ['last-move', own.length ? view.viewer : recent.mover],
        'data-testid': 'last-move',
        'data-own': own.length > 0,
      },
      h('span', { class: 'last-move-label' }, `${t('lastMove.label')} `),
      text,
    );
  }

  notebook() {
    const { view, legal } = this.msg;
    this.notes.assist = this.msg.notepad;
    this.notes.candidates = this.msg.candidates;
    return renderNotebook(view, this.busy ? null : legal, this.notes, this.inspected, {
      pick: (n) => {
        this.notes.mode = 'guess';
        pickNumber(this.notes, n, legal?.guess?.single ?? false);
        this.render();
      },
      close: () => {
        this.inspected = null;
        this.render();
      },
    });
  }

  controls() {
    const { view, legal } = this.msg;
    const live = this.busy ? null : legal;
    if (view.viewer === 'spectator') {
      // After the end everything is public (R18): no "only what is public" any more.
      const words = view.outcome ? t('room.watchingOver') : t('room.watching');
      return h('p', { class: 'watching', 'data-testid': 'spectating' }, words);
    }
    if (view.viewer === 'fugitive') {
      const move = renderMove(view, live, this.selection, {
        place: () => {
          const action = {
            type: 'place',
            hideout: this.selection.hideout,
            sprints: [...this.selection.sprints].sort((a, b) => a - b),
          };
          this.selection = emptySelection();
          this.act(action);
        },
        clear: () => {
          this.selection = emptySelection();
          this.render();
        },
        pass: () => this.act({ type: 'pass' }),
        endTurn: () => this.act({ type: 'end_turn' }),
      });
      return h(
        'div',
        { class: 'controls' },
        view.outcome && !view.hands.fugitive.size
          ? null
          : renderHand(view, live, this.selection, (card) => {
              toggleCard(this.selection, card);
              this.render();
            }),
        move ? h('div', { class: 'action-bar', 'data-testid': 'action-bar' }, move) : null,
      );
    }
    if (view.outcome) return null;
    const single = legal?.guess?.single ?? false;
    this.notes.assist = this.msg.notepad;
    this.notes.candidates = this.msg.candidates;
    this.notes.inspected = this.inspected;
    const action = renderGuessAction(view, live, this.notes, {
      guess: (force) => {
        const numbers = [...this.notes.selected].sort((a, b) => a - b);
        const warnings = force ? [] : guessWarnings(this.notes.candidates, this.notes.assist, numbers);
        if (warnings.length) {
          this.notes.warning = warnings;
          this.render();
          return;
        }
        this.notes.selected.clear();
        this.notes.warning = null;
        this.act({ type: 'guess', numbers });
      },
      clear: () => {
        this.notes.selected.clear();
        this.render();
      },
      back: () => {
        this.notes.warning = null;
        this.render();
      },
    });
    return h(
      'div',
      { class: 'controls' },
      renderBoard(view, live, this.notes, {
        pick: (n) => {
          if (pickNumber(this.notes, n, single)) saveMarks(this.room, this.msg.game, this.notes.marks);
          this.render();
        },
        mode: (mode) => {
          this.notes.mode = mode;
          this.render();
        },
      }),
      action ? h('div', { class: 'action-bar', 'data-testid': 'action-bar' }, action) : null,
    );
  }

  outcomeText() {
    const { outcome, viewer } = this.msg.view;
    const head =
      viewer === 'spectator'
        ? t(`over.wins.${outcome.winner}`)
        : outcome.winner === viewer
          ? t('over.youWin')
          : t('over.youLose');
    return `${head} ${reasonText(outcome, viewer)}`;
  }

  gameOver() {
    const { view, room } = this.msg;
    const me = view.viewer;
    const panel = [
      h('h2', { class: 'over-line', 'data-testid': 'over-line' }, this.outcomeText()),
      this.seriesWinner(),
      h('p', { class: 'reveal-note' }, t('over.revealed')),
      h(
        'dl',
        { class: 'final-hands' },
        ['fugitive', 'marshal'].map((role) => [
          h('dt', {}, t(`over.hand.${role}`)),
          h(
            'dd',
            { 'data-testid': `final-hand-${role}` },
            (view.hands[role].cards ?? []).length
              ? view.hands[role].cards.map((c) => h('span', { class: 'chip', 'data-card': c }, c))
              : t('over.handEmpty'),
          ),
        ]),
      ),
    ];
    const buttons = [];
    if (me !== 'spectator' && !room.series?.winner) {
      const other = me === 'fugitive' ? 'marshal' : 'fugitive';
      const mine = room.rematch?.[me];
      const theirs = room.rematch?.[other];
      if (theirs && !mine)
        panel.push(h('p', { class: 'notice', 'data-testid': 'rematch-offered' }, t('over.rematchOffered')));
      if (mine) panel.push(h('p', { 'data-testid': 'rematch-waiting' }, t('over.rematchWaiting')));
      else
        buttons.push(
          h(
            'button',
            {
              class: 'primary big',
              'data-testid': 'rematch',
              disabled: this.busy,
              onclick: () => this.send(this.conn.rematch()),
            },
            t('over.rematch'),
          ),
        );
    }
    buttons.push(
      h(
        'a',
        { class: 'button big', href: replayPath(this.room, this.msg.game), 'data-testid': 'replay-link' },
        t('over.replay'),
      ),
    );
    buttons.push(h('a', { class: 'button big', href: '/', 'data-testid': 'new-game' }, t('over.newGame')));
    panel.push(h('div', { class: 'buttons' }, buttons));
    return h(
      'section',
      {
        class: ['game-over', view.outcome.winner],
        'data-testid': 'game-over',
        'data-winner': view.outcome.winner,
        'aria-labelledby': 'over-title',
      },
      h('h2', { id: 'over-title', class: 'visually-hidden' }, t('over.title')),
      panel,
    );
  }

  /// Asked when this browser, which holds a seat here, opens the room's invitation: copy the link
  /// for the opponent, or take the other seat in this tab (both seats stay in this browser).
  ownInvitePrompt() {
    if (!this.ownInvite) return null;
    const me = this.msg?.view.viewer;
    const url = `${location.origin}${location.pathname}#invite=${this.ownInvite}`;
    const copyButton = h(
      'button',
      {
        type: 'button',
        class: 'primary',
        'data-testid': 'own-invite-copy',
        onclick: async () => {
          await copyText(url);
          this.ownInvite = null;
          this.notice = t('ownInvite.copied');
          this.render();
        },
      },
      t('ownInvite.copy'),
    );
    return h(
      'section',
      { class: 'own-invite', 'data-testid': 'own-invite', role: 'alertdialog', 'aria-labelledby': 'own-invite-title' },
      h('h2', { id: 'own-invite-title' }, t('ownInvite.title')),
      h('p', {}, me === 'fugitive' || me === 'marshal' ? t(`ownInvite.youAre.${me}`) : t('ownInvite.youHaveSeat')),
      h(
        'div',
        { class: 'buttons' },
        copyButton,
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'own-invite-take',
            onclick: async () => {
              const claimed = await claim(this.room, this.ownInvite);
              this.ownInvite = null;
              if (claimed.token) {
                storeTabSeat(this.room, claimed.token);
                location.reload();
                return;
              }
              this.notice = claimed.error === 'seat_taken' ? t('ownInvite.taken') : t('room.refused');
              this.render();
            },
          },
          t('ownInvite.take'),
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'quiet',
            'data-testid': 'own-invite-dismiss',
            onclick: () => {
              this.ownInvite = null;
              this.render();
            },
          },
          t('ownInvite.dismiss'),
        ),
      ),
    );
  }

  sharePanel() {
    const { view, room } = this.msg;
    if (view.viewer === 'spectator' || view.outcome) return null;
    const other = view.viewer === 'fugitive' ? 'marshal' : 'fugitive';
    if (room.seats[other]) return null;
    let links = null;
    try {
      links = JSON.parse(stored(shareKey(this.room)) ?? 'null');
    } catch {
      links = null;
    }
    return links ? renderShare(links, view.viewer) : null;
  }

  resignPanel() {
    const { legal } = this.msg;
    if (!legal?.resign) return null;
    if (!this.confirmResign) {
      return h(
        'div',
        { class: 'resign' },
        h(
          'button',
          {
            class: 'quiet',
            'data-testid': 'resign',
            onclick: () => {
              this.confirmResign = true;
              this.render();
            },
          },
          t('resign.button'),
        ),
      );
    }
    return h(
      'div',
      { class: 'resign' },
      h('span', {}, t('resign.confirm')),
      h(
        'button',
        {
          class: 'danger',
          'data-testid': 'resign-yes',
          onclick: () => {
            this.confirmResign = false;
            this.act({ type: 'resign' });
          },
        },
        t('resign.yes'),
      ),
      h(
        'button',
        {
          'data-testid': 'resign-no',
          onclick: () => {
            this.confirmResign = false;
            this.render();
          },
        },
        t('resign.no'),
      ),
    );
  }
}
