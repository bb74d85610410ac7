// Shared rig: serve the release dist/ on 127.0.0.1 with `wgslate serve`, drive /usr/bin/chromium.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const screenshots = join(root, 'target', 'screenshots');
mkdirSync(screenshots, { recursive: true });

const BASE_FLAGS = ['--no-sandbox', '--headless', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--disable-vulkan-surface'];

export async function startServer(port) {
  const bin = join(root, 'target', 'release', 'wgslate');
  // WGSLATE_DIST serves another build (a benchmark's before and after).
  const dist = process.env.WGSLATE_DIST ?? join(root, 'dist');
  const server = spawn(bin, ['serve', dist, '--port', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Listening once it says "serving …": a first line "wrote N compressed copies" comes before it binds.
  await new Promise((resolve, reject) => {
    let said = '';
    server.on('error', reject);
    server.on('exit', (code) => reject(new Error(`wgslate serve exited (${code}) before serving`)));
    server.stdout.on('data', (chunk) => {
      said += chunk;
      if (/^serving /m.test(said)) resolve();
    });
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => server.kill() };
}

export async function launch({ webgpu = true } = {}) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: webgpu ? [...BASE_FLAGS, ...WEBGPU_FLAGS] : BASE_FLAGS, headless: true });
}

/// For a test file: the server on `port` and a WebGPU browser, started before its tests and stopped
/// after them. The returned rig's `browser` and `url` are set once the tests run.
export function useBrowser(port) {
  const rig = {};
  before(async () => {
    rig.server = await startServer(port);
    rig.url = rig.server.url;
    rig.browser = await launch();
  });
  after(async () => {
    await rig.browser?.close();
    rig.server?.stop();
  });
  return rig;
}

/// The native CLI (target/release/wgslate): its standard output for `args` and `input`.
export function wgslate(args, input = '') {
  const env = { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? '/tmp' };
  return execFileSync(join(root, 'target', 'release', 'wgslate'), args, { input, env }).toString();
}

/// A page that fails the test on any uncaught error or panic message in the console.
export async function openPage(browser, url, errors) {
  // No service worker (www/sw.js): page.route must see every request; offline.test.mjs allows it.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()} for ${r.url()}`); });
  await page.goto(url);
  return page;
}

export function golden(id) {
  const all = JSON.parse(readFileSync(join(root, 'crates', 'metrics', 'tests', 'data', 'sacrebleu-golden.json'), 'utf8'));
  return all.cases.find((c) => c.id === id);
}

/// Sets the BLEU view's hypothesis and first reference fields as a user pastes them: one field at
/// a time, each its own task (once the app mounted).
export async function fillBleuFields(page, hyp, ref) {
  await page.locator('[data-testid=bleu-ref-0]').waitFor();
  for (const [id, text] of [['bleu-hyp', hyp], ['bleu-ref-0', ref]]) {
    await page.evaluate(([id, text]) => {
      const el = document.querySelector(`[data-testid=${id}]`);
      el.value = text;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, [id, text]);
  }
}

// The Translate status once its translation is done: "2 sentences in 40 ms" (or "in 2.4 s", "in under 1 ms").
export const FINISHED = String.raw` in (\d+ ms|\d+\.\d s|under 1 ms)`;

export function untilTranslated(page, timeout) {
  return page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), FINISHED, { timeout });
}

// Holds the requests `page` makes for `pattern` until the function returned is called: a download
// stays under way for as long as a test needs.
export async function holdRequests(page, pattern) {
  let release;
  const released = new Promise((r) => { release = r; });
  await page.route(pattern, async (route) => {
    await released;
    await route.continue().catch(() => {});
  });
  return release;
}
