import { chromium } from 'playwright-core';
const BASE = ['--no-sandbox', '--headless', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const GPU = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--disable-vulkan-surface'];
export const URL0 = 'http://127.0.0.1:8177/';
export async function launch(webgpu = true) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: webgpu ? [...BASE, ...GPU] : BASE, headless: true });
}
export async function open(browser, hash = '', { width = 1280, height = 900 } = {}) {
  const ctx = await browser.newContext({ viewport: { width, height }, serviceWorkers: 'block' });
  const page = await ctx.newPage();
  const log = [];
  page.log = log;
  page.on('pageerror', (e) => log.push('PAGEERROR ' + String(e)));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log.push('CONSOLE.' + m.type() + ' ' + m.text().slice(0, 400)); });
  page.on('response', (r) => { if (r.status() >= 400) log.push(`HTTP ${r.status()} ${r.url()}`); });
  page.on('crash', () => log.push('PAGE CRASH'));
  await page.addInitScript(() => {
    window.__long = [];
    try { new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(Math.round(e.duration)); }).observe({ entryTypes: ['longtask'] }); } catch (e) {}
  });
  await page.goto(URL0 + hash);
  return page;
}
export async function longs(page) { return (await page.evaluate(() => window.__long).catch(() => [])).filter((d) => d > 200); }
export async function report(page, label) {
  const l = await longs(page);
  console.log(`--- ${label}: longtasks>200ms ${JSON.stringify(l)}; log: ${JSON.stringify(page.log)}`);
  page.log.length = 0;
  await page.evaluate(() => { window.__long = []; }).catch(() => {});
}
export const tid = (page, id) => page.locator(`[data-testid=${id}]`);
export async function txt(page, id) { return page.locator(`[data-testid=${id}]`).first().innerText({ timeout: 2000 }).catch(() => '<none>'); }
export async function setVal(page, id, text) {
  await page.evaluate(([id, text]) => { const el = document.querySelector(`[data-testid=${id}]`); el.value = text; el.dispatchEvent(new Event('input', { bubbles: true })); }, [id, text]);
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export async function waitIdle(page, ms = 60000) {
  // wait until tr-output not aria-busy and status not mentioning translating
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    const busy = await page.evaluate(() => { const o = document.querySelector('[data-testid=tr-output]'); return o ? o.getAttribute('aria-busy') : 'none'; }).catch(() => 'x');
    const st = await txt(page, 'tr-status');
    if (busy !== 'true' && !/…|ranslating|oading|Downloading/.test(st)) return Date.now() - t0;
    await sleep(500);
  }
  return -1;
}
