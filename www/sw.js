// Offline after the first visit. Every same-origin GET goes to the network first, and each good
// answer replaces the cached copy (so an updated app or model replaces the old files); without a
// network, or while the server stays silent for NETWORK_WAIT_MS, the cached copy answers. The page
// also sends the files it fetched before this worker ran (the app shell) and each model it loads,
// so those are kept as well.
const CACHE = 'wgslate';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// Whether the page shows a storage problem, so a file kept later can clear it.
let reported = false;

// The pages list the kept models (and the picker marks them): a model's file kept is news to them.
// Its weights may be kept seconds after the model loaded, when the pages last looked.
const changed = new BroadcastChannel('wgslate-offline');

async function tell(message) {
  for (const client of await self.clients.matchAll()) client.postMessage(message);
}

async function keep(request, response) {
  try {
    const cache = await caches.open(CACHE);
    await cache.put(request, response);
    if (new URL(request.url ?? request, self.location.href).pathname.includes('/models/')) changed.postMessage('kept');
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

// Only a whole file is kept. The rest of a cut download (a 206) cannot be: the page puts the file it
// pieced together in the cache itself (src/download.rs).
const whole = (response) => response.status === 200;

// A server that takes this long to answer (stalled, or a line that lets nothing through) while a
// kept copy is at hand is not waited for: the copy answers, and the network's answer, if it comes
// later, is still kept.
const NETWORK_WAIT_MS = 5000;

// The app's page under any address that opens it (`/index.html`, `/?from=link`): only `./` is kept.
async function keptCopy(request) {
  if (request.mode !== 'navigate') return caches.match(request);
  return (await caches.match(request, { ignoreSearch: true })) ?? caches.match(new URL('./', self.registration.scope).href);
}

// The answers being kept as they stream through, by URL: a 'keep' message for one waits for it
// rather than fetching the file a second time.
const keeping = new Map();

// The page reads the network's answer through this worker, which keeps a copy once the whole file has
// come. When the page gives up (Stop the download, another model chosen), `controller` stops the
// download here too (see `stoppable`), rather than running it to its end for the cache while the model
// the user chose waits for the line.
function passedOn(request, response, controller, finished) {
  const reader = response.body.getReader();
  // Only a whole file is kept, so only its chunks are held.
  const keeps = whole(response);
  const chunks = [];
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const body = new ReadableStream({
    async pull(out) {
      try {
        const { done, value } = await reader.read();
        if (!done) {
          if (keeps) chunks.push(value);
          out.enqueue(value);
          return;
        }
        out.close();
        if (keeps) await keep(request, new Response(new Blob(chunks), init));
        chunks.length = 0;
        finished();
      } catch (error) {
        out.error(error);
        finished();
      }
    },
    cancel() {
      controller.abort();
      finished();
    },
  });
  return new Response(body, init);
}

// The downloads a page may stop (its request names them), and the channel it says so on: Chromium
// does not tell this worker when the page gives up a fetch, so it fetched on to the end for the cache.
const stoppable = new Map();
// Stops said before their fetch reached this worker (a Stop at once): that fetch stops on arrival.
const stoppedEarly = new Set();
new BroadcastChannel('wgslate-downloads').onmessage = (event) => {
  const controller = stoppable.get(event.data);
  if (controller) return controller.abort();
  stoppedEarly.add(event.data);
  setTimeout(() => stoppedEarly.delete(event.data), 60000);
};

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  // A navigation's request cannot be rebuilt with a signal; it is small, and nothing stops it.
  const navigate = request.mode === 'navigate';
  const controller = new AbortController();
  if (request.signal?.aborted) controller.abort();
  request.signal?.addEventListener('abort', () => controller.abort());
  const download = request.headers.get('x-wgslate-download');
  // Stopped before it came: no request goes out.
  if (stoppedEarly.delete(download)) controller.abort();
  const network = navigate ? fetch(request) : fetch(request, { signal: controller.signal });
  if (download) stoppable.set(download, controller);
  let ended;
  const done = new Promise((resolve) => { ended = resolve; });
  event.waitUntil(done);
  if (!navigate) keeping.set(request.url, done);
  let once = false;
  const finished = () => {
    if (once) return;
    once = true;
    if (download) stoppable.delete(download);
    if (keeping.get(request.url) === done) keeping.delete(request.url);
    ended();
  };
  const answer = (response) => {
    if (response.ok && response.body && !navigate) return passedOn(request, response, controller, finished);
    if (whole(response)) keep(request, response.clone()).finally(finished);
    else finished();
    return response;
  };
  event.respondWith((async () => {
    try {
      return await respond();
    } catch (error) {
      finished();
      throw error;
    }
  })());
  async function respond() {
    const slow = new Promise((resolve) => setTimeout(resolve, NETWORK_WAIT_MS, 'slow'));
    const first = await Promise.race([network.catch(() => 'failed'), slow]);
    if (first instanceof Response) return answer(first);
    // No network (or none yet): the kept copy, while the network's answer, if it comes, is kept in
    // full; else the network's own answer or failure.
    const copy = await keptCopy(request);
    if (copy) {
      network.then((response) => (whole(response) ? keep(request, response) : undefined), () => undefined).finally(finished);
      return copy;
    }
    return network.then(answer, (error) => {
      finished();
      throw error;
    });
  }
});

self.addEventListener('message', (event) => {
  if (event.data?.type !== 'keep') return;
  event.waitUntil(Promise.all(event.data.urls.map(async (url) => {
    await keeping.get(new URL(url, self.location.href).href);
    if (await caches.match(url)) return;
    const response = await fetch(url).catch(() => null);
    if (response && whole(response)) await keep(url, response);
  })));
});
