// Benchmark, not a test: bytes and requests on the wire until the first translation appears, on a
// cold cache and again on a warm one (a second visit in the same browser profile, which has a disk
// cache as a user's has; an incognito context's memory cache drops a 7 MB model). Counts what
// Playwright reports per finished request, the page's and its engine worker's (which fetches the
// model): `request.sizes()`, headers and body as sent.
//   cd tests && node bench/bytes.mjs [model]      (needs ./scripts/serve's build: dist/ and target/release/wgslate)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../browser/harness.mjs';

const model = process.argv[2] ?? 'en-de/transformer';
const server = await startServer(8190);
const profile = mkdtempSync(join(tmpdir(), 'wgslate-bytes-'));
// Service workers blocked: the service worker (www/sw.js) changes what is cached, not what crosses the wire on the first visit.
const context = await chromium.launchPersistentContext(profile, {
  serviceWorkers: 'block',
  executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
const text = 'A man is riding a bike.';

async function visit(label) {
  const page = await context.newPage();
  const urls = new Map();
  const done = new Map();
  const sizes = [];
  page.on('request', (r) => urls.set(r, r.url()));
  page.on('requestfinished', (r) => sizes.push(r.sizes().then((s) => done.set(r, s.responseHeadersSize + s.responseBodySize))));
  const t0 = Date.now();
  await page.goto(`${server.url}#translate?model=${encodeURIComponent(model)}&text=${encodeURIComponent(text)}`);
  await page.waitForFunction(() => / in \d+ ms/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 300000 });
  const seconds = (Date.now() - t0) / 1000;
  const output = (await page.locator('[data-testid=tr-output]').innerText()).trim();
  await Promise.all(sizes);
  let total = 0;
  const rows = [];
  for (const [id, url] of urls) {
    const bytes = done.get(id) ?? 0;
    total += bytes;
    rows.push([bytes, url.replace(server.url, '/')]);
  }
  rows.sort((a, b) => b[0] - a[0]);
  console.log(`${label}: ${(total / 1e6).toFixed(2)} MB in ${urls.size} requests, first translation after ${seconds.toFixed(1)} s: ${output}`);
  for (const [bytes, url] of rows.slice(0, 6)) console.log(`  ${String(bytes).padStart(10)}  ${url}`);
  await page.close();
}

try {
  await visit('cold');
  await visit('warm');
} finally {
  await context.close();
  server.stop();
  rmSync(profile, { recursive: true, force: true });
}
