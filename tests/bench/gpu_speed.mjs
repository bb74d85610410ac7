// Benchmark, not a test: the page's "Measure this device" in headless Chromium on WebGPU
// (SwiftShader here; a real GPU where the browser has one), printed as JSON: ms per token at batch 1
// (greedy, beam 4) on the GPU and CPU engines, the first token's latency, sentences per second
// batched, the GPU engine's set-up, dispatches / submissions / readbacks per token, the tokens'
// agreement with the CPU engine; then the memory benchmark (N translations of varied length and
// beam 1–16: the engine worker's wasm memory and GPU scratch memory as it goes).
//   cd tests && node bench/gpu_speed.mjs [model] [memory translations, 0 for none] [gpu|cpu]   (needs ./scripts/serve's build)
//   The memory run defaults to 1000 translations: seconds on a hardware GPU, hours on SwiftShader
//   (several seconds a translation at beam 16): give a smaller count there.
//   WGSLATE_BROWSER=/path/to/chrome with flags for a hardware adapter: see docs/benchmarks.md.
import { chromium } from 'playwright-core';
import { startServer, launch, untilTranslated } from '../browser/harness.mjs';

const model = process.argv[2] ?? 'en-de/transformer';
const translations = Number(process.argv[3] ?? 1000);
// gpu, or cpu for the CPU engine's figures alone (the memory run then samples wasm memory only).
const backend = process.argv[4] ?? 'gpu';

// WGSLATE_PORT for a second run beside one already going.
const server = await startServer(Number(process.env.WGSLATE_PORT ?? 8194));
const browser = process.env.WGSLATE_BROWSER
  ? await chromium.launch({ executablePath: process.env.WGSLATE_BROWSER, headless: true, args: ['--enable-unsafe-webgpu'] })
  : await launch();
try {
  const page = await browser.newPage({ serviceWorkers: 'block' });
  page.on('console', (m) => { if (m.type() === 'error') console.error(`page: ${m.text()}`); });
  await page.goto(`${server.url}#translate?backend=${backend}&model=${encodeURIComponent(model)}&text=${encodeURIComponent('A dog.')}`);
  await untilTranslated(page, 600000);
  await page.click('[data-testid=measure] > summary');
  await page.click('[data-testid=measure-run]');
  const json = page.locator('[data-testid=measure-json]');
  const failed = page.locator('[data-testid=measure-error]');
  // The run is over when the status line is empty again.
  const over = () => page.waitForFunction(() => !document.querySelector('[data-testid=measure-status]')?.textContent);
  await json.or(failed).first().waitFor({ state: 'attached', timeout: 3600000 });
  await over();
  if (await json.count()) {
    const speed = JSON.parse(await json.textContent());
    console.log(JSON.stringify({ measured: new Date().toISOString(), speed }, null, 2));
  }
  if (translations > 0 && !(await failed.count())) {
    await page.fill('[data-testid=measure-count]', String(translations));
    const t0 = Date.now();
    await page.click('[data-testid=measure-memory]');
    const mem = page.locator('[data-testid=measure-memory-json]');
    // Hours on SwiftShader: say how far it is every minute (the page's status line), and wait as long as
    // it takes for the samples (a failure part way shows both; one before the first shows the error alone).
    const progress = setInterval(async () => {
      const status = await page.locator('[data-testid=measure-status]').textContent().catch(() => '');
      if (status) console.error(`${new Date().toISOString()} ${status}`);
    }, 60000);
    await mem.or(failed).first().waitFor({ state: 'attached', timeout: 0 }).finally(() => clearInterval(progress));
    await over();
    const points = (await mem.count()) ? JSON.parse(await mem.textContent()) : [];
    const cut = page.locator('[data-testid=measure-memory-stopped]');
    const ended_early = (await cut.count()) ? await cut.textContent() : null;
    console.log(JSON.stringify({ memory_seconds: (Date.now() - t0) / 1000, ended_early, points }, null, 2));
  }
  if (await failed.count()) {
    console.error(`measure: ${await failed.textContent()}`);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
  server.stop();
}
