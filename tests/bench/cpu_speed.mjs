// Benchmark, not a test: the CPU engine in the browser (WebAssembly, in the engine worker) against
// the same candle CPU reference natively on one thread, on the first N test2016 sentences, greedy,
// batches of 16 sorted by length on both sides (the page's Evaluate; `wgslate eval --batch 16`).
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
try {
  const page = await browser.newPage({ serviceWorkers: 'block' });
  await page.goto(`${server.url}#translate?backend=cpu&model=${encodeURIComponent(model)}&text=${encodeURIComponent('A dog.')}`);
  // The model is loaded (by the first translation) before the clock starts.
  await page.waitForFunction(() => / in \d+ ms/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 300000 });
  await page.fill('[data-testid=eval-count]', String(n));
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  const t1 = Date.now();
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 1200000 });
  const browserSeconds = (Date.now() - t1) / 1000;
  const bleu = await page.locator('[data-testid=eval-bleu]').textContent();
  console.log(`native, 1 thread: ${(n / nativeSeconds).toFixed(1)} sentences/s (${nativeSeconds.toFixed(1)} s, process start and model load included): ${native.trim().split('\n')[0]}`);
  console.log(`browser (wasm):   ${(n / browserSeconds).toFixed(1)} sentences/s (${browserSeconds.toFixed(1)} s): BLEU ${bleu}`);
  console.log(`browser / native time: ${(browserSeconds / nativeSeconds).toFixed(2)}×`);
} finally {
  await browser.close();
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
