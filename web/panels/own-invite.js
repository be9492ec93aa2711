// Asked when this browser, which holds a seat in the room, opens the room's invitation: most
// likely the player's own link for the opponent. Copy it for the opponent, or take the other
// seat in this tab (both seats then stay in this browser), or just go on.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { claim, keepTabSeat } from '../seat.js';
import { copyText } from '../share.js';

/// The question for the invitation `invite` of `room`, asked of `me` (the viewer, if known).
/// `on`: { done(notice) }: the question is answered, with the notice to show (null for none).
export function renderOwnInvite(room, invite, me, on) {
  const url = `${location.origin}${location.pathname}#invite=${invite}`;
  const copyButton = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      'data-testid': 'own-invite-copy',
      onclick: async () => {
        await copyText(url);
        on.done(t('ownInvite.copied'));
      },
    },
    t('ownInvite.copy'),
  );
  const take = async () => {
    const claimed = await claim(room, invite);
    if (claimed.token) {
      keepTabSeat(room, claimed.token);
      location.reload();
      return;
    }
    on.done(claimed.error === 'seat_taken' ? t('ownInvite.taken') : t('room.refused'));
  };
  return h(
    'section',
    { class: 'own-invite', 'data-testid': 'own-invite', role: 'alertdialog', 'aria-labelledby': 'own-invite-title' },
    h('h2', { id: 'own-invite-title' }, t('ownInvite.title')),
    h('p', {}, me === 'fugitive' || me === 'marshal' ? t(`ownInvite.youAre.${me}`) : t('ownInvite.youHaveSeat')),
    h(
      'div',
      { class: 'buttons' },
      copyButton,
      h('button', { type: 'button', 'data-testid': 'own-invite-take', onclick: take }, t('ownInvite.take')),
      h(
        'button',
        { type: 'button', class: 'quiet', 'data-testid': 'own-invite-dismiss', onclick: () => on.done(null) },
        t('ownInvite.dismiss'),
      ),
    ),
  );
}
