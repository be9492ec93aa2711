// "Notify me" (issue 25): a profile's browser subscribes to Web Push, so the server can say when
// it is the player's turn, when a game ended and when someone took a seek, with the page closed.
// Imported by the profile panel only when the player asks, like the service worker (`sw.js`) it
// registers: a first visit loads neither.

import { t, language } from './i18n.js';

const CACHE = 'fugitive-push';
const STRINGS = '/push-strings';
const KINDS = ['turn', 'won', 'lost', 'aborted', 'paired'];

async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  }).catch(() => null);
  return res?.ok ? (res.status === 204 ? {} : await res.json().catch(() => ({}))) : null;
}

/// Keeps the notifications' words in the reader's language where the service worker reads them.
async function keepStrings() {
  const words = { lang: language(), title: t('push.title') };
  for (const kind of KINDS) words[kind] = t(`push.${kind}`);
  const cache = await caches.open(CACHE);
  await cache.put(STRINGS, new Response(JSON.stringify(words), { headers: { 'content-type': 'application/json' } }));
}

/// Whether this browser can be notified with the page closed.
export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in globalThis && 'Notification' in globalThis;
}

/// This browser's subscription, if it has one.
async function current() {
  const registration = await navigator.serviceWorker.getRegistration('/');
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/// 'on' when this browser is subscribed, else 'off' (or 'unsupported').
export async function pushState() {
  if (!pushSupported()) return 'unsupported';
  return (await current().catch(() => null)) ? 'on' : 'off';
}

/// Asks the browser's permission, subscribes with the server's key and tells the server: 'on',
/// or why not: 'denied', 'unsupported', 'failed'.
export async function enablePush() {
  if (!pushSupported()) return 'unsupported';
  if ((await Notification.requestPermission()) !== 'granted') return 'denied';
  try {
    const server = await call('GET', '/api/push/key');
    if (!server?.key) return 'failed';
    await navigator.serviceWorker.register('/sw.js');
    const registration = await navigator.serviceWorker.ready;
    await keepStrings();
    const subscription =
      (await registration.pushManager.getSubscription()) ??
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: server.key }));
    return (await call('POST', '/api/push/subscription', subscription.toJSON())) ? 'on' : 'failed';
  } catch {
    return 'failed';
  }
}

/// Unsubscribes this browser and tells the server: 'off'.
export async function disablePush() {
  const subscription = await current().catch(() => null);
  if (subscription) {
    await call('DELETE', '/api/push/subscription', { endpoint: subscription.endpoint });
    await subscription.unsubscribe().catch(() => false);
  }
  return 'off';
}
