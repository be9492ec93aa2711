// The links that bring people to a room: the invitation for the opponent and the spectator
// link, labelled and styled apart, each with a copy button and the system share sheet where the
// browser has one; the clipboard, which the room and replay pages use too; and a game's replay
// address, which the game-over panel links to without loading the replay page.

import { h } from './dom.js';
import { t } from './i18n.js';

/// The invitation and the spectator link: labelled and styled differently ("for your opponent",
/// "for anyone watching"), shown whole, with a copy button and the system share sheet where the
/// browser has one.
export function renderShare(links, role) {
  const row = (kind, path) => {
    const url = new URL(path, location.origin).href;
    const field = h('textarea', {
      readonly: true,
      rows: 2,
      id: `link-${kind}`,
      class: 'link-text',
      'data-testid': `link-${kind}`,
      spellcheck: 'false',
      onfocus: (e) => e.target.select(),
    });
    field.value = url;
    const button = h(
      'button',
      {
        type: 'button',
        class: kind === 'invite' ? 'primary' : null,
        'data-testid': `copy-${kind}`,
        onclick: () => copy(url, button),
      },
      t('share.copy'),
    );
    const share =
      typeof navigator !== 'undefined' && navigator.share
        ? h(
            'button',
            {
              type: 'button',
              'data-testid': `share-${kind}`,
              onclick: () => navigator.share({ title: 'Fugitive', text: t(`share.${kind}Text`), url }).catch(() => {}),
            },
            t('share.share'),
          )
        : null;
    return h(
      'div',
      { class: ['link-card', kind], 'data-testid': `link-card-${kind}` },
      h(
        'label',
        { for: `link-${kind}`, class: 'link-label' },
        h('span', { class: 'link-kind' }, t(`share.${kind}`)),
        h('span', { class: 'link-for' }, t(`share.${kind}For`)),
      ),
      h('p', { class: 'help' }, t(`share.${kind}Help`)),
      field,
      h('div', { class: 'buttons' }, button, share),
    );
  };
  return h(
    'section',
    { class: 'share', 'data-testid': 'share', 'aria-labelledby': 'share-title' },
    h('h2', { id: 'share-title' }, t('share.title')),
    role ? h('p', {}, t(`share.youAre.${role}`)) : null,
    links.invite ? row('invite', links.invite) : null,
    row('spectate', links.spectate),
  );
}

/// A finished game's replay page.
export const replayPath = (room, game) => `/room/${room}/game/${game}`;

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
