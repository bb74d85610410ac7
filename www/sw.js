// Offline after the first visit. Every same-origin GET goes to the network first, and each good
// answer replaces the cached copy (so an updated app or model replaces the old files); without a
// network the cached copy answers. The page also sends, once this worker runs, the files it
// fetched before (the app shell and the first model), so those are kept as well.
const CACHE = 'wgslate';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

async function keep(request, response) {
  try {
    const cache = await caches.open(CACHE);
    await cache.put(request, response);
  } catch (error) {
    const message = error && error.name === 'QuotaExceededError'
      ? 'The browser has no room left to keep wgslate for offline use; free some storage or remove other sites’ data.'
      : `wgslate could not be kept for offline use: ${error}`;
    for (const client of await self.clients.matchAll()) client.postMessage({ type: 'offline-error', message });
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
