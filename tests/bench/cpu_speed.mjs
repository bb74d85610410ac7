// Benchmark, not a test: the CPU engine in the browser (WebAssembly, in the engine workers) against
// the same candle CPU reference natively on one thread, on the first N test2016 sentences, greedy,
// batches of 16 sorted by length on both sides (the page's Evaluate; `wgslate eval --batch 16`).
// The page runs once with one engine worker (the browser made to report one core) and once with
// the workers it starts for the cores it sees.
//   cd tests && node bench/cpu_speed.mjs [model] [N]     (needs ./scripts/serve's build)
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { startServer, root } from '../browser/harness.mjs';

const model = process.argv[2] ?? 'en-de/transformer';
const n = Number(process.argv[3] ?? 200);
const lines = (f) => readFileSync(join(root, 'www', 'data', f), 'utf8').split('\n').slice(0, n);
const dir = mkdtempSync(join(tmpdir(), 'wgslate-cpu-'));
writeFileSync(join(dir, 'src'), lines('test_2016_flickr.en').join('\n') + '\n');
writeFileSync(join(dir, 'ref'), lines('test_2016_flickr.de').join('\n') + '\n');

const t0 = Date.now();
const native = execFileSync(join(root, 'target', 'release', 'wgslate'), [
  'eval', '--model', join(root, 'www', 'models', model), '--src', join(dir, 'src'), '--ref', join(dir, 'ref'), '--backend', 'cpu', '--batch', '16',
], { env: { ...process.env, RAYON_NUM_THREADS: '1' } }).toString();
const nativeSeconds = (Date.now() - t0) / 1000;

const server = await startServer(8192);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
async function evaluate(oneCore) {
  const page = await browser.newPage({ serviceWorkers: 'block' });
  if (oneCore) await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 1 }));
  await page.goto(`${server.url}#translate?backend=cpu&model=${encodeURIComponent(model)}&text=${encodeURIComponent('A dog.')}`);
  // The model is loaded (by the first translation) before the clock starts; the helper workers
  // start, and load it, on the clock.
  await page.waitForFunction(() => / in \d+ ms/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 300000 });
  await page.fill('[data-testid=eval-count]', String(n));
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  const t1 = Date.now();
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 1200000 });
  const seconds = (Date.now() - t1) / 1000;
  const bleu = await page.locator('[data-testid=eval-bleu]').textContent();
  const backend = await page.locator('[data-testid=tr-backend]').textContent();
  await page.close();
  return { seconds, bleu, backend };
}
try {
  console.log(`native, 1 thread: ${(n / nativeSeconds).toFixed(1)} sentences/s (${nativeSeconds.toFixed(1)} s, process start and model load included): ${native.trim().split('\n')[0]}`);
  for (const oneCore of [true, false]) {
    const { seconds, bleu, backend } = await evaluate(oneCore);
    console.log(`browser, ${backend}: ${(n / seconds).toFixed(1)} sentences/s (${seconds.toFixed(1)} s): BLEU ${bleu}; browser / native time ${(seconds / nativeSeconds).toFixed(2)}×`);
  }
} finally {
  await browser.close();
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
