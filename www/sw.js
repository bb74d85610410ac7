// Offline after the first visit. Every same-origin GET goes to the network first, and each good
// answer replaces the cached copy (so an updated app or model replaces the old files); without a
// network the cached copy answers. The page also sends, once this worker runs, the files it
// fetched before (the app shell and the first model), so those are kept as well.
const CACHE = 'wgslate';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// Whether the page shows a storage problem, so a file kept later can clear it.
let reported = false;

async function tell(message) {
  for (const client of await self.clients.matchAll()) client.postMessage(message);
}

async function keep(request, response) {
  try {
    const cache = await caches.open(CACHE);
    await cache.put(request, response);
    if (reported) {
      reported = false;
      await tell({ type: 'offline-ok' });
    }
  } catch (error) {
    // A download cut off on the way fails here too: the page reports that itself, and the next
    // good answer is kept. Only a full storage is the user's to fix.
    if (error?.name !== 'QuotaExceededError') return;
    reported = true;
    await tell({ type: 'offline-error', message: 'The browser has no room left to keep wgslate for offline use; free some storage or remove other sites’ data.' });
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    try {
      const response = await fetch(request);
      if (response.ok) event.waitUntil(keep(request, response.clone()));
      return response;
    } catch (error) {
      const cached = await caches.match(request);
      if (cached) return cached;
      throw error;
    }
  })());
});

self.addEventListener('message', (event) => {
  if (event.data?.type !== 'keep') return;
  event.waitUntil(Promise.all(event.data.urls.map(async (url) => {
    if (await caches.match(url)) return;
    const response = await fetch(url).catch(() => null);
    if (response?.ok) await keep(url, response);
  })));
});
