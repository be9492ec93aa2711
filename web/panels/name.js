// The player's display name: one for this browser, kept in localStorage, sent with every
// `hello` and changed from the name field beside the table.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { local } from '../storage.js';

const NAME_KEY = 'fugitive:name';
/// The longest name the server takes (`bad_name` beyond).
export const MAX_NAME = 24;

/// This browser's name, if the player gave one.
export const storedName = () => local.get(NAME_KEY);

/// The name field of the room page `page` (none for a spectator): { msg (the last state), busy,
/// nameDraft (what the player is typing, which survives the re-render of a new state), conn,
/// send(request) }.
export function renderName(page) {
  const { view, room } = page.msg;
  if (view.viewer === 'spectator') return null;
  const save = (event) => {
    event.preventDefault();
    const name = event.target.querySelector('input').value.trim();
    page.nameDraft = null;
    if (name) local.set(NAME_KEY, name);
    else local.remove(NAME_KEY);
    page.send(page.conn.rename(name));
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
      value: page.nameDraft ?? room.names?.[view.viewer] ?? storedName() ?? '',
      oninput: (event) => {
        page.nameDraft = event.target.value;
      },
    }),
    h('button', { type: 'submit', 'data-testid': 'name-save', disabled: page.busy }, t('name.save')),
  );
}
