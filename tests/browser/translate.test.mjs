// The Translate view: the browser's output equals the native `wgslate translate` for both models,
// settings live in the URL, and odd input keeps the page alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { networkInterfaces } from 'node:os';
import { createServer, connect } from 'node:net';
import { useBrowser, launch, openPage, root, screenshots, wgslate, untilTranslated, holdRequests } from './harness.mjs';

const rig = useBrowser(8132);

const testSources = readFileSync(join(root, 'www', 'data', 'test_2016_flickr.en'), 'utf8').split('\n');
// WebGPU in the test browser is SwiftShader (a CPU emulation): the page tests use short sentences.
const short = testSources.slice(0, 300).map((s, i) => [s.split(' ').length, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[1]);

function native(model, text, extra = []) {
  const backend = extra.includes('--backend') ? [] : ['--backend', 'cpu'];
  return wgslate(['translate', '--model', join(root, 'www', 'models', model), ...backend, ...extra], text + '\n').trimEnd();
}

async function translated(page, text) {
  await page.fill('[data-testid=tr-input]', text);
  await untilTranslated(page, 300000);
  return (await page.locator('[data-testid=tr-output]').innerText()).trim();
}

for (const model of ['en-de/transformer', 'en-de/transformer-small', 'en-de/gru']) {
  test(`${model}: the page gives the native CPU output`, async () => {
    const errors = [];
    // The test browser's WebGPU is SwiftShader, a software adapter that `auto` leaves for the CPU
    // engine: these tests ask for the GPU to check the WGSL engine in the page.
    const page = await openPage(rig.browser, rig.url + `#translate?backend=gpu&model=${encodeURIComponent(model)}`, errors);
    await page.locator(`[data-testid=tr-model] option[value="${model}"]`).waitFor({ state: 'attached' });
    assert.equal(await page.locator('[data-testid=tr-model]').inputValue(), model);
    // Five sentences on the WGSL engine (WebGPU on SwiftShader): the first two against the native
    // CPU reference, the rest against the native GPU backend; no request leaves the page once the
    // model is loaded.
    const requests = [];
    for (const [k, i] of short.slice(0, 5).entries()) {
      const src = testSources[i];
      const backend = k < 2 ? [] : ['--backend', 'gpu'];
      assert.equal(await translated(page, src), native(model, src, backend), `sentence ${i}`);
      if (k === 0) page.on('request', (r) => requests.push(r.url()));
    }
    // The label names the adapter (SwiftShader's description is empty: its vendor and architecture).
    assert.match(await page.locator('[data-testid=tr-backend]').textContent(), /^GPU \(WebGPU: \S[^)]*\)/);
    // The loader says which weights it got: the shipped models are int8.
    assert.equal(await page.locator('[data-testid=tr-model-status]').textContent(), `${model} loaded: weights int8, one scale per row`);
    assert.deepEqual(requests, [], 'network requests after the model was loaded');
    assert.equal(await page.locator('[data-testid=tr-output]').getAttribute('data-model'), model);
    await page.screenshot({ path: join(screenshots, `translate-${model.replace('/', '-')}.png`), fullPage: true });
    assert.deepEqual(errors, []);
  });
}

test('a first visit up to its first translation leaves no warning in the console', async () => {
  const errors = [];
  const warnings = [];
  const page = await rig.browser.newPage();
  page.on('console', (m) => { if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(rig.url + `#translate?text=${encodeURIComponent(testSources[short[0]])}`);
  await untilTranslated(page, 300000);
  // Chromium used to warn that it ignores the integrity attribute on the wasm preload.
  assert.deepEqual(warnings, []);
  assert.deepEqual(errors, []);
});

for (const [what, search] of [['greedy', ''], ['Best quality (the reverse model downloaded too)', '&beam=4&rerank=true']]) {
  test(`a first translation's time leaves out the models' download: ${what}`, async () => {
    const errors = [];
    const page = await rig.browser.newPage({ serviceWorkers: 'block' });
    page.on('pageerror', (e) => errors.push(String(e)));
    // The weights arrive 5 s late: a one-sentence search on the CPU engine takes a fraction of that.
    const HELD_MS = 5000;
    let held = 0;
    await page.route('**/model.safetensors', async (route) => {
      held += 1;
      await new Promise((r) => setTimeout(r, HELD_MS));
      await route.continue();
    });
    await page.goto(rig.url + `#translate?backend=cpu${search}&text=${encodeURIComponent(testSources[short[0]])}`);
    await untilTranslated(page, 300000);
    assert.equal(held, search ? 2 : 1, 'the weights went through the held route');
    const status = await page.locator('[data-testid=tr-status]').textContent();
    const [, ms, s] = status.match(/ in (?:(\d+) ms|(\d+\.\d) s|under 1 ms)/);
    assert.ok((ms ? Number(ms) : s ? Number(s) * 1000 : 0) < HELD_MS, `"${status}" counts the ${HELD_MS} ms the weights were held`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

// A page whose Transformer weights never come until the test lets them (the download stays under
// way), noting the weights' requests that were aborted.
async function heldWeightsPage() {
  const errors = [];
  const page = await rig.browser.newPage({ serviceWorkers: 'block' });
  page.on('pageerror', (e) => errors.push(String(e)));
  const release = await holdRequests(page, '**/en-de/transformer/model.safetensors');
  const aborted = [];
  page.on('requestfailed', (r) => { if (r.url().endsWith('/model.safetensors')) aborted.push(r.failure()?.errorText); });
  return { page, errors, release, aborted };
}

test('Stop the download ends a model\'s download that a translation waits for; Ctrl+Enter starts it again', async () => {
  const { page, errors, release, aborted } = await heldWeightsPage();
  const src = testSources[short[0]];
  await page.goto(rig.url + `#translate?backend=cpu&text=${encodeURIComponent(src)}`);
  await page.locator('[data-testid=tr-progress]').waitFor({ timeout: 120000 });
  // ⇄ waits for the translation, and says so (it looked broken through a whole download).
  assert.equal(await page.locator('[data-testid=tr-swap]').getAttribute('title'), 'Swap the languages: once this translation is done (it becomes the input)');
  await page.click('[data-testid=tr-download-stop]');
  await page.locator('[data-testid=tr-progress]').waitFor({ state: 'detached', timeout: 10000 });
  assert.equal(await page.locator('[data-testid=tr-status]').textContent(), "The model's download was stopped: Ctrl+Enter or a change to the text starts it again.");
  assert.equal(await page.locator('[data-testid=tr-output]').getAttribute('aria-busy'), 'false');
  // The request itself ends (after the worker's grace period for a job that claims it again).
  for (let i = 0; i < 100 && aborted.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(aborted.length, 1, 'the weights\' request was aborted');
  release();
  await page.focus('[data-testid=tr-input]');
  await page.keyboard.press('Control+Enter');
  await untilTranslated(page, 300000);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), native('en-de/transformer', src));
  // Another model's download stopped: the translation on screen stays, said to be from before.
  await holdRequests(page, '**/en-de/gru/model.safetensors');
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await page.locator('[data-testid=tr-download-stop]').waitFor({ timeout: 60000 });
  await page.click('[data-testid=tr-download-stop]');
  await page.locator('[data-testid=tr-progress]').waitFor({ state: 'detached', timeout: 10000 });
  assert.equal(await page.locator('[data-testid=tr-status]').textContent(), "The model's download was stopped (the translation shown is from before it): Ctrl+Enter or a change to the text starts it again.");
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), native('en-de/transformer', src));
  assert.equal(await page.locator('[data-testid=tr-output]').getAttribute('aria-busy'), 'false');
  // That output is the Transformer's: ⇄ does not move it in as the GRU's.
  assert.equal(await page.locator('[data-testid=tr-swap]').getAttribute('aria-disabled'), 'true');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Stop the download also stops a translation still in its typing pause (it claimed the download again)', async () => {
  const { page, errors, release, aborted } = await heldWeightsPage();
  // The landing view fetches the model while idle; a text typed then waits 300 ms before translating.
  await page.goto(rig.url + '#translate?backend=cpu');
  await page.locator('[data-testid=tr-progress]').waitFor({ timeout: 120000 });
  await page.evaluate(async () => {
    const input = document.querySelector('[data-testid=tr-input]');
    input.value = 'A dog runs.';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 50));
    document.querySelector('[data-testid=tr-download-stop]').click();
  });
  const stopped = "The model's download was stopped: Ctrl+Enter or a change to the text starts it again.";
  // Past the pause and the worker's grace period, the download has ended and stays stopped.
  for (let i = 0; i < 100 && aborted.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(aborted.length, 1, "the weights' request was aborted");
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await page.locator('[data-testid=tr-progress]').count(), 0);
  assert.equal(await page.locator('[data-testid=tr-status]').textContent(), stopped);
  release();
  assert.deepEqual(errors, []);
  await page.close();
});

test('an ensemble downloads as one bar over its members, named by the ensemble', async () => {
  const errors = [];
  const page = await rig.browser.newPage({ serviceWorkers: 'block' });
  page.on('pageerror', (e) => errors.push(String(e)));
  const release = await holdRequests(page, '**/en-de/transformer-d224-bt/model.safetensors');
  const src = testSources[short[0]];
  await page.goto(rig.url + `#translate?backend=cpu&model=en-de%2Fensemble&text=${encodeURIComponent(src)}`);
  // The second member's weights are held: the bar stands at half or more, not at 0 % again.
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-model-status]')?.textContent === 'Loading en-de/ensemble (member 2 of 2: en-de/transformer-d224-bt)…', null, { timeout: 120000 });
  const share = await page.locator('[data-testid=tr-progress-share]').textContent();
  assert.ok(parseInt(share, 10) >= 50, share);
  release();
  await untilTranslated(page, 300000);
  assert.deepEqual(errors, []);
  await page.close();
});

test('auto runs the CPU engine on a software WebGPU adapter; choosing GPU reloads onto it', async () => {
  const errors = [];
  const src = testSources[short[0]];
  const page = await openPage(rig.browser, rig.url + `#translate?text=${encodeURIComponent(src)}`, errors);
  await untilTranslated(page, 300000);
  assert.match(await page.locator('[data-testid=tr-backend]').textContent(), /^CPU \(WebAssembly, (one thread|up to \d threads): the only WebGPU adapter is a software fallback/);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), native('en-de/transformer', src));
  assert.equal(await page.locator('[data-testid=tr-backend-choice]').inputValue(), 'auto');
  await Promise.all([page.waitForEvent('load'), page.selectOption('[data-testid=tr-backend-choice]', 'gpu')]);
  await page.waitForFunction(() => /^GPU \(WebGPU/.test(document.querySelector('[data-testid=tr-backend]')?.textContent ?? ''), null, { timeout: 300000 });
  assert.ok(page.url().includes('backend=gpu'), page.url());
  assert.equal(await page.locator('[data-testid=tr-input]').inputValue(), src, 'the text survives the reload');
  assert.deepEqual(errors, []);
});

test('beam settings come from the URL and match the native beam search', async () => {
  const errors = [];
  const src = testSources[short[3]];
  const page = await openPage(rig.browser, rig.url + `#translate?beam=4&lp=0.6&text=${encodeURIComponent(src)}`, errors);
  assert.equal(await page.locator('[data-testid=tr-beam]').inputValue(), '4');
  await untilTranslated(page, 300000);
  const got = (await page.locator('[data-testid=tr-output]').innerText()).trim();
  assert.equal(got, native('en-de/transformer', src, ['--beam', '4', '--lenpen', '0.6', '--lenpen-kind', 'gnmt']));
  assert.ok(page.url().includes('beam=4'));
  assert.deepEqual(errors, []);
});

test('"Best quality" sets the reranked beam search of the CLI\'s --best, and "Fastest" goes back to greedy', async () => {
  const errors = [];
  // A sentence whose translation the search changes, so the output shows which search ran.
  const candidates = short.slice(0, 60).map((k) => testSources[k]);
  const [bests, greedys, beams] = [['--best'], [], ['--beam', '4']].map((f) => native('en-de/transformer', candidates.join('\n'), f).split('\n'));
  const j = bests.findIndex((b, k) => b !== greedys[k] && b !== beams[k]);
  assert.ok(j >= 0, 'one of 60 short sentences translates differently with --best than with greedy and plain beam search');
  const [src, best, greedy] = [candidates[j], bests[j].trim(), greedys[j].trim()];
  // Sampling and an end penalty from the link are turned off by the preset.
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&sample=true&end=0.5&text=${encodeURIComponent(src)}`, errors);
  const shows = (want) => page.waitForFunction((w) => / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? '')
    && document.querySelector('[data-testid=tr-output]').innerText.trim() === w, want, { timeout: 300000 });
  await untilTranslated(page, 300000);
  await page.click('[data-testid=tr-best]');
  await shows(best);
  for (const [box, want] of [['tr-beam', '4'], ['tr-lenpen', '0'], ['tr-coverage', '0'], ['tr-end', '0']]) {
    assert.equal(await page.locator(`[data-testid=${box}]`).inputValue(), want, box);
  }
  assert.equal(await page.locator('[data-testid=tr-sample]').isChecked(), false);
  assert.equal(await page.locator('[data-testid=tr-rerank]').isChecked(), true);
  assert.ok(/[?&]beam=4(&|$)/.test(page.url()) && /[?&]rerank=true(&|$)/.test(page.url()), page.url());
  await page.click('[data-testid=tr-fastest]');
  await shows(greedy);
  assert.equal(await page.locator('[data-testid=tr-beam]').inputValue(), '1');
  assert.ok(!page.url().includes('beam=') && !page.url().includes('rerank='), page.url());
  assert.deepEqual(errors, []);
});

test('"Best quality" without the reverse model (offline, not kept) gives the beam\'s own best and says it was not reranked', async () => {
  const errors = [];
  const candidates = short.slice(0, 60).map((k) => testSources[k]);
  const [bests, beams] = [['--best'], ['--beam', '4']].map((f) => native('en-de/transformer', candidates.join('\n'), f).split('\n'));
  const j = bests.findIndex((b, k) => b !== beams[k]);
  assert.ok(j >= 0, 'one of 60 short sentences translates differently with reranking');
  const page = await rig.browser.newPage({ serviceWorkers: 'block' });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/models/de-en/transformer/config.json', (route) => route.abort('internetdisconnected'));
  await page.goto(rig.url + `#translate?backend=cpu&text=${encodeURIComponent(candidates[j])}`);
  await untilTranslated(page, 300000);
  await page.click('[data-testid=tr-best]');
  await page.waitForFunction(() => /translated without reranking/.test(document.querySelector('[data-testid=tr-error]')?.textContent ?? '')
    && / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 300000 });
  assert.match(await page.locator('[data-testid=tr-error]').textContent(), /^Could not load de-en\/transformer to rerank with: models\/de-en\/transformer\/config\.json: .+; translated without reranking/);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), beams[j].trim());
  // The model that translated keeps its status line (it went blank with the reverse model's failure).
  assert.match(await page.locator('[data-testid=tr-model-status]').textContent(), /^en-de\/transformer loaded/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('odd input keeps the page alive', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate', errors);
  // Each odd input is really translated (the page waits 300 ms before translating and drops a run
  // that newer input supersedes, so each one is awaited) and gives the native CLI's output.
  // Each text as the page splits it into sentences (one native line each).
  const odd = [['A dog 🐕 runs 🏃‍♂️ fast.'], ['שלום עולם.', 'مرحبا بالعالم.'], ['Zero\u200bwidth\u0007control\u0000chars.'], ['ᚠᚢᚦᚨᚱᚲ ꦄꦏ𓀀𓁐.'], ['.....']];
  for (const sentences of odd) {
    const want = native('en-de/transformer', sentences.join('\n')).split('\n').map((l) => l.trim()).join(' ');
    assert.equal(await translated(page, sentences.join(' ')), want, JSON.stringify(sentences));
  }
  await page.fill('[data-testid=tr-input]', '   ');
  await page.waitForTimeout(600);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), '', 'blank input clears the output');
  // Over the limit: a message instead of a translation, and the page still answers.
  await page.fill('[data-testid=tr-input]', 'A man walks. '.repeat(1600));
  await page.locator('[data-testid=tr-input-error]').waitFor();
  assert.match(await page.locator('[data-testid=tr-input-error]').textContent(), /^The text has 20 800 characters; wgslate translates up to 5 000 at a time\..* a reload empties the box/);
  // Not written into the address (megabytes there cost every keystroke a second, and a reload brought back an older text).
  assert.doesNotMatch(await page.evaluate(() => location.hash), /text=/);
  // Back from another view (a link without the text) keeps it in the box.
  await page.click('[data-testid=nav-compare]');
  await page.goBack();
  await page.locator('[data-testid=tr-input]').waitFor();
  assert.equal((await page.inputValue('[data-testid=tr-input]')).length, 'A man walks. '.length * 1600);
  assert.equal(await translated(page, 'Two men are talking.'), native('en-de/transformer', 'Two men are talking.'));
  assert.deepEqual(errors, []);
});

test('changing the backend or reloading during an evaluation asks first, and No keeps the evaluation and the old choice', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-stop]').waitFor({ timeout: 120000 });
  const asked = [];
  page.once('dialog', (d) => { asked.push(d.message()); d.dismiss(); });
  let reloaded = false;
  page.once('load', () => { reloaded = true; });
  await page.selectOption('[data-testid=tr-backend-choice]', 'auto');
  await page.waitForTimeout(1000);
  assert.deepEqual(asked, ['Changing the backend reloads the page, which stops the test-set evaluation. Change it anyway?']);
  assert.equal(reloaded, false);
  assert.equal(await page.locator('[data-testid=tr-backend-choice]').inputValue(), 'cpu');
  assert.equal(await page.locator('[data-testid=eval-stop]').count(), 1, 'the evaluation still runs');
  // A reload (a closed tab, another address) during the evaluation asks too: the browser's question.
  const leave = [];
  page.once('dialog', (d) => { leave.push(d.type()); d.dismiss(); });
  await page.evaluate(() => setTimeout(() => location.reload(), 0));
  await page.waitForTimeout(1000);
  assert.deepEqual(leave, ['beforeunload']);
  assert.equal(reloaded, false);
  assert.equal(await page.locator('[data-testid=eval-stop]').count(), 1, 'the evaluation still runs');
  // Yes to the backend's question reloads at once, with no second question.
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.type()); d.accept(); });
  await Promise.all([page.waitForEvent('load'), page.selectOption('[data-testid=tr-backend-choice]', 'auto')]);
  assert.deepEqual(dialogs, ['confirm']);
  assert.equal(await page.locator('[data-testid=tr-backend-choice]').inputValue(), 'auto');
  // With nothing long running, a reload asks nothing.
  await page.reload();
  assert.deepEqual(dialogs, ['confirm']);
  assert.deepEqual(errors, []);
});

test('Copy says whether the translation reached the clipboard', async () => {
  const errors = [];
  const context = await rig.browser.newContext({ serviceWorkers: 'block' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rig.url });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(rig.url + '#translate?backend=cpu');
  await translated(page, 'Two dogs play in the snow.');
  await page.click('[data-testid=tr-copy]');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-copy-note]').textContent !== '');
  assert.equal(await page.locator('[data-testid=tr-copy-note]').textContent(), 'Copied.');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), native('en-de/transformer', 'Two dogs play in the snow.'));
  // Without a clipboard the note says so, and nothing is thrown.
  await page.evaluate(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
  await page.click('[data-testid=tr-copy]');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-copy-note]').textContent.startsWith('Not copied'));
  assert.equal(await page.locator('[data-testid=tr-copy-note]').textContent(), 'Not copied: this browser offers no clipboard to the page.');
  await context.close();
  assert.deepEqual(errors, []);
});

test('served over plain http to another machine, the page says what it cannot do there and throws nothing', async (t) => {
  // Browsers hide the Cache API, the clipboard and WebGPU outside a secure context: reach the server
  // through this machine's own network address (not loopback) with a plain TCP relay.
  const address = Object.values(networkInterfaces()).flat().find((a) => a.family === 'IPv4' && !a.internal)?.address;
  if (!address) return t.skip('this machine has no network address other than loopback');
  const port = Number(new URL(rig.url).port);
  const relay = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise((resolve) => relay.listen(0, address, resolve));
  try {
    const errors = [];
    const page = await openPage(rig.browser, `http://${address}:${relay.address().port}/#translate?text=A%20dog.`, errors);
    await untilTranslated(page, 300000);
    assert.equal(await page.evaluate(() => isSecureContext), false);
    const why = 'this page is served over plain http from another machine; browsers allow that only on https or localhost';
    assert.ok((await page.locator('[data-testid=tr-backend]').textContent()).endsWith(`WebGPU unavailable: ${why})`), await page.locator('[data-testid=tr-backend]').textContent());
    await page.click('[data-testid=offline-models] summary');
    assert.equal(await page.locator('[data-testid=offline-insecure]').textContent(), `Nothing can be kept for offline use: ${why}.`);
    await page.click('[data-testid=tr-copy]');
    await page.waitForFunction(() => document.querySelector('[data-testid=tr-copy-note]').textContent !== '');
    assert.equal(await page.locator('[data-testid=tr-copy-note]').textContent(), `Not copied: ${why}.`);
    assert.deepEqual(errors, []);
  } finally {
    relay.close();
  }
});

test('the settings\' number boxes stop at the limits the link and the CLI accept', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu&beam=16&p=1', errors);
  await page.locator('[data-testid=tr-beam]').waitFor();
  const limits = await page.evaluate(() => Object.fromEntries(['tr-beam', 'tr-top-p', 'tr-max-b', 'tr-temperature'].map((id) => {
    const box = document.querySelector(`[data-testid=${id}]`);
    return [id, [box.min, box.max]];
  })));
  // The ranges of the validator the link and `wgslate translate` share (crates/decode/src/settings.rs),
  // the lowest rounded up to a multiple of the box's step (0.01 made the default 1 invalid; typed, 0.01 is taken).
  assert.deepEqual(limits, { 'tr-beam': ['1', '16'], 'tr-top-p': ['0.05', '1'], 'tr-max-b': ['0', '200'], 'tr-temperature': ['0.1', '10'] });
  await page.focus('[data-testid=tr-beam]');
  await page.keyboard.press('ArrowUp');
  await page.locator('[data-testid=tr-beam]').dispatchEvent('change');
  assert.equal(await page.inputValue('[data-testid=tr-beam]'), '16');
  assert.equal(await page.locator('[data-testid=tr-settings-error]').count(), 0);
  // The boxes the search leaves unused are named.
  const idle = () => page.locator('[data-testid=tr-idle-settings]').textContent();
  assert.match(await idle(), /^Temperature, top-k, top-p and seed apply only when Sample is ticked/);
  await page.click('[data-testid=tr-sample]');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-idle-settings]').textContent.startsWith('Sample is ticked'));
  assert.deepEqual(errors, []);
});

test('the output selected with the mouse copies as the CLI writes it: no trailing spaces, no blank lines', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  const text = 'A man is riding a bike. Two dogs play in the snow.\n\nA woman reads a book.';
  await translated(page, text);
  const selected = await page.evaluate(() => {
    window.getSelection().selectAllChildren(document.querySelector('[data-testid=tr-output]'));
    return window.getSelection().toString();
  });
  assert.equal(selected, native('en-de/transformer', text));
  // Coloured by confidence (a span per token) it copies the same.
  await page.click('.out-tools input[type=checkbox]');
  await page.locator('[data-testid=tr-output] .conf').first().waitFor();
  assert.equal(await page.evaluate(() => {
    window.getSelection().selectAllChildren(document.querySelector('[data-testid=tr-output]'));
    return window.getSelection().toString();
  }), selected);
  assert.deepEqual(errors, []);
});

test('German typed into English → German gets a hint whose button switches to German → English', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  const english = readFileSync(join(root, 'www', 'data', 'val.en'), 'utf8').split('\n')[0];
  await translated(page, english);
  assert.equal(await page.locator('[data-testid=tr-language]').count(), 0, 'no hint for English');
  const german = readFileSync(join(root, 'www', 'data', 'val.de'), 'utf8').split('\n')[0];
  await translated(page, german);
  assert.equal(await page.locator('[data-testid=tr-language]').textContent(),
    'This text reads as German, but the model translates from English. Translate German → English');
  await page.click('[data-testid=tr-language-switch]');
  // The text stays; the German → English model translates it, as the CLI does, and the hint is gone.
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-output]')?.getAttribute('data-model') === 'de-en/transformer');
  await untilTranslated(page, 300000);
  assert.equal(await page.inputValue('[data-testid=tr-input]'), german);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), native('de-en/transformer', german));
  assert.equal(await page.locator('[data-testid=tr-language]').count(), 0);
  assert.match(page.url(), /model=de-en%2Ftransformer|model=de-en\/transformer/);
  // Czech: no model translates it, and the hint says so without a button.
  await page.fill('[data-testid=tr-input]', 'Dva psi si hrají ve sněhu.');
  await page.locator('[data-testid=tr-language]').waitFor();
  assert.match(await page.locator('[data-testid=tr-language]').textContent(), /reads as Czech, but the model translates from German\. No model here translates Czech\.$/);
  assert.equal(await page.locator('[data-testid=tr-language-switch]').count(), 0);
  assert.deepEqual(errors, []);
});

test('without WebGPU the backend says CPU and translation works', async () => {
  const plain = await launch({ webgpu: false });
  try {
    const errors = [];
    const page = await openPage(plain, rig.url + '#translate', errors);
    const src = testSources[short[4]];
    assert.equal(await translated(page, src), native('en-de/transformer', src));
    await page.waitForFunction(() => /WebGPU unavailable/.test(document.querySelector('[data-testid=tr-backend]')?.textContent ?? ''));
    assert.match(await page.locator('[data-testid=tr-backend]').textContent(), /^CPU/);
    assert.deepEqual(errors, []);
  } finally {
    await plain.close();
  }
});
