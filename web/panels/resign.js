// Resigning (R17), asked twice: the quiet button, then "Resign?" with yes and no.

import { h } from '../dom.js';
import { t } from '../i18n.js';

/// The resign control of the room page `page` while its state allows it: { msg (the last
/// state), confirmResign (the question is open), act(action), render() }.
export function renderResign(page) {
  if (!page.msg.legal?.resign) return null;
  const ask = (open) => () => {
    page.confirmResign = open;
    page.render();
  };
  if (!page.confirmResign) {
    return h(
      'div',
      { class: 'resign' },
      h('button', { class: 'quiet', 'data-testid': 'resign', onclick: ask(true) }, t('resign.button')),
    );
  }
  const yes = () => {
    page.confirmResign = false;
    page.act({ type: 'resign' });
  };
  return h(
    'div',
    { class: 'resign' },
    h('span', {}, t('resign.confirm')),
    h('button', { class: 'danger', 'data-testid': 'resign-yes', onclick: yes }, t('resign.yes')),
    h('button', { 'data-testid': 'resign-no', onclick: ask(false) }, t('resign.no')),
  );
}
