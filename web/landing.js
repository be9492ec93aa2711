// The landing page: create a game (role, rule options, opponent), then share the invitation and
// spectator links.

import { h, replace } from './dom.js';
import { t, onLanguageChange } from './i18n.js';
import { seatKey, shareKey } from './room.js';

const CLOCKS = [
  ['', 'clock.none'],
  ['60', 'clock.minute'],
  ['300', 'clock.fiveMinutes'],
  ['86400', 'clock.day'],
];

const EVENT_VARIANTS = ['off', 'random', 'discovery', 'helpful:fugitive', 'helpful:marshal', 'catchup'];

export function showLanding(root) {
  const form = {
    role: 'random',
    opening: 'one_or_two',
    bonus: false,
    clock: '',
    events: 'off',
    opponent: 'person',
    level: 'easy',
    assist: false,
  };
  let created = null;
  let error = null;
  let busy = false;

  async function create(event) {
    event.preventDefault();
    busy = true;
    error = null;
    render();
    const body = {
      role: form.role,
      rules: {
        opening_hideouts: form.opening,
        pass_bonus_draw: form.bonus,
        ...(form.events === 'off' ? {} : { events: form.events }),
      },
      turn_clock_secs: form.clock ? Number(form.clock) : null,
      opponent: form.opponent === 'computer' ? { bot: form.level } : 'human',
      notepad_assist: form.assist,
    };
    try {
      const res = await fetch('/api/rooms', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(json.message ?? json.error ?? res.statusText);
      created = json;
      try {
        localStorage.setItem(seatKey(json.room), json.token);
        localStorage.setItem(shareKey(json.room), JSON.stringify(json.links));
      } catch {
        // Without storage the seat link still works.
      }
    } catch (e) {
      error = t('landing.error', { message: e.message });
    }
    busy = false;
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

  function createForm() {
    return h(
      'form',
      { class: 'create', onsubmit: create, 'data-testid': 'create-form' },
      h('h2', {}, t('landing.create')),
      h(
        'fieldset',
        {},
        h('legend', {}, t('landing.role')),
        ['fugitive', 'marshal', 'random'].map((role) =>
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
        h('legend', {}, t('landing.opponent')),
        ['person', 'computer'].map((opponent) =>
          radio(
            'opponent',
            opponent,
            form.opponent === opponent,
            t(`landing.opponent.${opponent}`),
            t(`landing.opponent.${opponent}Help`),
            () => {
              form.opponent = opponent;
              render();
            },
          ),
        ),
        form.opponent === 'computer'
          ? h(
              'label',
              { class: 'select-row', for: 'level' },
              h('span', { class: 'help' }, t('landing.level')),
              h(
                'select',
                {
                  id: 'level',
                  'data-testid': 'level',
                  onchange: (e) => {
                    form.level = e.target.value;
                  },
                },
                ['easy', 'hard'].map((level) =>
                  h('option', { value: level, selected: form.level === level }, t(`level.${level}`)),
                ),
              ),
            )
          : null,
        h(
          'label',
          { class: 'choice', for: 'notepad-assist' },
          h('input', {
            type: 'checkbox',
            id: 'notepad-assist',
            checked: form.assist,
            'data-testid': 'notepad-assist',
            onchange: (e) => {
              form.assist = e.target.checked;
            },
          }),
          h(
            'span',
            { class: 'choice-text' },
            h('span', { class: 'choice-label' }, t('landing.assist')),
            h('span', { class: 'help' }, t('landing.assistHelp')),
          ),
        ),
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
        h(
          'label',
          { class: 'choice', for: 'pass-bonus' },
          h('input', {
            type: 'checkbox',
            id: 'pass-bonus',
            checked: form.bonus,
            'data-testid': 'pass-bonus',
            onchange: (e) => {
              form.bonus = e.target.checked;
            },
          }),
          h(
            'span',
            { class: 'choice-text' },
            h('span', { class: 'choice-label' }, t('rules.pass_bonus')),
            h('span', { class: 'help' }, t('rules.pass_bonus.help')),
          ),
        ),
      ),
      h(
        'fieldset',
        { class: 'events-options' },
        h('legend', {}, t('landing.events')),
        EVENT_VARIANTS.map((events) =>
          radio('events', events, form.events === events, t(`events.${events}`), t(`events.${events}.help`), () => {
            form.events = events;
          }),
        ),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, t('landing.clock')),
        h(
          'label',
          { class: 'select-row', for: 'clock' },
          h('span', { class: 'help' }, t('landing.clockHelp')),
          h(
            'select',
            {
              id: 'clock',
              'data-testid': 'clock',
              onchange: (e) => {
                form.clock = e.target.value;
              },
            },
            CLOCKS.map(([secs, key]) => h('option', { value: secs, selected: form.clock === secs }, t(key))),
          ),
        ),
      ),
      error ? h('p', { class: 'alert', role: 'alert' }, error) : null,
      h(
        'button',
        { class: 'primary big', type: 'submit', disabled: busy, 'data-testid': 'create' },
        busy ? t('landing.creating') : t('landing.submit'),
      ),
    );
  }

  function render() {
    replace(
      root,
      h(
        'div',
        { class: 'landing' },
        h('section', { class: 'intro' }, h('h1', {}, 'Fugitive'), h('p', { class: 'tagline' }, t('landing.tagline'))),
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
          : createForm(),
      ),
    );
  }

  onLanguageChange(render);
  render();
}

/// The invitation and spectator links with copy buttons.
export function renderShare(links, role) {
  const row = (kind, path, help) => {
    const url = new URL(path, location.origin).href;
    const input = h('input', {
      type: 'text',
      readonly: true,
      value: url,
      id: `link-${kind}`,
      'data-testid': `link-${kind}`,
      onfocus: (e) => e.target.select(),
    });
    const button = h(
      'button',
      { type: 'button', 'data-testid': `copy-${kind}`, onclick: () => copy(url, button) },
      t('share.copy'),
    );
    return h(
      'div',
      { class: 'link-row' },
      h('label', { for: `link-${kind}` }, t(`share.${kind}`)),
      h('div', { class: 'link-field' }, input, button),
      h('p', { class: 'help' }, help),
    );
  };
  return h(
    'section',
    { class: 'share', 'data-testid': 'share' },
    h('h2', {}, t('share.title')),
    role ? h('p', {}, t(`share.youAre.${role}`)) : null,
    links.invite ? row('invite', links.invite, t('share.inviteHelp')) : null,
    row('spectate', links.spectate, t('share.spectateHelp')),
  );
}

/// Puts `text` on the clipboard (the older `execCommand` way where the Clipboard API is refused).
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h('textarea', { class: 'visually-hidden', readonly: true }, text);
    document.body.append(area);
    area.select();
    document.execCommand?.('copy');
    area.remove();
  }
}

async function copy(url, button) {
  await copyText(url);
  button.textContent = t('share.copied');
  setTimeout(() => {
    button.textContent = t('share.copy');
  }, 2000);
}
