// Benchmark, not a test: the page thread's long tasks (PerformanceObserver 'longtask', > 50 ms)
// during the heavy cases issue 19 reproduced, without WebGPU (the CPU engine's path):
// a beam-16 translation of a 500-character word from a shared link, the Attention view on it,
// 10 000 lines scored on the BLEU page, and TER on one 5 000-character line.
//   cd tests && node bench/longtasks.mjs      (needs ./scripts/serve's build: dist/)
import { chromium } from 'playwright-core';
import { startServer, fillBleuFields } from '../browser/harness.mjs';

const server = await startServer(8191);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
const word = 'abcdefghij'.repeat(50);

async function measure(label, hash, work) {
  const page = await browser.newPage({ serviceWorkers: 'block' });
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((list) => window.__long.push(...list.getEntries().map((e) => e.duration)))
      .observe({ type: 'longtask', buffered: true });
  });
  await page.goto(server.url + hash);
  // Long tasks while the app starts (compiling the wasm, the first render) are not the case's.
  await page.locator('nav').waitFor();
  await page.waitForTimeout(1000);
  await page.evaluate(() => { window.__long = []; });
  const t0 = Date.now();
  await work(page);
  const seconds = (Date.now() - t0) / 1000;
  await page.waitForTimeout(200);
  const long = await page.evaluate(() => window.__long);
  const max = long.length ? Math.max(...long) : 0;
  const sum = long.reduce((a, b) => a + b, 0);
  console.log(`${label.padEnd(44)} ${seconds.toFixed(1).padStart(6)} s   longest task ${max.toFixed(0).padStart(5)} ms   ${long.length} long tasks, ${sum.toFixed(0)} ms in all`);
  await page.close();
}

const statusDone = (page) => page.waitForFunction(() => / in \d+ ms/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 600000 });

async function fillBleu(page, hyp, ref) {
  await fillBleuFields(page, hyp, ref);
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-score]').waitFor({ timeout: 600000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid=bleu-progress]'), null, { timeout: 600000 });
}

try {
  await measure('Translate: beam 16, a 500-character word', `#translate?backend=cpu&beam=16&text=${word}`, statusDone);
  await measure('Attention on the same word', `#attention?backend=cpu&text=${word}`, async (page) => {
    await page.click('[data-testid=att-run]');
    await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 600000 });
  });
  const words = ['ein', 'Mann', 'mit', 'einem', 'Hund', 'läuft', 'über', 'die', 'Straße', 'und', 'lacht', '.'];
  const line = (i, shift) => Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3 + shift) % words.length]).join(' ');
  await measure('BLEU page: 10 000 lines', '#bleu', (page) => fillBleu(
    page, Array.from({ length: 10000 }, (_, i) => line(i, i % 3)).join('\n'), Array.from({ length: 10000 }, (_, i) => line(i, 0)).join('\n')));
  const long = Array.from({ length: 900 }, (_, i) => words[(i * 5) % words.length]).join(' ').slice(0, 5000);
  const other = Array.from({ length: 900 }, (_, i) => words[(i * 7) % words.length]).join(' ').slice(0, 5000);
  await measure('BLEU page: one 5 000-character line (TER)', '#bleu', (page) => fillBleu(page, long, other));
} finally {
  await browser.close();
  server.stop();
}
