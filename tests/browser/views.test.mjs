// Compare and Attention views.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useBrowser, openPage, root, screenshots, wgslate, untilTranslated, holdRequests } from './harness.mjs';

const rig = useBrowser(8133);

const all = readFileSync(join(root, 'www', 'data', 'test_2016_flickr.en'), 'utf8').split('\n').slice(0, 300);
// The shortest sentence: WebGPU in the test browser is SwiftShader, a CPU emulation.
const src = all.reduce((a, b) => (b.split(' ').length < a.split(' ').length ? b : a));
const native = (model, extra) => wgslate(['translate', '--model', join(root, 'www', 'models', model), ...extra], src + '\n').trim();

test('Compare shows greedy, k beam entries and a sample', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + `#translate?beam=4&text=${encodeURIComponent(src)}`, errors);
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  await page.locator('[data-testid=cmp-beam-3]').waitFor({ timeout: 400000 });
  // A screen reader hears that the results arrived (a status region that was there before them).
  assert.equal(await page.locator('[data-testid=cmp-status]').getAttribute('role'), 'status');
  assert.equal(await page.locator('[data-testid=cmp-status]').textContent(), 'Greedy, beam and sampling results are shown below.');
  assert.equal(await page.locator('[data-testid^=cmp-beam-]').count(), 4);
  assert.equal((await page.locator('[data-testid=cmp-greedy]').innerText()).trim(), native('en-de/transformer', []));
  const best = (await page.locator('[data-testid=cmp-beam-0] .text').innerText()).trim();
  assert.equal(best, native('en-de/transformer', ['--beam', '4']));
  assert.ok((await page.locator('[data-testid=cmp-sample]').innerText()).trim().length > 0);
  await page.screenshot({ path: join(screenshots, 'compare.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('Compare gives each search the time the worker took, even when the page reads its news late', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + `#translate?text=${encodeURIComponent(src)}`, errors);
  // The model is loaded once the Translate view shows its translation.
  await untilTranslated(page, 400000);
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  // The page thread is busy (a long layout, a slow phone) while the worker loads and searches:
  // the news that the model is ready and the greedy result are read together.
  await page.evaluate(() => { const end = performance.now() + 6000; while (performance.now() < end); });
  await page.locator('[data-testid=cmp-time-sample]').waitFor({ timeout: 400000 });
  // Greedy ran during the block (beam and sample after it): its time is the search's, not the block's.
  const [, under, ms, s] = (await page.locator('[data-testid=cmp-time-greedy]').innerText()).match(/^(?:(under 1 ms)|(\d+) ms|([\d.]+) s)/);
  const took = under ? 0.5 : ms ? Number(ms) : 1000 * Number(s);
  assert.ok(took < 6000, `greedy: ${took} ms`);
  assert.deepEqual(errors, []);
});

// The cells as exported (SVG, a rect per cell with its weight); the drawn canvas is checked
// against them: each cell's centre pixel has the colour its weight gives.
async function heatmap(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=att-export-svg]')]);
  assert.equal(download.suggestedFilename(), 'attention.svg');
  const svg = readFileSync(await download.path(), 'utf8');
  assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const cells = [...svg.matchAll(/<rect data-row="(\d+)" data-col="(\d+)" data-weight="([^"]+)" x="([^"]+)" y="([^"]+)"/g)].map((m) => [+m[1], +m[2], +m[3], +m[4], +m[5]]);
  const rows = new Set(cells.map((c) => c[0])).size;
  const cols = new Set(cells.map((c) => c[1])).size;
  const sums = Array.from({ length: rows }, (_, r) => cells.filter((c) => c[0] === r).reduce((a, c) => a + c[2], 0));
  const off = await page.evaluate((cells) => {
    const canvas = document.querySelector('[data-testid=att-heatmap]');
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const ctx = canvas.getContext('2d');
    return cells.filter(([, , w, left, top]) => {
      const [x, y] = [(left + 12) * scale, (top + 12) * scale].map(Math.floor);
      const [red, green, blue] = ctx.getImageData(x, y, 1, 1).data;
      const shade = 255 * (1 - Math.min(1, Math.max(0, w)));
      return Math.abs(red - shade) > 2 || Math.abs(green - shade) > 2 || blue < 253;
    });
  }, cells);
  assert.deepEqual(off, [], 'cells drawn in a colour other than their weight\'s');
  return { count: cells.length, rows, cols, sums, cells, svg };
}

for (const model of ['en-de/transformer', 'en-de/gru']) {
  test(`${model}: the attention heatmap has |target| × |source| cells and rows that sum to 1`, async () => {
    const errors = [];
    const page = await openPage(rig.browser, rig.url + `#translate?model=${encodeURIComponent(model)}&text=${encodeURIComponent(src)}`, errors);
    await page.click('[data-testid=nav-attention]');
    await page.click('[data-testid=att-run]');
    await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
    const out = native(model, []);
    let h = await heatmap(page);
    assert.equal(h.count, h.rows * h.cols);
    assert.ok(h.rows >= 2 && h.cols >= 2, JSON.stringify(h));
    for (const s of h.sums) assert.ok(Math.abs(s - 1) < 1e-3, `row sums ${h.sums}`);
    assert.ok(out.length > 0);
    // The GRU's one attention has no layer or head to choose.
    const choices = model.endsWith('gru') ? 0 : 1;
    assert.equal(await page.locator('[data-testid=att-layer]').count(), choices);
    assert.equal(await page.locator('[data-testid=att-head]').count(), choices);
    if (model.endsWith('transformer')) {
      await page.selectOption('[data-testid=att-layer]', '1');
      await page.selectOption('[data-testid=att-head]', '2');
      h = await heatmap(page);
      for (const s of h.sums) assert.ok(Math.abs(s - 1) < 1e-3);
      await page.selectOption('[data-testid=att-kind]', 'self');
      const self = await heatmap(page);
      assert.equal(self.rows, self.cols, 'encoder self-attention is source × source');
      await page.selectOption('[data-testid=att-kind]', 'dec');
      const dec = (await heatmap(page)).cells;
      const decRows = new Set(dec.map((c) => c[0])).size;
      assert.equal(decRows, h.rows, 'decoder self-attention has a row per output token');
      assert.equal(dec.length, decRows * decRows, 'over BOS and the output before EOS');
      for (const [r, c, w] of dec) if (c > r) assert.equal(w, 0, `row ${r} attends to the later input ${c}`);
      await page.selectOption('[data-testid=att-kind]', 'cross');
      await page.screenshot({ path: join(screenshots, 'attention.png'), fullPage: true });
      // Hovering a cell names its row and column tokens and its weight.
      const box = await page.locator('[data-testid=att-heatmap]').boundingBox();
      await page.mouse.move(box.x + 110 + 26 + 5, box.y + 110 + 5);
      const [, , w01] = h.cells.find(([r, c]) => r === 0 && c === 1);
      const readout = () => page.locator('[data-testid=att-readout]').textContent();
      await page.waitForFunction(() => /: [\d.]+$/.test(document.querySelector('[data-testid=att-readout]').textContent));
      assert.ok(Math.abs(Number((await readout()).split(': ').pop()) - w01) < 0.0015, await readout());
      // The arrow keys walk the cells of the focused map: from no cell, the first key marks the first
      // cell, then right and down.
      await page.mouse.move(box.x + 2, box.y + 2);
      await page.focus('[data-testid=att-heatmap]');
      for (const key of ['ArrowDown', 'ArrowRight', 'ArrowDown']) await page.keyboard.press(key);
      const [, , w11] = h.cells.find(([r, c]) => r === 1 && c === 1);
      assert.ok(Math.abs(Number((await readout()).split(': ').pop()) - w11) < 0.0015, await readout());
      const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=att-export-png]')]);
      assert.equal(pngDownload.suggestedFilename(), 'attention.png');
      const png = readFileSync(await pngDownload.path());
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      assert.ok(png.length > 1000, `PNG of ${png.length} bytes`);
    }
    assert.deepEqual(errors, []);
  });
}

test('Compare names its model and marks its results stale when the Translate view moves on', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&text=${encodeURIComponent(src)}`, errors);
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  await page.locator('[data-testid=cmp-beam-0]').waitFor({ timeout: 120000 });
  assert.equal(await page.locator('[data-testid=cmp-model]').textContent(), ' · Transformer (distilled)');
  assert.equal(await page.locator('[data-testid=cmp-stale]').count(), 0);
  // A beam of 2 still runs as 4 here, and each column sets its own search: nothing to redo.
  await page.click('[data-testid=nav-translate]');
  await page.fill('[data-testid=tr-beam]', '2');
  await page.locator('[data-testid=tr-beam]').blur();
  await page.check('[data-testid=tr-sample]');
  await page.click('[data-testid=nav-compare]');
  assert.equal(await page.locator('[data-testid=cmp-stale]').count(), 0);
  // Another model, or another first sentence, makes the results out of date until Compare runs again.
  await page.click('[data-testid=nav-translate]');
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await page.click('[data-testid=nav-compare]');
  await page.locator('[data-testid=cmp-stale]').waitFor();
  assert.equal(await page.locator('.compare .columns.stale').count(), 1);
  await page.click('[data-testid=cmp-run]');
  await page.locator('[data-testid=cmp-stale]').waitFor({ state: 'detached', timeout: 120000 });
  assert.equal(await page.locator('[data-testid=cmp-model]').textContent(), ' · GRU + attention');
  await page.click('[data-testid=nav-translate]');
  await page.fill('[data-testid=tr-input]', 'A girl plays with a ball.');
  await page.click('[data-testid=nav-compare]');
  await page.locator('[data-testid=cmp-stale]').waitFor();
  // Run with no sentence at all: the message, not the old columns under it (as Attention drops its map).
  await page.click('[data-testid=nav-translate]');
  await page.fill('[data-testid=tr-input]', '');
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  assert.equal(await page.locator('[data-testid=cmp-error]').textContent(), 'Type a sentence in the Translate view first.');
  assert.equal(await page.locator('[data-testid^=cmp-beam-]').count(), 0);
  assert.equal(await page.locator('[data-testid=cmp-stale]').count(), 0);
  assert.deepEqual(errors, []);
});

test('the model status names the model chosen now, not one an older Compare run was still loading', async () => {
  const errors = [];
  const page = await rig.browser.newPage({ serviceWorkers: 'block' });
  page.on('pageerror', (e) => errors.push(String(e)));
  // The GRU's weights wait for the test, so its load ends after the Transformer is chosen again.
  const release = await holdRequests(page, '**/models/en-de/gru/model.safetensors');
  const finished = (model) => page.waitForFunction((m) => document.querySelector('[data-testid=tr-output]')?.dataset.model === m
    && / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), model, { timeout: 120000 });
  await page.goto(rig.url + `#translate?backend=cpu&text=${encodeURIComponent(src)}`);
  await finished('en-de/transformer');
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  await page.click('[data-testid=nav-translate]');
  await page.selectOption('[data-testid=tr-model]', 'en-de/transformer');
  await finished('en-de/transformer');
  const status = page.locator('[data-testid=tr-model-status]');
  assert.equal(await status.textContent(), 'en-de/transformer loaded: weights int8, one scale per row');
  // The Compare run goes on and loads the GRU (its results name it); the status still names the Transformer.
  release();
  await page.click('[data-testid=nav-compare]');
  await page.waitForFunction(() => document.querySelector('[data-testid=cmp-model]')?.textContent === ' · GRU + attention', null, { timeout: 120000 });
  await page.click('[data-testid=nav-translate]');
  assert.equal(await status.textContent(), 'en-de/transformer loaded: weights int8, one scale per row');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Attention draws the output the Translate view shows: a reranked beam (Best quality) is reranked there too', async () => {
  const errors = [];
  // A val sentence whose plain beam-4 translation drops the life jacket and whose reranked one keeps it.
  const sentence = 'A balding man wearing a red life jacket is sitting in a small boat.';
  const run = (extra) => wgslate(['translate', '--model', join(root, 'www', 'models', 'en-de', 'transformer'), '--backend', 'cpu', '--beam', '4', ...extra], sentence + '\n').trim();
  const reranked = run(['--rerank', join(root, 'www', 'models', 'de-en', 'transformer')]);
  assert.ok(reranked.includes('Schwimmweste') && !run([]).includes('Schwimmweste'), reranked);
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&beam=4&rerank=true&text=${encodeURIComponent(sentence)}`, errors);
  await page.click('[data-testid=nav-attention]');
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 300000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=att-export-svg]')]);
  const svg = readFileSync(await download.path(), 'utf8');
  // The rows' labels are the output tokens (text-anchor="end"), then </s>.
  const rows = [...svg.matchAll(/<text x="[^"]*" y="[^"]*" text-anchor="end">([^<]*)<\/text>/g)].map((m) => m[1]);
  assert.ok(rows.join('').replaceAll('▁', '').includes('Schwimmweste'), rows.join(' '));
  assert.deepEqual(errors, []);
});

test('a long input is drawn as at most 64 × 64 blocks whose rows still sum to 1', async () => {
  const errors = [];
  // 100 words: about 100 source subwords and a long output; long words make long block labels.
  const long = Array(11).fill('a photographer with a bicycle stands near the construction site').join(' and ');
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&text=${encodeURIComponent(long)}`, errors);
  await page.click('[data-testid=nav-attention]');
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
  await page.locator('[data-testid=att-pooled]').waitFor();
  assert.match(await page.locator('[data-testid=att-pooled]').textContent(), /each cell is a block of up to \d+ × [2-4],/);
  const h = await heatmap(page);
  assert.ok(h.rows <= 64 && h.cols <= 64 && h.cols >= 26, JSON.stringify({ rows: h.rows, cols: h.cols }));
  assert.equal(h.count, h.rows * h.cols);
  for (const s of h.sums) assert.ok(Math.abs(s - 1) < 1e-3, `row sums ${h.sums}`);
  // The blocks' labels ("first…last (i–j)") fit the map, as the browser's font measures them: row
  // labels end at x (text-anchor end), column labels lean at 60° from (x, y).
  const unescape = (t) => t.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  const width = Number(h.svg.match(/^<svg[^>]* width="([^"]+)"/)[1]);
  const rowLabels = [...h.svg.matchAll(/<text x="([^"]*)" y="[^"]*" text-anchor="end">([^<]*)<\/text>/g)].map((m) => [+m[1], 0, unescape(m[2])]);
  const colLabels = [...h.svg.matchAll(/<text transform="translate\(([^,]+), ([^)]+)\) rotate\(-60\)">([^<]*)<\/text>/g)].map((m) => [+m[1], +m[2], unescape(m[3])]);
  assert.ok(colLabels.some(([, , t]) => t.includes('…')), colLabels.map((l) => l[2]).join(' '));
  const clipped = await page.evaluate(({ rowLabels, colLabels, width }) => {
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = '11px sans-serif';
    const w = (t) => ctx.measureText(t).width;
    return [
      ...rowLabels.filter(([end, , t]) => end - w(t) < 0).map(([, , t]) => `row ${t}`),
      ...colLabels.filter(([x, y, t]) => y - 0.87 * w(t) < 0 || x + 0.5 * w(t) > width).map(([, , t]) => `column ${t}`),
    ];
  }, { rowLabels, colLabels, width });
  assert.deepEqual(clipped, [], 'labels cut at the edge');
  assert.deepEqual(errors, []);
});

test('Attention marks its map stale when the Translate view moves on, and drops it when a request fails', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&text=${encodeURIComponent(src)}`, errors);
  await page.click('[data-testid=nav-attention]');
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
  assert.equal(await page.locator('[data-testid=att-stale]').count(), 0);
  // Another sentence: the map stays, marked as drawn for the old one.
  await page.click('[data-testid=nav-translate]');
  await page.fill('[data-testid=tr-input]', 'Two dogs run through the snow.');
  await page.click('[data-testid=nav-attention]');
  await page.locator('[data-testid=att-stale]').waitFor();
  assert.equal(await page.locator('.heatmap.stale [data-testid=att-heatmap]').count(), 1);
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-stale]').waitFor({ state: 'detached', timeout: 120000 });
  // An ensemble has no single map: the refusal is not shown above the previous model's map.
  await page.click('[data-testid=nav-translate]');
  await page.selectOption('[data-testid=tr-model]', 'en-de/ensemble');
  await page.click('[data-testid=nav-attention]');
  await page.locator('[data-testid=att-stale]').waitFor();
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-error]').waitFor({ timeout: 120000 });
  assert.match(await page.locator('[data-testid=att-error]').textContent(), /one model at a time/);
  assert.equal(await page.locator('[data-testid=att-heatmap]').count(), 0);
  assert.equal(await page.locator('[data-testid=att-stale]').count(), 0);
  assert.deepEqual(errors, []);
});

test('the examples list waits for the test set (Suspense) and then offers its first sentences', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  // A new user learns what the models are good at before typing anything else.
  assert.match(await page.locator('[data-testid=tr-domain]').textContent(), /image captions/);
  await page.locator('details.examples summary').click();
  await page.locator('[data-testid=examples] li').first().waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid=examples] li').count(), 40);
  assert.equal(await page.locator('[data-testid=examples-loading]').count(), 0);
  assert.equal((await page.locator('[data-testid=examples] li').first().innerText()).trim(), all[0]);
  await page.locator('[data-testid=examples] li button').first().click();
  assert.equal(await page.locator('[data-testid=tr-input]').inputValue(), all[0]);
  assert.deepEqual(errors, []);
});

test('Compare and Attention say when the sentence was cut to the model\'s limit', async () => {
  const errors = [];
  // 300 words of one letter pair each: more subwords than the model takes (256).
  const long = Array.from({ length: 300 }, (_, i) => 'ab cd ef gh ij'.split(' ')[i % 5]).join(' ');
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&text=${encodeURIComponent(long)}`, errors);
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  await page.locator('[data-testid=cmp-beam-0]').waitFor({ timeout: 400000 });
  const notes = await page.locator('[data-testid=cmp-note]').allTextContents();
  assert.ok(notes.includes("Greedy, beam, sample: the sentence was cut to the model's limit of 256 subwords."), JSON.stringify(notes));
  await page.click('[data-testid=nav-attention]');
  await page.click('[data-testid=att-run]');
  assert.equal(await page.locator('[data-testid=att-status]').textContent(), 'Translating and drawing the attention maps…');
  await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
  const drawn = await page.locator('[data-testid=att-note]').allTextContents();
  assert.ok(drawn.includes("The sentence was cut to the model's limit of 256 subwords."), JSON.stringify(drawn));
  assert.equal(await page.locator('[data-testid=att-status]').textContent(), 'Attention maps drawn: 256 output × 256 source tokens.');
  assert.deepEqual(errors, []);
});

test('Stop ends a slow comparison (beam 16 on a long word, WebGPU in software) and says so', async () => {
  const errors = [];
  const word = 'Supercalifragilisticexpialidocious'.repeat(9).slice(0, 300);
  const page = await openPage(rig.browser, rig.url + `#translate?backend=gpu&beam=16&a=10&b=200&text=${word}`, errors);
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  // Each search is named as it runs; the three take minutes on SwiftShader.
  await page.waitForFunction(() => /^Comparing: (greedy|beam) search \([12] of 3\)…$/.test(document.querySelector('[data-testid=cmp-status]').textContent), null, { timeout: 60000 });
  await page.waitForTimeout(2000);
  const before = await page.locator('[data-testid=cmp-status]').textContent();
  assert.match(before, /^Comparing: /);
  await page.click('[data-testid=cmp-stop]');
  await page.waitForFunction(() => document.querySelector('[data-testid=cmp-status]').textContent === 'Stopped.', null, { timeout: 60000 });
  assert.equal(await page.locator('[data-testid^=cmp-beam-]').count(), 0, 'no results from the stopped run');
  assert.equal(await page.locator('[data-testid=cmp-run]').isEnabled(), true);
  assert.equal(await page.locator('[data-testid=cmp-stop]').count(), 0);
  assert.equal(await page.locator('[data-testid=cmp-error]').count(), 0);
  assert.deepEqual(errors, []);
});
