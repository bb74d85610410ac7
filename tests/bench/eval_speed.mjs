// Benchmark, not a test: the page's Evaluate (the first N test sentences translated one batch at a
// time, as a user evaluates) on the WGSL engine through WebGPU (SwiftShader here), greedy and
// beam 4, in seconds. It needs only the Evaluate panel, so it times older builds as well: the
// before/after rows of docs/benchmarks.md serve each build with WGSLATE_DIST=/path/to/dist.
//   cd tests && node bench/eval_speed.mjs [model] [N]     (needs ./scripts/serve's build)
import { startServer, launch, untilTranslated } from '../browser/harness.mjs';

const model = process.argv[2] ?? 'en-de/transformer';
const n = Number(process.argv[3] ?? 20);
const server = await startServer(8195);
const browser = await launch();
async function evaluate(beam) {
  const page = await browser.newPage({ serviceWorkers: 'block' });
  await page.goto(`${server.url}#translate?backend=gpu&beam=${beam}&model=${encodeURIComponent(model)}&text=${encodeURIComponent('A dog.')}`);
  await untilTranslated(page, 600000);
  await page.fill('[data-testid=eval-count]', String(n));
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  const t0 = Date.now();
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 3600000 });
  const seconds = (Date.now() - t0) / 1000;
  const bleu = (await page.locator('[data-testid=eval-bleu]').textContent()).trim();
  const backend = (await page.locator('[data-testid=tr-backend]').textContent()).trim();
  await page.close();
  return { beam, seconds, bleu, backend };
}
try {
  for (const beam of [1, 4]) {
    const r = await evaluate(beam);
    console.log(`${model}, ${n} sentences, beam ${beam}: ${r.seconds.toFixed(1)} s (${(1000 * r.seconds / n).toFixed(0)} ms a sentence), BLEU ${r.bleu}; ${r.backend}`);
  }
} finally {
  await browser.close();
  server.stop();
}
