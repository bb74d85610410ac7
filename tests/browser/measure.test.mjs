// "Measure this device" (below Settings): the model timed on the GPU engine (WebGPU on SwiftShader
// here) and on the CPU engine, its tokens compared, what a token asks of the GPU counted; without
// a GPU engine the CPU's figures alone, said so; the memory benchmark's table, its count checked, and
// its samples shown as they come and kept by a Stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, untilTranslated } from './harness.mjs';

const rig = useBrowser(8176);

async function open(query) {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + `#translate?${query}&text=${encodeURIComponent('A dog.')}`, errors);
  await untilTranslated(page, 300000);
  await page.click('[data-testid=measure] > summary');
  return { page, errors };
}

async function measured(page) {
  await page.click('[data-testid=measure-run]');
  const json = page.locator('[data-testid=measure-json]');
  await json.waitFor({ state: 'attached', timeout: 900000 });
  return JSON.parse(await json.textContent());
}

test('on WebGPU it times both engines, counts what a token asks of the GPU, and finds the same tokens', async () => {
  const { page, errors } = await open('backend=gpu&model=en-de%2Ftransformer');
  const s = await measured(page);
  assert.match(s.backend, /^GPU \(WebGPU: /);
  assert.equal(s.sentences, 8);
  const g = s.gpu;
  assert.ok(g, 'a GPU part');
  for (const v of [g.setup_ms, g.first_token_ms, g.greedy_ms_per_token, g.beam4_ms_per_token, g.sentences_per_second_batched, s.cpu_greedy_ms_per_token]) {
    assert.ok(Number.isFinite(v) && v > 0, `a positive figure: ${v}`);
  }
  assert.equal(g.greedy_equal, 8, 'greedy tokens equal the CPU engine\'s');
  assert.equal(g.beam4_equal, 8, 'beam-4 tokens equal the CPU engine\'s');
  assert.ok(g.greedy_cost.dispatches <= 24, `greedy: ${g.greedy_cost.dispatches} dispatches a token`);
  assert.ok(g.beam4_cost.dispatches <= 28, `beam 4: ${g.beam4_cost.dispatches} dispatches a token`);
  assert.ok(g.beam4_cost.submissions <= 0.5 && g.beam4_cost.readbacks <= 0.5, `beam 4: ${JSON.stringify(g.beam4_cost)}`);
  const table = await page.locator('[data-testid=measure-table]').innerText();
  assert.match(table, /greedy 8 of 8 sentences, beam 4 8 of 8/);
  assert.match(table, /dispatches, \d\.\d\d submissions, \d\.\d\d readbacks/);
  assert.deepEqual(errors, []);
});

test('without a GPU engine it gives the CPU engine\'s figures and says there is none', async () => {
  const { page, errors } = await open('backend=cpu&model=en-de%2Fgru');
  const s = await measured(page);
  assert.match(s.backend, /^CPU \(/);
  assert.equal(s.gpu, null);
  assert.ok(s.cpu_greedy_ms_per_token > 0 && s.cpu_beam4_ms_per_token > 0);
  assert.match(await page.locator('[data-testid=measure-table]').innerText(), /no GPU engine for this model here/);
  assert.deepEqual(errors, []);
});

test('the memory benchmark checks its count and samples the first and last translation', async () => {
  const { page, errors } = await open('backend=gpu&model=en-de%2Fgru');
  for (const bad of ['abc', '0', '1001', '2.5']) {
    await page.fill('[data-testid=measure-count]', bad);
    await page.click('[data-testid=measure-memory]');
    assert.match(await page.locator('[data-testid=measure-error]').textContent(), /whole number from 1 to 1000/, bad);
  }
  await page.fill('[data-testid=measure-count]', '7');
  await page.click('[data-testid=measure-memory]');
  const json = page.locator('[data-testid=measure-memory-json]');
  await json.waitFor({ state: 'attached', timeout: 900000 });
  const points = JSON.parse(await json.textContent());
  assert.deepEqual(points.map((p) => p.translations), [1, 7]);
  assert.ok(points.every((p) => p.wasm_bytes > 0 && p.gpu_scratch_bytes > 0), JSON.stringify(points));
  assert.equal(await page.locator('[data-testid=measure-error]').count(), 0, 'the error went with a good count');
  assert.match(await page.locator('[data-testid=measure-memory-table]').innerText(), /GPU scratch buffers/);
  assert.deepEqual(errors, []);
});

test('the memory benchmark shows its samples as it goes, and a Stop keeps them', async () => {
  const { page, errors } = await open('backend=cpu&model=en-de%2Fgru');
  await page.fill('[data-testid=measure-count]', '1000');
  await page.click('[data-testid=measure-memory]');
  const rows = page.locator('[data-testid=measure-memory-table] tbody tr');
  await rows.nth(1).waitFor({ timeout: 600000 });
  assert.match(await page.locator('[data-testid=measure-status]').textContent(), /Measuring memory: \d+ of 1000 translations/);
  assert.equal(await page.locator('[data-testid=measure-memory-json]').count(), 0, 'no JSON while it runs');
  await page.click('[data-testid=measure-stop]');
  const json = page.locator('[data-testid=measure-memory-json]');
  await json.waitFor({ state: 'attached', timeout: 60000 });
  const points = JSON.parse(await json.textContent());
  const counts = points.map((p) => p.translations);
  assert.deepEqual(counts.slice(0, 2), [1, 50], JSON.stringify(counts));
  assert.ok(counts.at(-1) < 1000 && counts.every((n, i) => i < 2 || n === counts[i - 1] + 50), JSON.stringify(counts));
  assert.ok(points.every((p) => p.wasm_bytes > 0 && p.gpu_scratch_bytes === null), JSON.stringify(points));
  const stopped = await page.locator('[data-testid=measure-memory-stopped]').textContent();
  assert.match(stopped, new RegExp(`Stopped after ${counts.at(-1)} of 1000 translations`));
  assert.equal(await rows.count(), points.length, 'the table keeps every sample');
  assert.equal(await page.locator('[data-testid=measure-status]').textContent(), '');
  assert.deepEqual(errors, []);
});
