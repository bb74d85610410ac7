// Offline after the first visit: with the server gone, a reload still opens the app and translates
// with the model used before (service worker, www/sw.js); the model is listed as available offline
// and can be removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, startServer, root } from './harness.mjs';

const defaultTitle = JSON.parse(readFileSync(join(root, 'www', 'models', 'index.json'), 'utf8')).find((e) => e.pair === 'en-de' && e.arch === 'transformer').title;

// A page with the service worker on, its server and browser stopped after `body`.
async function withWorkerPage(port, body) {
  const server = await startServer(port);
  const browser = await launch({ webgpu: false });
  try {
    const context = await browser.newContext({ serviceWorkers: 'allow' });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await body({ server, context, page, errors });
  } finally {
    await browser.close();
    server.stop();
  }
}

test('after one visit the page reloads and translates with the server gone', () => withWorkerPage(8137, async ({ server, page, errors }) => {
  const text = 'A man in a blue shirt is standing on a ladder.';
  // What the page said, for the message of a wait that times out (this test once timed out after
  // the offline reload, in a full run beside a training job, and never alone).
  const pageLog = [];
  page.on('console', (m) => pageLog.push(`${m.type()}: ${m.text()}`));
  page.on('requestfailed', (r) => pageLog.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  const done = async () => {
    try {
      await page.waitForFunction(() => / in \d+ ms/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 120000 });
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
  await page.waitForFunction(async () => {
    const want = ['./', 'wgslate-web_bg.wasm', 'wgslate-web.js', 'start.js', 'worker.js', 'models/index.json', 'models/en-de/transformer/model.safetensors', 'models/en-de/transformer/tokenizer.json', 'models/en-de/transformer/config.json'];
    const hits = await Promise.all(want.map((u) => caches.match(new URL(u, location.href).href)));
    return hits.every(Boolean);
  }, null, { timeout: 60000, polling: 500 });
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
  await page.click('[data-testid="offline-remove-en-de/transformer"]');
  await item.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(async () => Boolean(await caches.match(new URL('models/en-de/transformer/model.safetensors', location.href).href))), false);
  assert.deepEqual(errors, []);
}));

test('a full storage shows one note, which goes once a file is kept again', () => withWorkerPage(8145, async ({ server, context, page, errors }) => {
  // Chromium's own quota check, shrunk to 1 kB: every file the service worker keeps fails with
  // QuotaExceededError, as on a full disk.
  const cdp = await context.newCDPSession(page);
  const origin = server.url.replace(/\/$/, '');
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1024 });
  const done = () => page.waitForFunction(() => / in \d+ ms/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 120000 });
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
