import init from './wgslate-web.js';
// The app replaces index.html's "Loading wgslate…" once it runs; a failed download says so there
// instead of leaving the page blank for good.
// The WebAssembly's share is written in the loading note as it arrives: on a slow line (100 KB/s)
// the note stood still for 15 s. With Content-Encoding the length is the server's decoded one.
async function countedWasm(url) {
  const response = await fetch(url);
  const header = response.headers.get(response.headers.has('content-encoding') ? 'x-decoded-length' : 'content-length');
  const total = Number(header) || 0;
  if (!response.ok || !response.body) return response;
  let received = 0;
  const counted = response.body.pipeThrough(new TransformStream({
    transform(chunk, controller) {
      received += chunk.byteLength;
      const boot = document.getElementById('boot');
      const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
      if (boot && !boot.hasAttribute('role')) {
        boot.textContent = total ? `Loading wgslate… ${Math.min(100, Math.floor((100 * received) / total))} % of ${mb(total)}` : `Loading wgslate… ${mb(received)}`;
      }
      controller.enqueue(chunk);
    },
  }));
  return new Response(counted, { headers: { 'Content-Type': 'application/wasm' } });
}

init({ module_or_path: countedWasm('./wgslate-web_bg.wasm') }).catch((error) => {
  const boot = document.getElementById('boot');
  if (!boot) return;
  boot.className = 'error';
  boot.setAttribute('role', 'alert');
  boot.textContent = `wgslate could not start: ${error?.message ?? error}. Check the connection, then `;
  const reload = document.createElement('button');
  reload.textContent = 'Reload';
  reload.dataset.testid = 'boot-reload';
  reload.addEventListener('click', () => location.reload());
  boot.append(reload);
});

// Offline after the first visit (sw.js). Files fetched before the worker took over are handed to
// it to keep; a storage problem it meets is shown at the top of the page.
if ('serviceWorker' in navigator) {
  // One note at most, gone once a file is kept again.
  navigator.serviceWorker.addEventListener('message', (event) => {
    const shown = document.querySelector('[data-testid=offline-error]');
    if (event.data?.type === 'offline-ok') shown?.remove();
    if (event.data?.type !== 'offline-error') return;
    const note = shown ?? document.createElement('p');
    note.className = 'error';
    note.setAttribute('role', 'alert');
    note.dataset.testid = 'offline-error';
    note.textContent = event.data.message;
    if (!shown) document.body.prepend(note);
  });
  navigator.serviceWorker.register('./sw.js').then(async () => {
    const worker = (await navigator.serviceWorker.ready).active;
    const keep = (entries) => {
      const urls = entries.map((e) => e.name).filter((u) => u.startsWith(location.origin));
      if (urls.length) worker.postMessage({ type: 'keep', urls });
    };
    keep([{ name: location.origin + location.pathname }]);
    // Every finished fetch, including those done before the worker took over and a model still
    // loading now (those after it are kept by the worker itself; it skips what it holds).
    new PerformanceObserver((list) => keep(list.getEntries())).observe({ type: 'resource', buffered: true });
  }).catch((error) => console.warn(`offline use unavailable: ${error}`));
}
