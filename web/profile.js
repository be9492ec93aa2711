// The profile without an account (issue 25): the server makes it on the first visit and keeps
// it in an HttpOnly cookie this page never reads. The landing page shows its panel: the name,
// moving the profile to another device (a link or a short code, once, for 10 minutes),
// "notify me" (Web Push, `push.js`), and deleting it. The seats taken under the profile come back
// from the server (`syncSeats`), so "my games" follows it to a new device.

import { h } from './dom.js';
import { t } from './i18n.js';
import { holdSeat } from './seat.js';

async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  }).catch(() => null);
  if (!res) return { error: 'unreachable' };
  const json = res.status === 204 ? {} : await res.json().catch(() => ({}));
  return res.ok ? { ok: json } : { error: json.error ?? 'unavailable' };
}

/// This browser's profile, made if it has none: `{ id, name, page }`, or null when the server
/// would not (rate limit, unreachable): the site works without.
export async function ensureProfile() {
  return (await call('POST', '/api/profile')).ok ?? null;
}

/// Keeps in this browser every seat taken under its profile that it does not hold yet.
export async function syncSeats() {
  const { ok } = await call('GET', '/api/profile/seats');
  for (const seat of ok?.seats ?? []) holdSeat(seat.room, seat.token);
}

/// Takes the profile of a transfer link (`#transfer=…`) opened in this browser, if the address
/// holds one: `{ profile }` or `{ error }`, or null.
async function redeemFromAddress() {
  const code = new URLSearchParams(location.hash.slice(1)).get('transfer');
  if (!code) return null;
  history.replaceState(null, '', location.pathname);
  const { ok, error } = await call('POST', '/api/profile/transfer/redeem', { code });
  return ok ? { profile: ok } : { error };
}

/// The profile panel of the landing page. `changed` re-renders the page (after which
/// `element()` draws the panel as it now is); `start()` takes a transfer link, makes or finds
/// the profile and brings its seats home, then resolves.
export function profilePanel(changed) {
  let profile = null;
  let draft = null; // the name being typed
  let notice = null; // { key, alert }
  let transfer = null; // { link, code }
  let code = '';
  // Which folds are open: the page is drawn anew on every change.
  const open = { move: false, delete: false, notify: false };
  // Web Push in this browser, once its fold was opened: on, off, denied, unsupported, failed.
  // Its code (push.js) is imported then: a first visit loads none of it.
  let notify = null;
  const fold = (name) => ({
    open: open[name],
    ontoggle: (e) => {
      open[name] = e.target.open;
    },
  });

  const say = (key, alert = false) => {
    notice = { key, alert };
    changed();
  };

  async function start() {
    const redeemed = await redeemFromAddress();
    if (redeemed?.error) notice = { key: 'profile.transferInvalid', alert: true };
    if (redeemed?.profile) notice = { key: 'profile.moved', alert: false };
    profile = redeemed?.profile ?? (await ensureProfile());
    if (profile) await syncSeats();
    changed();
  }

  async function rename(event) {
    event.preventDefault();
    const { ok, error } = await call('PATCH', '/api/profile', { name: draft ?? profile.name ?? '' });
    if (ok) {
      profile = ok;
      draft = null;
    }
    say(ok ? 'profile.saved' : error === 'bad_name' ? 'profile.badName' : 'profile.failed', !ok);
  }

  async function makeTransfer() {
    const { ok } = await call('POST', '/api/profile/transfer');
    if (!ok) return say('profile.failed', true);
    transfer = { link: new URL(ok.link, location.origin).href, code: ok.code };
    notice = null;
    changed();
  }

  async function redeem(event) {
    event.preventDefault();
    const { ok } = await call('POST', '/api/profile/transfer/redeem', { code });
    if (!ok) return say('profile.transferInvalid', true);
    profile = ok;
    code = '';
    draft = null;
    await syncSeats();
    say('profile.moved');
    // "My games" of the profile just taken.
    location.reload();
  }

  async function openNotify(event) {
    open.notify = event.target.open;
    if (!open.notify || notify) return;
    notify = await (await import('./push.js')).pushState();
    changed();
  }

  async function toggleNotify() {
    const push = await import('./push.js');
    notify = notify === 'on' ? await push.disablePush() : await push.enablePush();
    changed();
  }

  async function remove() {
    if (!confirm(t('profile.deleteConfirm'))) return;
    const { ok } = await call('DELETE', '/api/profile');
    if (!ok) return say('profile.failed', true);
    profile = null;
    transfer = null;
    say('profile.deleted');
  }

  function element() {
    if (!profile) {
      return notice
        ? h('section', { class: 'profile', 'data-testid': 'profile' }, h('p', { role: 'status' }, t(notice.key)))
        : null;
    }
    return h(
      'section',
      { class: 'profile', 'data-testid': 'profile', 'data-profile': profile.id, 'aria-labelledby': 'profile-title' },
      h('h2', { id: 'profile-title' }, t('profile.title')),
      h(
        'p',
        { class: 'profile-help' },
        profile.name ? t('profile.playingAs', { name: profile.name }) : t('profile.anonymous'),
        ' ',
        h('a', { href: profile.page, 'data-testid': 'profile-page-link' }, t('profile.page')),
        ' · ',
        h('a', { href: '/leaderboard' }, t('leaderboard.title')),
      ),
      h(
        'form',
        { class: 'profile-name', onsubmit: rename },
        h('label', { for: 'profile-name' }, t('profile.name')),
        h('input', {
          id: 'profile-name',
          'data-testid': 'profile-name',
          maxlength: 24,
          autocomplete: 'nickname',
          value: draft ?? profile.name ?? '',
          oninput: (e) => {
            draft = e.target.value;
          },
        }),
        h('button', { type: 'submit', 'data-testid': 'profile-save' }, t('profile.save')),
      ),
      notice
        ? h(
            'p',
            {
              class: notice.alert ? 'alert' : 'profile-notice',
              role: notice.alert ? 'alert' : 'status',
              'data-testid': 'profile-notice',
            },
            t(notice.key),
          )
        : null,
      h(
        'details',
        { class: 'profile-move', ...fold('move') },
        h('summary', {}, t('profile.move')),
        h('p', {}, t('profile.moveHelp')),
        transfer
          ? h(
              'div',
              { class: 'profile-transfer', 'data-testid': 'profile-transfer' },
              h(
                'p',
                {},
                t('profile.link'),
                ' ',
                h('a', { href: transfer.link, 'data-testid': 'profile-transfer-link' }, transfer.link),
              ),
              h(
                'p',
                {},
                t('profile.code'),
                ' ',
                h('strong', { 'data-testid': 'profile-transfer-code' }, transfer.code),
              ),
            )
          : h(
              'button',
              { type: 'button', 'data-testid': 'profile-transfer-make', onclick: makeTransfer },
              t('profile.makeTransfer'),
            ),
        h(
          'form',
          { class: 'profile-redeem', onsubmit: redeem },
          h('label', { for: 'profile-code' }, t('profile.haveCode')),
          h('input', {
            id: 'profile-code',
            'data-testid': 'profile-code',
            autocomplete: 'off',
            value: code,
            oninput: (e) => {
              code = e.target.value;
            },
          }),
          h('button', { type: 'submit', 'data-testid': 'profile-redeem' }, t('profile.useCode')),
        ),
      ),
      h(
        'details',
        { class: 'profile-notify', 'data-testid': 'profile-notify', open: open.notify, ontoggle: openNotify },
        h('summary', {}, t('push.title')),
        h('p', {}, t('push.help')),
        notify ? h('p', { role: 'status', 'data-testid': 'push-state' }, t(`push.${notify}`)) : null,
        notify && notify !== 'unsupported'
          ? h(
              'button',
              { type: 'button', 'data-testid': 'push-toggle', onclick: toggleNotify },
              t(notify === 'on' ? 'push.disable' : 'push.enable'),
            )
          : null,
      ),
      h(
        'details',
        { class: 'profile-delete', ...fold('delete') },
        h('summary', {}, t('profile.delete')),
        h('p', {}, t('profile.deleteHelp')),
        h(
          'button',
          { type: 'button', class: 'danger', 'data-testid': 'profile-delete', onclick: remove },
          t('profile.deleteButton'),
        ),
      ),
    );
  }

  return { start, element };
}
