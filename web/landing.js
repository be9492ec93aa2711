// The landing page: create a game (role, rule options, opponent), then share the invitation and
// spectator links (share.js).

import { h, replace } from './dom.js';
import { t, onLanguageChange } from './i18n.js';
import { keepSeat } from './seat.js';
import { renderShare } from './share.js';
import { rememberGame, loadMyGames, renderMyGames } from './mygames.js';
import { BALANCE } from './balance.js';
import { profilePanel } from './profile.js';

const CLOCKS = [
  ['', 'clock.none'],
  ['60', 'clock.minute'],
  ['300', 'clock.fiveMinutes'],
  ['3600', 'clock.hour'],
  ['86400', 'clock.day'],
  ['259200', 'clock.threeDays'],
];

const EVENT_VARIANTS = ['off', 'random', 'discovery', 'helpful:fugitive', 'helpful:marshal', 'catchup'];

export function showLanding(root) {
  const form = {
    role: 'random',
    opening: 'one_or_two',
    bonus: false,
    clock: '',
    series: '',
    events: 'off',
    level: 'easy',
    assist: false,
  };
  let created = null;
  let error = null;
  let busy = null; // the opponent of the game being created
  let optionsOpen = false;
  let mine = null; // "My games", once loaded
  // The computer's levels with their ratings per role, from the server (`GET /api/levels`);
  // until they arrive, or if they cannot, the two levels every server has, without ratings.
  let levels = [{ level: 'easy' }, { level: 'hard' }];
  const profile = profilePanel(() => render());
  // A room created before the profile exists would not be the profile's.
  const ready = profile.start().catch(() => null);

  async function create(opponent) {
    busy = opponent;
    error = null;
    render();
    await ready;
    const body = {
      role: form.role,
      rules: {
        opening_hideouts: form.opening,
        pass_bonus_draw: form.bonus,
        ...(form.events === 'off' ? {} : { events: form.events }),
      },
      turn_clock_secs: form.clock ? Number(form.clock) : null,
      opponent: opponent === 'computer' ? { bot: form.level } : 'human',
      notepad_assist: form.assist,
      best_of: form.series && opponent !== 'computer' ? Number(form.series) : null,
    };
    try {
      const res = await fetch('/api/rooms', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(json.message ?? json.error ?? res.statusText);
      // Without storage the seat link still works.
      keepSeat(json.room, json.token, json.links);
      rememberGame(json.room, json.role, 1);
      // Against the computer there is nobody to invite: straight to the table.
      if (opponent === 'computer') {
        location.assign(json.links.seat);
        return;
      }
      created = json;
    } catch (e) {
      error = t('landing.error', { message: e.message });
    }
    busy = null;
    render();
  }

  function radio(name, value, checked, label, help, onchange) {
    const id = `${name}-${value}`;
    return h(
      'label',
      { class: 'choice', for: id },
      h('input', { type: 'radio', id, name, value, checked, 'data-testid': id, onchange }),
      h(
        'span',
        { class: 'choice-text' },
        h('span', { class: 'choice-label' }, label),
        help ? h('span', { class: 'help' }, help) : null,
      ),
    );
  }

  // Who wins how often with this variant between two `hard` computer players (`balance.js`,
  // measured by fugitive-sim): the balance a player can expect.
  function balance(events) {
    const b = BALANCE[events];
    if (!b) return null;
    return t('events.balance', {
      level: t('level.hard'),
      marshal: Math.round(b.marshal.percent),
      fugitive: Math.round(b.fugitive.percent),
      low: Math.round(b.fugitive.low),
      high: Math.round(b.fugitive.high),
      games: b.games,
    });
  }

  function checkbox(id, checked, label, help, onchange) {
    return h(
      'label',
      { class: 'choice', for: id },
      h('input', { type: 'checkbox', id, checked, 'data-testid': id, onchange }),
      h(
        'span',
        { class: 'choice-text' },
        h('span', { class: 'choice-label' }, label),
        h('span', { class: 'help' }, help),
      ),
    );
  }

  function select(id, label, value, options, onchange) {
    return h(
      'label',
      { class: 'select-row', for: id },
      h('span', { class: 'select-label' }, label),
      h(
        'select',
        { id, 'data-testid': id, onchange: (e) => onchange(e.target.value) },
        options.map(([v, text]) => h('option', { value: v, selected: value === v }, text)),
      ),
    );
  }

  function options() {
    return h(
      'details',
      {
        class: 'options',
        'data-testid': 'options',
        open: optionsOpen,
        ontoggle: (e) => {
          // A toggle queued before a redraw arrives on the fold the redraw replaced.
          if (e.target.isConnected) optionsOpen = e.target.open;
        },
      },
      h(
        'summary',
        { 'data-testid': 'options-toggle' },
        t('landing.options'),
        h('span', { class: 'help' }, ` — ${summary()}`),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, t('landing.role')),
        ['random', 'fugitive', 'marshal'].map((role) =>
          radio(
            'role',
            role,
            form.role === role,
            t(role === 'random' ? 'landing.random' : `role.${role}`),
            t(`landing.roleHelp.${role}`),
            () => {
              form.role = role;
            },
          ),
        ),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, t('landing.computer')),
        select(
          'level',
          t('landing.level'),
          form.level,
          levels.map(({ level, ratings }) => [level, levelLabel(level, ratings)]),
          (v) => {
            form.level = v;
          },
        ),
        checkbox('notepad-assist', form.assist, t('landing.assist'), t('landing.assistHelp'), (e) => {
          form.assist = e.target.checked;
        }),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, t('landing.rules')),
        ['one_or_two', 'exactly_two'].map((opening) =>
          radio('opening', opening, form.opening === opening, t(`rules.${opening}`), t(`rules.${opening}.help`), () => {
            form.opening = opening;
          }),
        ),
        checkbox('pass-bonus', form.bonus, t('rules.pass_bonus'), t('rules.pass_bonus.help'), (e) => {
          form.bonus = e.target.checked;
        }),
      ),
      h(
        'fieldset',
        { class: 'events-options' },
        h('legend', {}, t('landing.events')),
        EVENT_VARIANTS.map((events) =>
          radio(
            'events',
            events,
            form.events === events,
            t(`events.${events}`),
            [t(`events.${events}.help`), balance(events)].filter(Boolean).join(' '),
            () => {
              form.events = events;
            },
          ),
        ),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, t('landing.clock')),
        select(
          'clock',
          t('landing.clockHelp'),
          form.clock,
          CLOCKS.map(([secs, key]) => [secs, t(key)]),
          (v) => {
            form.clock = v;
          },
        ),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, t('landing.series')),
        select(
          'series',
          t('landing.seriesHelp'),
          form.series,
          [
            ['', t('series.open')],
            ['3', t('series.bestOf', { n: 3 })],
            ['5', t('series.bestOf', { n: 5 })],
          ],
          (v) => {
            form.series = v;
          },
        ),
      ),
    );
  }

  /// A level's name and, when the server measured them, its ratings in both roles (the player
  /// may not know yet which role the computer gets).
  function levelLabel(level, ratings) {
    const name = t(`level.${level}`);
    return ratings ? t('level.ratings', { name, marshal: ratings.marshal, fugitive: ratings.fugitive }) : name;
  }

  /// The defaults in one line, so nobody has to open the options to know what they get.
  function summary() {
    return t('landing.defaults', {
      role: t(form.role === 'random' ? 'landing.randomShort' : `role.${form.role}`),
      level: t(`level.${form.level}`),
    });
  }

  function start() {
    const big = (opponent, testid, primary) =>
      h(
        'button',
        {
          type: 'button',
          class: ['start', primary ? 'primary' : null],
          'data-testid': testid,
          disabled: busy !== null,
          onclick: () => create(opponent),
        },
        h('span', { class: 'start-title' }, busy === opponent ? t('landing.creating') : t(`landing.start.${opponent}`)),
        h('span', { class: 'start-help' }, t(`landing.start.${opponent}Help`)),
      );
    return h(
      'section',
      { class: 'create', 'data-testid': 'create-form', 'aria-labelledby': 'create-title' },
      h('h2', { id: 'create-title', class: 'visually-hidden' }, t('landing.create')),
      h('div', { class: 'starts' }, big('computer', 'play-computer', true), big('person', 'invite-friend', false)),
      error ? h('p', { class: 'alert', role: 'alert' }, error) : null,
      options(),
    );
  }

  function render() {
    // The fold as the reader left it: a click opens it at once, its toggle event comes a task
    // later, and a redraw in between (the levels or My games arriving) shut it under the click.
    const fold = root.querySelector('details.options');
    if (fold) optionsOpen = fold.open;
    replace(
      root,
      h(
        'div',
        { class: 'landing' },
        h(
          'section',
          { class: 'intro' },
          h('h1', {}, 'Fugitive'),
          h('p', { class: 'tagline' }, t('landing.tagline')),
          h(
            'p',
            {},
            h('a', { class: 'button', href: '/lobby', 'data-testid': 'to-lobby' }, t('lobby.link')),
            ' ',
            h('a', { class: 'button', href: '/puzzles', 'data-testid': 'to-puzzles' }, t('puzzle.link')),
            ' ',
            h('a', { class: 'button', href: '/tutorial', 'data-testid': 'to-tutorial' }, t('tutorial.link')),
          ),
        ),
        created
          ? h(
              'div',
              { class: 'created' },
              renderShare(created.links, created.role),
              h(
                'a',
                { class: 'button primary big', href: created.links.seat, 'data-testid': 'go-to-table' },
                t('share.go'),
              ),
            )
          : start(),
        created ? null : renderMyGames(mine),
        created ? null : profile.element(),
      ),
    );
  }

  onLanguageChange(render);
  render();
  // The profile first: its seats join "my games".
  ready.then(loadMyGames).then((entries) => {
    mine = entries;
    render();
  });
  fetch('/api/levels')
    .then((res) => (res.ok ? res.json() : Promise.reject(new Error(res.statusText))))
    .then((json) => {
      levels = json.levels;
      render();
    })
    .catch(() => {
      // The levels without their ratings: the game can still be created.
    });
}
