// The service worker (issue 25): shows a Web Push notification (`push.rs` on the server sends
// `{kind, room, url}`) and opens its room on a click. It is registered only when the player asks
// to be notified (`push.js`), so a visit that does not loads none of it. A worker cannot read the
// page's storage or its modules' strings: `push.js` keeps the words of the reader's language in
// the Cache Storage under STRINGS when the player opts in.

const CACHE = 'fugitive-push';
const STRINGS = '/push-strings';

async function strings() {
  try {
    const response = await (await caches.open(CACHE)).match(STRINGS);
    return response ? await response.json() : {};
  } catch {
    return {};
  }
}

/// Only a path of this site is opened.
function target(url) {
  const resolved = new URL(typeof url === 'string' ? url : '/', self.location.origin);
  return resolved.origin === self.location.origin ? resolved.href : self.location.origin + '/';
}

self.addEventListener('push', (event) => {
  event.waitUntil(
    (async () => {
      let data = {};
      try {
        data = event.data?.json() ?? {};
      } catch {
        // Not ours: shown with the title alone.
      }
      const words = await strings();
      await self.registration.showNotification(words.title ?? 'Fugitive', {
        body: words[data.kind] ?? '',
        lang: words.lang,
        icon: '/icon.svg',
        // One notification per room: the next replaces it.
        tag: data.room ?? 'fugitive',
        data: { url: target(data.url) },
      });
    })(),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = target(event.notification.data?.url);
  event.waitUntil(
    (async () => {
      const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const same = open.find((client) => client.url === url);
      return same ? same.focus() : self.clients.openWindow(url);
    })(),
  );
});
