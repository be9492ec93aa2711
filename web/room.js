// One room's page: the seat (seat.js), the connection (net.js), what the page holds between the
// server's frames (the picked cards, the Marshal's board, the trail's arrivals, a request under
// way) and the table for the Fugitive, the Marshal or a spectator, laid out from its parts
// (panels/, trail.js, decks.js, seats.js, events.js, chat.js, history.js); what is read out,
// sounded or notified is alerts.js's. Leaving the page stops its clocks and its connection;
// coming back to it from the browser's cache starts them again. Every part is a static import:
// the server joins the page's module graph into one file (crates/fugitive-server/src/web/join.rs),
// so a part costs its bytes, not a request that the first state would wait behind (issue 28).

import { ChatState } from './chat.js';
import { h, replace, afterPress, announce, keepScroll, bringIntoView } from './dom.js';
import { t, onLanguageChange } from './i18n.js';
import { Connection } from './net.js';
import { lastMove } from './table.js';
import { renderTrail } from './trail.js';
import { renderDecks } from './decks.js';
import { renderSeats, renderSpectators, tickClocks } from './seats.js';
import { emptySelection } from './fugitive.js';
import { renderHistory } from './history.js';
import { renderEventsPanel, renderPending } from './events.js';
import { findSeat, forgetSeat, sharedLinks } from './seat.js';
import { Alerts, renderNotifyOffer } from './alerts.js';
import { renderBanner, refusalText } from './panels/banner.js';
import { renderSeries } from './panels/series.js';
import { renderStatus, renderLastMove, renderManhuntNote } from './panels/status.js';
import { renderControls, renderNotebookPanel, carryControls } from './panels/controls.js';
import { renderName, storedName } from './panels/name.js';
import { renderOwnInvite } from './panels/own-invite.js';
import { renderGameOver } from './panels/over.js';
import { renderResign } from './panels/resign.js';
import { rememberGame } from './mygames.js';
import { renderShare } from './share.js';

/// `guide(msg)`, if given, returns what the page shows above the table for each state (the guided
/// first game's explanations, tutorial.js).
export async function showRoom(root, room, { guide = null } = {}) {
  const page = new RoomPage(root, room);
  page.guide = guide;
  const seat = await findSeat(room);
  page.notice = seat.notice ?? null;
  page.ownInvite = seat.ownInvite ?? null;
  page.start(seat.token);
  addEventListener('pagehide', () => page.leave());
  addEventListener('pageshow', (event) => {
    if (event.persisted) page.enter();
  });
  return page;
}

/// How long a card takes to arrive on the table (the `deal` animation of style.css).
const ARRIVE_MS = 450;
/// How often the shown turn clocks count down between the server's states.
const TICK_MS = 250;

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
    this.chat = new ChatState(room);
    this.reveal = []; // what the next render brings into sight: the result, the rematch line
    this.inspected = null; // the face-down position the Marshal's notebook shows
    this.arrivals = null; // trail positions new or turned with the last state: animated once
    this.ticking = null; // the interval that counts the shown clocks down, while the page is shown
    this.alerts = new Alerts(room, () => this.render());
    this.guide = null; // see `showRoom`
    onLanguageChange(() => this.render());
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
          forgetSeat(this.room);
        }
        this.render();
      },
    });
    this.conn.name = storedName();
    this.enter();
    this.render();
  }

  /// The page is shown: its clocks count down and it is connected.
  enter() {
    this.ticking ??= setInterval(tickClocks, TICK_MS);
    this.conn.open();
  }

  /// The page is left (or put in the browser's cache): nothing of it runs on.
  leave() {
    clearInterval(this.ticking);
    this.ticking = null;
    this.alerts.stop();
    this.conn.close();
  }

  onChat(frame) {
    const list = this.root.querySelector('.chat-log');
    const said = this.chat.receive(frame, this.msg?.view.viewer, list);
    if (said) announce(said);
    this.render();
  }

  onState(msg) {
    const before = this.msg;
    rememberGame(this.room, msg.view.viewer, msg.game);
    this.msg = msg;
    const changed = arrivals(before, msg);
    this.arrivals = changed && changed.size ? { positions: changed, at: performance.now() } : null;
    this.deadline = msg.room.clock ? Date.now() + msg.room.clock.remaining_ms : null;
    const view = msg.view;
    // A rematch swaps the roles: say so where the player looks, the table looks the other way
    // round now.
    if (before && before.game !== msg.game && before.view.viewer !== view.viewer && view.viewer !== 'spectator') {
      this.notice = t(`rematch.youNow.${view.viewer}`);
      this.reveal = ['notice'];
    }
    // The end of the game, seen happen: the result (and the series') where the player looks,
    // wherever she was on the page (the board, the hand, the log).
    if (before && before.game === msg.game && view.outcome && !before.view.outcome) {
      this.reveal = ['over-line', 'series-winner'];
    }
    carryControls(this, before, msg);
    this.alerts.changed(before, msg, this.notice);
    this.render();
  }

  async send(request) {
    this.busy = true;
    this.error = null;
    this.render();
    const reply = await request;
    this.busy = false;
    if (!reply.ok) this.error = refusalText(reply.error);
    this.render();
    return reply;
  }

  act(action) {
    return this.send(this.conn.act(action));
  }

  render() {
    afterPress(this.root, () => this.draw());
  }

  draw() {
    // The log and the chat follow new entries only while the player is at their end: reading
    // back, they stay.
    const log = keepScroll(this.root, '.log');
    const chat = keepScroll(this.root, '.chat-log');
    replace(this.root, this.msg ? this.table() : this.waiting());
    const myTurn = this.msg && this.msg.view.to_move === this.msg.view.viewer;
    if (!this.alerts.flashing) {
      document.title = `${myTurn ? `● ${t('title.yourTurn')} — ` : ''}${t('title.room')} — Fugitive`;
    }
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
    const ownInvite = this.ownInvite
      ? renderOwnInvite(this.room, this.ownInvite, this.msg?.view.viewer, {
          done: (notice) => {
            this.ownInvite = null;
            if (notice) this.notice = notice;
            this.render();
          },
        })
      : null;
    return renderBanner({ ownInvite, notice: this.notice, status: this.status, msg: this.msg, error: this.error });
  }

  /// The invitation and spectator links this browser made, while the opponent has not come.
  sharePanel() {
    const { view, room } = this.msg;
    if (view.viewer === 'spectator' || view.outcome) return null;
    const other = view.viewer === 'fugitive' ? 'marshal' : 'fugitive';
    if (room.seats[other]) return null;
    const links = sharedLinks(this.room);
    return links ? renderShare(links, view.viewer) : null;
  }

  table() {
    const { view, legal, room } = this.msg;
    const me = view.viewer;
    const over = view.outcome;
    const mover = view.to_move;
    const recent = lastMove(view);
    const live = this.busy ? null : legal;
    const decks = renderDecks(view, live, (deck) => this.act({ type: 'draw', deck }), recent.decks);
    const inspect = (position) => {
      this.inspected = this.inspected === position ? null : position;
      this.render();
    };
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
        this.guide?.(this.msg) ?? null,
        renderSeats(view, room, me === 'spectator' ? null : me, this.deadline),
        renderSpectators(room),
        renderSeries(room, this.msg.game),
        renderNotifyOffer(view, room, () => this.render()),
        renderStatus(view, room?.aborted),
        renderLastMove(view, recent),
        over
          ? renderGameOver(this.msg, this.room, {
              busy: this.busy,
              rematch: () => this.send(this.conn.rematch()),
              changed: () => this.render(),
            })
          : null,
        renderManhuntNote(view),
        this.sharePanel(),
        renderTrail(view, {
          recent: recent.positions,
          arrive: this.arriving(),
          inspect: me === 'marshal' ? inspect : null,
          inspected: this.inspected,
        }),
        me === 'marshal' ? renderNotebookPanel(this) : null,
        renderPending(view, live, (choice) => this.act({ type: 'choose', choice })),
        // The next action first: the decks while drawing, the hand or the board otherwise.
        view.phase.phase === 'draw' ? decks : null,
        renderControls(this),
        view.phase.phase === 'draw' ? null : decks,
        renderEventsPanel(view),
      ),
      h(
        'aside',
        { class: 'side' },
        this.chat.panel(view, room, {
          conn: this.conn,
          send: (request) => this.send(request),
          render: () => this.render(),
        }),
        renderHistory(view, room?.aborted),
        renderName(this),
        renderResign(this),
      ),
    );
  }
}
