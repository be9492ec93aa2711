// The lobby, `/lobby` (issue 25): quick-pairing buttons, a form to post a seek, and the open seeks
// of everyone, live: the server pushes every new, taken and cancelled seek over `/ws/lobby`. One
// click on a seek (or a pairing) and both players land in a new room with their seats.

import { h, replace } from './dom.js';
import { t, onLanguageChange, useStrings } from './i18n.js';
import { keepSeat } from './seat.js';
import { rememberGame } from './mygames.js';
import { ensureProfile } from './profile.js';
import { ratingText } from './profile-page.js';

// Its strings, not in the first visit's table.
await useStrings('lobby');

const CLOCKS = [
  ['60', 'clock.minute'],
  ['300', 'clock.fiveMinutes'],
  ['3600', 'clock.hour'],
  ['86400', 'clock.day'],
];

const clockKey = (secs) => CLOCKS.find(([s]) => Number(s) === secs)?.[1];

export function showLobby(root) {
  document.title = `${t('lobby.title')} — Fugitive`;
  let seeks = [];
  let pools = [];
  let me = null; // this browser's profile id
  let mySeeks = new Set();
  let waiting = null; // the pool joined
  let error = null;
  let connected = false;
  const form = { role: 'random', clock: '300', events: 'off', rated: true };
  let socket = null;

  const send = (message) => socket?.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message));

  function receive(message) {
    switch (message.type) {
      case 'seeks':
        seeks = message.seeks;
        pools = message.pools;
        me = message.profile ?? null;
        break;
      case 'seek_added':
        if (!seeks.some((s) => s.id === message.seek.id)) seeks = [...seeks, message.seek];
        break;
      case 'seek_removed':
        seeks = seeks.filter((s) => s.id !== message.id);
        mySeeks.delete(message.id);
        break;
      case 'seeked':
        mySeeks.add(message.id);
        error = null;
        break;
      case 'pooled':
        waiting = message.pool;
        error = null;
        break;
      case 'paired': {
        const token = new URL(message.link, location.origin).hash.split('#seat=')[1];
        keepSeat(message.room, token, null);
        rememberGame(message.room, message.role, 1);
        location.assign(message.link);
        return;
      }
      case 'error':
        error = message.code;
        break;
      default:
        return;
    }
    render();
  }

  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/ws/lobby`);
    socket.addEventListener('open', () => {
      connected = true;
      render();
    });
    socket.addEventListener('message', (event) => receive(JSON.parse(event.data)));
    socket.addEventListener('close', () => {
      connected = false;
      waiting = null;
      render();
      setTimeout(connect, 2000);
    });
  }

  function seekRow(seek) {
    const mine = seek.profile === me;
    const clock = clockKey(seek.turn_clock_secs);
    const details = [
      t(`lobby.plays.${seek.role}`),
      seek.rules?.events ? t(`events.${seek.rules.events}`) : t('events.off'),
      clock ? t(clock) : t('lobby.seconds', { n: seek.turn_clock_secs }),
      seek.rated ? t('lobby.rated') : t('lobby.casual'),
    ];
    return h(
      'li',
      { class: ['seek', mine ? 'mine' : null], 'data-testid': `seek-${seek.id}`, 'data-seek': seek.id },
      h(
        'span',
        { class: 'seek-who' },
        seek.name ?? t('profilePage.noName'),
        seek.rating ? h('span', { class: 'seek-rating' }, ` ${ratingText(seek.rating)}`) : null,
      ),
      h('span', { class: 'seek-what' }, details.join(' · ')),
      mine
        ? h(
            'button',
            { type: 'button', 'data-testid': 'seek-cancel', onclick: () => send({ type: 'cancel', id: seek.id }) },
            t('lobby.cancel'),
          )
        : h(
            'button',
            {
              type: 'button',
              class: 'primary',
              'data-testid': 'seek-accept',
              disabled: !me,
              onclick: () => send({ type: 'accept', id: seek.id }),
            },
            t('lobby.accept'),
          ),
    );
  }

  function seekForm() {
    const select = (name, options, value, label) =>
      h(
        'label',
        {},
        label,
        ' ',
        h(
          'select',
          {
            'data-testid': `seek-${name}`,
            onchange: (e) => {
              form[name] = e.target.value;
            },
          },
          options.map(([v, key]) => h('option', { value: v, selected: v === value }, t(key))),
        ),
      );
    return h(
      'form',
      {
        class: 'seek-form',
        'data-testid': 'seek-form',
        onsubmit: (e) => {
          e.preventDefault();
          send({
            type: 'seek',
            seek: {
              role: form.role,
              rules: form.events === 'off' ? {} : { events: form.events },
              turn_clock_secs: Number(form.clock),
              rated: form.rated,
            },
          });
        },
      },
      select(
        'role',
        [
          ['random', 'lobby.role.random'],
          ['fugitive', 'role.fugitive'],
          ['marshal', 'role.marshal'],
        ],
        form.role,
        t('lobby.youPlay'),
      ),
      select('clock', CLOCKS, form.clock, t('lobby.clock')),
      select(
        'events',
        [
          ['off', 'events.off'],
          ['random', 'events.random'],
        ],
        form.events,
        t('landing.events'),
      ),
      h(
        'label',
        {},
        h('input', {
          type: 'checkbox',
          'data-testid': 'seek-rated',
          checked: form.rated,
          onchange: (e) => {
            form.rated = e.target.checked;
          },
        }),
        ' ',
        t('lobby.rated'),
      ),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'seek-post', disabled: !me }, t('lobby.post')),
    );
  }

  function render() {
    replace(
      root,
      h(
        'div',
        { class: 'landing lobby', 'data-testid': 'lobby', 'data-connected': String(connected) },
        h('h1', {}, t('lobby.title')),
        me ? null : h('p', {}, t('lobby.needProfile')),
        error
          ? h(
              'p',
              { class: 'alert', role: 'alert', 'data-testid': 'lobby-error', 'data-code': error },
              t(`lobby.error.${error}`),
            )
          : null,
        h(
          'section',
          { class: 'pools', 'aria-labelledby': 'pools-title' },
          h('h2', { id: 'pools-title' }, t('lobby.quick')),
          waiting
            ? h(
                'p',
                { role: 'status', 'data-testid': 'pool-waiting' },
                t('lobby.waiting', { pool: t(`lobby.pool.${waiting}`) }),
                ' ',
                h(
                  'button',
                  {
                    type: 'button',
                    'data-testid': 'pool-leave',
                    onclick: () => {
                      waiting = null;
                      send({ type: 'leave_pool' });
                      render();
                    },
                  },
                  t('lobby.cancel'),
                ),
              )
            : h(
                'div',
                { class: 'pool-buttons' },
                pools.map((pool) =>
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'big',
                      'data-testid': `pool-${pool.id}`,
                      disabled: !me,
                      onclick: () => send({ type: 'pool', pool: pool.id }),
                    },
                    t(`lobby.pool.${pool.id}`),
                  ),
                ),
              ),
        ),
        h(
          'section',
          { class: 'seek-new', 'aria-labelledby': 'seek-new-title' },
          h('h2', { id: 'seek-new-title' }, t('lobby.new')),
          seekForm(),
        ),
        h(
          'section',
          { class: 'seeks', 'aria-labelledby': 'seeks-title' },
          h('h2', { id: 'seeks-title' }, t('lobby.open')),
          seeks.length
            ? h('ul', { 'data-testid': 'seeks' }, seeks.map(seekRow))
            : h('p', { 'data-testid': 'no-seeks' }, t('lobby.none')),
        ),
        h(
          'p',
          {},
          h('a', { href: '/' }, t('notFound.home')),
          ' · ',
          h('a', { href: '/leaderboard' }, t('leaderboard.title')),
        ),
      ),
    );
  }

  onLanguageChange(render);
  render();
  // The profile first (the socket reads its cookie at the upgrade).
  ensureProfile()
    .catch(() => null)
    .then(connect);
}
