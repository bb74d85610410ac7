// A model download that is cut off or stopped goes on from where it ended: the page asks for the
// rest (Range, with If-Range naming the ETag of the part it holds) instead of the whole file again,
// and the file pieced together translates as the native CLI does and is kept for offline use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { launch, startServer, root, wgslate, untilTranslated } from './harness.mjs';

const MODEL = 'en-de/transformer';
const WEIGHTS = `/models/${MODEL}/model.safetensors`;
const SIZE = statSync(join(root, 'www', WEIGHTS)).size;
const SOURCE = 'A man in a blue shirt is standing on a ladder.';
const native = () => wgslate(['translate', '--model', join(root, 'www', 'models', MODEL), '--backend', 'cpu'], SOURCE + '\n').trimEnd();

// In front of the server on `target`: every answer for the weights is noted (the headers asked
// with, its status and encoding, the bytes sent and whether the proxy cut it). `plan(n)` says what
// to do with the n-th request for them (from 0): 'pass', 'cut' (half the body, then the connection
// is dropped), 'refuse' (dropped before any answer) or 'trickle' (64 KB every 250 ms; `closed` once
// the browser hung up first).
function proxy(port, target, plan) {
  const weights = [];
  const server = http.createServer((req, res) => {
    const isWeights = new URL(req.url, 'http://x').pathname === WEIGHTS;
    const what = isWeights ? plan(weights.length) : 'pass';
    const note = isWeights ? { range: req.headers.range, ifRange: req.headers['if-range'], acceptEncoding: req.headers['accept-encoding'], sent: 0, cut: false } : null;
    if (note) weights.push(note);
    if (what === 'refuse') return req.socket.destroy();
    const up = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, async (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      if (!note) return answer.pipe(res);
      Object.assign(note, { status: answer.statusCode, etag: answer.headers.etag, encoding: answer.headers['content-encoding'] });
      const chunks = [];
      for await (const c of answer) chunks.push(c);
      const body = Buffer.concat(chunks);
      note.length = body.length;
      const end = what === 'cut' ? Math.floor(body.length / 2) : body.length;
      const step = what === 'trickle' ? 64 * 1024 : end;
      for (let at = 0; at < end && !res.destroyed; at += step) {
        const piece = body.subarray(at, Math.min(end, at + step));
        res.write(piece);
        note.sent += piece.length;
        if (what === 'trickle') await new Promise((r) => setTimeout(r, 250));
      }
      if (what === 'cut') {
        note.cut = true;
        // Written out before the drop, so the browser holds the half.
        await new Promise((r) => setTimeout(r, 300));
        return res.socket.destroy();
      }
      note.closed = res.destroyed;
      res.end();
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.listen(port, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}/`, weights, close: () => server.close() };
}

// A page without WebGPU (the CPU engine) behind `proxy(port, port + 1, plan)`, its server, proxy
// and browser stopped after `body`.
async function withCutPage(port, plan, body, { serviceWorkers = 'block' } = {}) {
  const server = await startServer(port + 1);
  const front = proxy(port, port + 1, plan);
  const browser = await launch({ webgpu: false });
  try {
    const context = await browser.newContext({ serviceWorkers });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await body({ page, errors, weights: front.weights, url: front.url, server });
  } finally {
    await browser.close();
    front.close();
    server.stop();
  }
}

const output = async (page) => (await page.locator('[data-testid=tr-output]').innerText()).trim();

// The first byte the n-th request asked for.
function rangeStart(request) {
  const m = /^bytes=(\d+)-$/.exec(request.range ?? '');
  assert.ok(m, `a range was asked for: ${JSON.stringify(request)}`);
  return Number(m[1]);
}

test('a model download cut off half-way asks for the rest only, at once, and translates as the native CLI does', () => withCutPage(8160, (n) => (n === 0 ? 'cut' : 'pass'), async ({ page, errors, weights, url }) => {
  await page.goto(`${url}#translate?text=${encodeURIComponent(SOURCE)}`);
  await untilTranslated(page, 300000);
  assert.equal(await output(page), native());
  assert.equal(await page.locator('[data-testid=tr-error]').count(), 0);
  assert.equal(weights.length, 2, JSON.stringify(weights));
  const [first, rest] = weights;
  // The first came compressed and was cut; the rest is the file's own bytes from the first one the
  // page lacks (the browser asks for a range without Accept-Encoding), under the first one's tag.
  assert.deepEqual([first.status, first.cut, first.range], [200, true, undefined]);
  assert.ok(first.encoding, 'the weights came compressed');
  const from = rangeStart(rest);
  assert.ok(from > 0 && from < SIZE, `from byte ${from} of ${SIZE}`);
  assert.equal(rest.ifRange, first.etag);
  assert.deepEqual([rest.status, rest.encoding, rest.sent], [206, undefined, SIZE - from]);
  // Starting again would have cost the half already sent once more.
  assert.ok(first.sent + rest.sent < 1.2 * SIZE, `${first.sent} + ${rest.sent} bytes for a file of ${SIZE}`);
  assert.deepEqual(errors, []);
}));

test('a cut download whose server then stops answering says what it kept, and the next try goes on from there', async () => {
  // Refused until the test lets requests through again (Chromium may retry a refused request itself).
  let refusing = true;
  await withCutPage(8162, (n) => (n === 0 ? 'cut' : refusing ? 'refuse' : 'pass'), async ({ page, errors, weights, url }) => {
    await page.goto(`${url}#translate?text=${encodeURIComponent(SOURCE)}`);
    const alert = page.locator('[data-testid=tr-error]');
    await alert.waitFor({ timeout: 120000 });
    assert.match(await alert.textContent(), /models\/en-de\/transformer\/model\.safetensors: the download failed \(no answer from the server\); check the connection and try again \(\d\.\d MB of 3\.6 MB kept in this tab: trying again goes on from there\)/);
    const refused = weights.length;
    assert.ok(refused >= 2, 'the rest was asked for');
    const from = rangeStart(weights[1]);
    refusing = false;
    await page.focus('[data-testid=tr-input]');
    await page.keyboard.press('Control+Enter');
    await untilTranslated(page, 300000);
    assert.equal(await output(page), native());
    assert.equal(weights.length, refused + 1, JSON.stringify(weights));
    const last = weights.at(-1);
    assert.equal(rangeStart(last), from, 'the next try asked for the same rest');
    assert.deepEqual([last.status, last.sent], [206, SIZE - from]);
    assert.deepEqual(errors, []);
  });
});

test('Stop the download keeps what came: the next translation asks for the rest only', () => withCutPage(8164, (n) => (n === 0 ? 'trickle' : 'pass'), async ({ page, errors, weights, url }) => {
  await page.goto(`${url}#translate?text=${encodeURIComponent(SOURCE)}`);
  // A part has come (the share counts it) when the download is stopped.
  await page.waitForFunction(() => /^[1-9]\d* %$/.test(document.querySelector('[data-testid=tr-progress-share]')?.textContent ?? ''), null, { timeout: 120000 });
  await page.click('[data-testid=tr-download-stop]');
  await page.locator('[data-testid=tr-progress]').waitFor({ state: 'detached', timeout: 10000 });
  assert.match(await page.locator('[data-testid=tr-status]').textContent(), /^The model's download was stopped/);
  // The request itself ends after the worker's grace period for a job that claims it again.
  for (let i = 0; i < 100 && weights[0].closed === undefined; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(weights[0].closed, true, 'the browser hung up');
  const { sent, length } = weights[0];
  assert.ok(sent > 0 && sent < length, `${sent} of ${length} bytes sent before the stop`);
  // Every share the bar shows from here on (it showed 0 % until the rest began to come).
  await page.evaluate(() => {
    window.shares = [];
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid=tr-progress-share]')?.textContent;
      if (t !== undefined && window.shares.at(-1) !== t) window.shares.push(t);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await page.focus('[data-testid=tr-input]');
  await page.keyboard.press('Control+Enter');
  await untilTranslated(page, 300000);
  const shares = await page.evaluate(() => window.shares);
  assert.ok(shares.length > 0 && !shares.includes('0 %'), `the bar went on from the kept part: ${shares.join(', ')}`);
  assert.equal(await output(page), native());
  assert.equal(weights.length, 2, JSON.stringify(weights));
  const from = rangeStart(weights[1]);
  assert.ok(from > 0, `the second request asked from byte ${from}`);
  assert.deepEqual([weights[1].status, weights[1].sent], [206, SIZE - from]);
  assert.deepEqual(errors, []);
}));

test('a resumed download is kept for offline use without a third download, and translates with the server gone', () => withCutPage(8166, (n) => (n === 0 ? 'cut' : 'pass'), async ({ page, errors, weights, url, server }) => {
  // The service worker in control first (it makes the cache the page then puts the file in).
  await page.goto(`${url}#translate`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
  await page.fill('[data-testid=tr-input]', SOURCE);
  await untilTranslated(page, 300000);
  const online = await output(page);
  assert.equal(online, native());
  const kept = () => page.evaluate(async (files) => {
    const hits = await Promise.all(files.map((f) => caches.match(new URL(`models/en-de/transformer/${f}`, location.href).href)));
    return hits.every(Boolean);
  }, ['config.json', 'tokenizer.json', 'model.safetensors']);
  for (let i = 0; i < 120 && !(await kept()); i++) await new Promise((r) => setTimeout(r, 500));
  assert.ok(await kept(), 'the model is kept');
  // The page asked the service worker to keep the model after it loaded: it found the file there.
  await new Promise((r) => setTimeout(r, 3000));
  assert.deepEqual(weights.map((w) => w.status), [200, 206], JSON.stringify(weights));
  const size = await page.evaluate(async () => (await (await caches.match(new URL('models/en-de/transformer/model.safetensors', location.href).href)).arrayBuffer()).byteLength);
  assert.equal(size, SIZE);
  server.stop();
  await new Promise((r) => setTimeout(r, 300));
  await page.reload();
  await untilTranslated(page, 300000);
  assert.equal(await output(page), online);
  assert.deepEqual(errors, []);
}, { serviceWorkers: 'allow' }));
