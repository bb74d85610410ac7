// Offline after the first visit: with the server gone, a reload still opens the app and translates
// with the model used before (service worker, www/sw.js); the model is listed as available offline
// and can be removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import http from 'node:http';
import { launch, startServer, root, untilTranslated } from './harness.mjs';

const index = JSON.parse(readFileSync(join(root, 'www', 'models', 'index.json'), 'utf8'));
const title = (arch) => index.find((e) => e.pair === 'en-de' && e.arch === arch).title;
const defaultTitle = title('transformer');

// A page with the service worker on, its server and browser stopped after `body`. With `trickle`, the
// page talks to a `trickleProxy` on `port` (the server is on the next port) that trickles those files out.
async function withWorkerPage(port, body, { trickle } = {}) {
  const server = await startServer(trickle ? port + 1 : port);
  const proxy = trickle ? trickleProxy(port, port + 1, trickle) : null;
  const browser = await launch({ webgpu: false });
  try {
    const context = await browser.newContext({ serviceWorkers: 'allow' });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await body({ server: proxy ? { ...server, url: proxy.url } : server, context, page, errors, proxy });
  } finally {
    await browser.close();
    proxy?.close();
    server.stop();
  }
}

const SHELL = ['./', 'wgslate-web_bg.wasm', 'wgslate-web.js', 'start.js', 'worker.js', 'models/index.json'];
const MODEL = ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => `models/en-de/transformer/${f}`);

// Waits until the service worker's cache holds `paths`. (page.waitForFunction takes the promise an
// async predicate returns for a truthy answer, so this wait once passed at once and the reload
// after it raced the service worker.)
async function untilCached(page, paths, timeout = 60000) {
  const missing = () => page.evaluate(async (paths) => {
    const hits = await Promise.all(paths.map((u) => caches.match(new URL(u, location.href).href)));
    return paths.filter((_, i) => !hits[i]);
  }, paths);
  const end = Date.now() + timeout;
  for (let left = await missing(); left.length; left = await missing()) {
    if (Date.now() > end) throw new Error(`not kept after ${timeout} ms: ${left.join(', ')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const translated = (page) => untilTranslated(page, 120000);

test('after one visit the page reloads and translates with the server gone', () => withWorkerPage(8137, async ({ server, context, page, errors }) => {
  const text = 'A man in a blue shirt is standing on a ladder.';
  // What the page said, for the message of a wait that times out (this test once timed out after
  // the offline reload, in a full run beside a training job, and never alone).
  const pageLog = [];
  page.on('console', (m) => pageLog.push(`${m.type()}: ${m.text()}`));
  page.on('requestfailed', (r) => pageLog.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  const done = async () => {
    try {
      await untilTranslated(page, 120000);
    } catch (error) {
      const status = await page.locator('[data-testid=tr-status]').textContent({ timeout: 1000 }).catch(() => '(no status)');
      throw new Error(`${error.message}\nstatus: ${status}\npage errors: ${errors.join(' | ')}\nconsole:\n${pageLog.slice(-30).join('\n')}`);
    }
  };
  await page.goto(`${server.url}#translate?text=${encodeURIComponent(text)}`);
  await done();
  const online = await page.locator('[data-testid=tr-output]').innerText();
  assert.ok(online.trim().length > 0);
  // Wait until the service worker holds the page, the app and the model.
  await untilCached(page, [...SHELL, ...MODEL]);
  server.stop();
  await new Promise((r) => setTimeout(r, 300));
  await page.reload();
  await done();
  assert.equal(await page.locator('[data-testid=tr-output]').innerText(), online);
  // "Available offline" lists the model with its size, and Remove deletes its files.
  await page.click('[data-testid=offline-models] summary');
  const item = page.locator('[data-testid=offline-model][data-model="en-de/transformer"]');
  await item.waitFor();
  assert.ok((await item.textContent()).startsWith(`en → de · ${defaultTitle} · `), await item.textContent());
  assert.match(await item.textContent(), / · \d+\.\d MB/);
  // A second tab lists it too, and drops it when the first tab removes it.
  const other = await context.newPage();
  await other.goto(page.url());
  await other.click('[data-testid=offline-models] summary');
  const otherItem = other.locator('[data-testid=offline-model][data-model="en-de/transformer"]');
  await otherItem.waitFor();
  // Its own rescans (after its translation, and 1.5 s later) are over before the Remove.
  await untilTranslated(other, 120000);
  await other.waitForTimeout(2500);
  await page.bringToFront();
  await page.click('[data-testid="offline-remove-en-de/transformer"]');
  await item.waitFor({ state: 'detached' });
  await otherItem.waitFor({ state: 'detached', timeout: 10000 });
  assert.equal(await page.evaluate(async () => Boolean(await caches.match(new URL('models/en-de/transformer/model.safetensors', location.href).href))), false);
  assert.deepEqual(errors, []);
}));

test('a model downloaded before the service worker took over is kept too', () => withWorkerPage(8146, async ({ server, context, page, errors }) => {
  // The service worker's script is held until the first translation is done, so the engine worker
  // downloads the model with no service worker in the way (as a slow first visit can).
  let release;
  const held = new Promise((r) => { release = r; });
  let swRequested = false;
  await context.route('**/sw.js', async (route) => {
    swRequested = true;
    await held;
    await route.continue();
  });
  await page.goto(`${server.url}#translate?text=${encodeURIComponent('A dog runs.')}`);
  await translated(page);
  assert.ok(swRequested, 'the page asked for sw.js');
  assert.equal(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)), false, 'no service worker while the model downloaded');
  release();
  await untilCached(page, MODEL);
  const online = await page.locator('[data-testid=tr-output]').innerText();
  await untilCached(page, SHELL);
  server.stop();
  await new Promise((r) => setTimeout(r, 300));
  await page.reload();
  await translated(page);
  assert.equal(await page.locator('[data-testid=tr-output]').innerText(), online);
  assert.deepEqual(errors, []);
}));

test('a server that stops answering does not hang the page: the kept copies answer, under any address of the page', () => withWorkerPage(8147, async ({ server, page, errors }) => {
  await page.goto(`${server.url}#translate?text=${encodeURIComponent('A dog runs.')}`);
  await translated(page);
  const online = await page.locator('[data-testid=tr-output]').innerText();
  await untilCached(page, [...SHELL, ...MODEL]);
  // The port accepts connections and never answers.
  server.stop();
  await new Promise((r) => setTimeout(r, 300));
  const sockets = [];
  const silent = createServer((socket) => sockets.push(socket));
  await new Promise((r) => silent.listen(8147, '127.0.0.1', r));
  try {
    await page.goto(`${server.url}index.html?from=link#translate?text=${encodeURIComponent('A dog runs.')}`, { timeout: 120000 });
    await translated(page);
    assert.equal(await page.locator('[data-testid=tr-output]').innerText(), online);
    assert.ok(sockets.length > 0, 'the page asked the silent server first');
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
  }
  assert.deepEqual(errors, []);
}));

test('a full storage shows one note, which goes once a file is kept again', () => withWorkerPage(8145, async ({ server, context, page, errors }) => {
  // Chromium's own quota check, shrunk to 1 kB: every file the service worker keeps fails with
  // QuotaExceededError, as on a full disk.
  const cdp = await context.newCDPSession(page);
  const origin = server.url.replace(/\/$/, '');
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1024 });
  const done = () => untilTranslated(page, 120000);
  await page.goto(`${server.url}#translate?text=${encodeURIComponent('A dog runs.')}`);
  await done();
  const note = page.locator('[data-testid=offline-error]');
  await note.waitFor({ timeout: 60000 });
  assert.match(await note.textContent(), /no room left to keep wgslate for offline use/);
  assert.equal(await note.count(), 1, 'one note, however many files failed');
  // Room again: the next file kept clears the note.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await done();
  await note.waitFor({ state: 'detached', timeout: 60000 });
  assert.deepEqual(errors, []);
}));

// (A walk saw the mark come only after a reload: the page looked at the cache when the model
// loaded and 1.5 s later, before the service worker had kept the weights. Here it keeps them
// within that time, so this passes on that build too; the service worker now says when it keeps.)
test('a model is marked kept as soon as its files are, without a reload or a look at the list', () => withWorkerPage(8150, async ({ server, page, errors }) => {
  const model = 'en-de/transformer-d224-distilled';
  await page.goto(`${server.url}#translate?backend=cpu&text=${encodeURIComponent('A dog runs.')}`);
  await translated(page);
  await page.selectOption('[data-testid=tr-model]', model);
  await page.waitForFunction((m) => document.querySelector('[data-testid=tr-output]')?.getAttribute('data-model') === m && / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), model, { timeout: 120000 });
  await untilCached(page, ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => `models/${model}/${f}`));
  // The list is closed: the picker learns it from the service worker (it said so only after a reload).
  await page.waitForFunction((m) => / · kept offline$/.test(document.querySelector(`[data-testid=tr-model] option[value="${m}"]`)?.textContent), model, { timeout: 10000 });
  assert.deepEqual(errors, []);
}));

test('an ensemble is listed as kept with its members, the picker marks kept models, and a member\'s Remove takes the ensemble off', () => withWorkerPage(8148, async ({ server, context, page, errors }) => {
  const members = ['en-de/transformer-d224-distilled', 'en-de/transformer-d224-bt'];
  const files = (m) => ['config.json', 'tokenizer.json', 'model.safetensors'].map((f) => `models/${m}/${f}`);
  await page.goto(`${server.url}#translate?backend=cpu&model=en-de%2Fensemble&text=${encodeURIComponent('A dog runs.')}`);
  await translated(page);
  await untilCached(page, members.flatMap(files));
  await page.click('[data-testid=offline-models] summary');
  const row = (m) => page.locator(`[data-testid=offline-model][data-model="${m}"]`);
  await row('en-de/ensemble').waitFor({ timeout: 10000 });
  // By title, as the picker names them; an ensemble has no files (nor size) of its own.
  assert.equal(await row('en-de/ensemble').textContent(), `en → de · ${title('ensemble')} · made of ${title('transformer-d224-distilled')} and ${title('transformer-d224-bt')}, whose files it uses Remove`);
  for (const m of members) assert.ok((await row(m).textContent()).endsWith(`(part of ${title('ensemble')}) Remove`), await row(m).textContent());
  // The picker says which models need no download.
  const option = (m) => page.locator(`[data-testid=tr-model] option[value="${m}"]`).textContent();
  assert.match(await option('en-de/ensemble'), / · kept offline$/);
  assert.doesNotMatch(await option('en-de/gru'), /kept offline/);
  assert.match(await page.locator('[data-testid=tr-model-label]').textContent(), / · kept offline$/);
  // Without a network the others say they need one.
  await context.setOffline(true);
  await page.waitForFunction(() => / · needs a connection$/.test(document.querySelector('[data-testid=tr-model] option[value="en-de/gru"]')?.textContent));
  assert.match(await option('en-de/ensemble'), / · kept offline$/);
  // Choosing one says so in words, naming the model rather than only a file.
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  const alert = page.locator('[data-testid=tr-error]');
  await alert.waitFor({ timeout: 60000 });
  assert.match(await alert.textContent(), /^Could not load the model: you are offline, and en-de\/gru is not kept for offline use \(no models\/en-de\/gru\/config\.json\): reconnect and try again/);
  // And which models do translate offline, by the picker's titles, rather than leaving the user to try each.
  const ready = index.filter((e) => [...members, 'en-de/ensemble'].includes(`${e.pair}/${e.arch}`)).map((e) => `${e.title} (en → de)`);
  assert.equal(await page.locator('[data-testid=tr-offline-choices]').textContent(), `These translate offline: ${ready.join(', ')}; pick one in the model list. `);
  await page.selectOption('[data-testid=tr-model]', 'en-de/ensemble');
  await context.setOffline(false);
  await page.waitForFunction(() => !/needs a connection/.test(document.querySelector('[data-testid=tr-model] option[value="en-de/gru"]')?.textContent));
  // Without one member the ensemble cannot run offline: it leaves the list and loses its mark.
  await page.click('[data-testid="offline-remove-en-de/transformer-d224-bt"]');
  await row('en-de/ensemble').waitFor({ state: 'detached', timeout: 10000 });
  await page.waitForFunction(() => !/kept offline/.test(document.querySelector('[data-testid=tr-model] option[value="en-de/ensemble"]')?.textContent));
  assert.doesNotMatch(await row(members[0]).textContent(), /part of/);
  // The member's files back (as a later visit would keep them): the ensemble's own Remove deletes both members' files.
  await page.evaluate(async (urls) => (await caches.open('wgslate')).addAll(urls), files(members[1]));
  await page.click('[data-testid=offline-models] summary');
  await page.click('[data-testid=offline-models] summary');
  await row('en-de/ensemble').waitFor({ timeout: 10000 });
  assert.equal(await page.locator('[data-testid="offline-remove-en-de/ensemble"]').getAttribute('aria-label'), 'Remove en-de/ensemble and its 2 models from this browser');
  await page.click('[data-testid="offline-remove-en-de/ensemble"]');
  for (const m of ['en-de/ensemble', ...members]) await row(m).waitFor({ state: 'detached', timeout: 10000 });
  const left = await page.evaluate(async (urls) => (await Promise.all(urls.map((u) => caches.match(new URL(u, location.href).href)))).filter(Boolean).length, members.flatMap(files));
  assert.equal(left, 0);
  // Gone from the cache but still in the engine's memory: they translate offline, so the picker does not say they need a connection.
  await context.setOffline(true);
  await page.waitForFunction(() => / · needs a connection$/.test(document.querySelector('[data-testid=tr-model] option[value="en-de/gru"]')?.textContent));
  for (const m of ['en-de/ensemble', ...members]) assert.doesNotMatch(await option(m), /needs a connection|kept offline/, m);
  await page.fill('[data-testid=tr-input]', 'A cat sleeps.');
  // Translated (the dog's translation replaced), not stopped by a missing file.
  await page.waitForFunction(() => / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? '') && !/Hund/.test(document.querySelector('[data-testid=tr-output]')?.innerText ?? 'Hund'), null, { timeout: 120000 });
  assert.equal(await page.locator('[data-testid=tr-error]').count(), 0);
  await context.setOffline(false);
  assert.deepEqual(errors, []);
}));

// In front of the server: `slow` files trickle out at 256 KB/s, and how each such answer ended is noted
// ('complete', or 'closed' when the browser hung up first).
function trickleProxy(port, target, slow) {
  const ends = [];
  const proxy = http.createServer((req, res) => {
    const up = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, async (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      if (!slow.test(req.url)) return answer.pipe(res);
      const chunks = [];
      for await (const c of answer) chunks.push(c);
      const body = Buffer.concat(chunks);
      for (let at = 0; at < body.length && !res.destroyed; at += 64 * 1024) {
        res.write(body.subarray(at, at + 64 * 1024));
        await new Promise((r) => setTimeout(r, 250));
      }
      // The service worker's own fetch names it as the referrer (the page's would name the page).
      ends.push(`${res.destroyed ? 'closed' : 'complete'} (from ${new URL(req.headers.referer ?? 'http://x/none').pathname})`);
      res.end();
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  proxy.listen(port, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}/`, ends, close: () => proxy.close() };
}

test('Stop the download stops the service worker\'s download too, not only the page\'s, also when said before it began', () => withWorkerPage(8151, async ({ server, page, errors, proxy }) => {
  await page.goto(`${server.url}#translate?backend=cpu`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await page.locator('[data-testid=tr-download-stop]').waitFor({ timeout: 60000 });
  await page.click('[data-testid=tr-download-stop]');
  // The GRU's 5.9 MB take 23 s at this pace: the service worker fetched on to the end for its cache.
  const end = Date.now() + 15000;
  while (proxy.ends.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(proxy.ends, ['closed (from /sw.js)']);
  // A stop said before its fetch reached the service worker stops that fetch when it comes.
  const early = await page.evaluate(async () => {
    new BroadcastChannel('wgslate-downloads').postMessage('stopped-before-asked');
    await new Promise((r) => setTimeout(r, 300));
    try {
      const answer = await fetch('models/en-de/gru/model.safetensors', { headers: { 'x-wgslate-download': 'stopped-before-asked' } });
      return `${(await answer.arrayBuffer()).byteLength} bytes`;
    } catch {
      return 'stopped';
    }
  });
  assert.equal(early, 'stopped');
  assert.ok(!proxy.ends.some((end) => end.startsWith('complete')), proxy.ends.join(', '));
  assert.deepEqual(errors, []);
}, { trickle: /\/en-de\/gru\/model\.safetensors/ }));
