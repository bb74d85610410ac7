// Evaluating the test set, and what the page does when things go wrong: a missing or corrupt
// model file, and a GPU device lost in the middle of a session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, openPage, root, screenshots, wgslate, untilTranslated } from './harness.mjs';

const rig = useBrowser(8134);

// A page without the service worker (page.route must see every request), its errors collected.
async function blankPage() {
  const errors = [];
  const page = await rig.browser.newPage({ serviceWorkers: 'block' });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors };
}

// Every text `selector` has, however briefly, from the next page loaded on: `window.texts`.
async function recordTexts(page, selector) {
  await page.addInitScript((selector) => {
    window.texts = [];
    new MutationObserver(() => {
      const t = document.querySelector(selector)?.textContent;
      if (t !== undefined && window.texts.at(-1) !== t) window.texts.push(t);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  }, selector);
}

// Holds back a model's weights (a slow line) until `release()`; `requested` resolves on the first
// request, `count()` says how many were made.
async function holdWeights(page, model) {
  let started, release;
  const requested = new Promise((r) => { started = r; });
  const held = new Promise((r) => { release = r; });
  let requests = 0;
  await page.route(`**/models/${model}/model.safetensors`, async (route) => {
    requests += 1;
    started();
    await held;
    await route.continue().catch(() => {});
  });
  return { requested, release, count: () => requests };
}

// Lets the held weights through, translates (typing `text` first, if given) and checks they were
// fetched once.
async function releaseThenTranslate(page, hold, errors, text) {
  hold.release();
  if (text) await page.fill('[data-testid=tr-input]', text);
  await done(page);
  assert.equal(hold.count(), 1, 'the weights were fetched once');
  assert.deepEqual(errors, []);
  await page.close();
}

const data = (name) => readFileSync(join(root, 'www', 'data', name), 'utf8').split('\n');
const done = (page) => untilTranslated(page, 300000);

test('evaluating the first sentences of the test set gives the BLEU of `wgslate eval`, and opens in the BLEU page', async () => {
  const n = 12;
  const dir = mkdtempSync(join(tmpdir(), 'wgslate-eval-'));
  writeFileSync(join(dir, 'src'), data('test_2016_flickr.en').slice(0, n).join('\n') + '\n');
  writeFileSync(join(dir, 'ref'), data('test_2016_flickr.de').slice(0, n).join('\n') + '\n');
  const report = wgslate(['eval', '--model', join(root, 'www', 'models', 'en-de', 'gru'), '--src', join(dir, 'src'), '--ref', join(dir, 'ref'), '--backend', 'cpu']);
  const [, signature, score] = report.match(/^ *BLEU\|(\S+) = (\d+\.\d+)/m);
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?model=en-de%2Fgru', errors);
  await page.fill('[data-testid=eval-count]', String(n));
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  await page.click('[data-testid=eval-run]');
  const bleu = page.locator('[data-testid=eval-bleu]');
  await bleu.waitFor({ timeout: 600000 });
  assert.equal(await bleu.textContent(), score, 'the page shows BLEU with the two decimals `wgslate eval` prints');
  assert.equal(await page.locator('[data-testid=eval-status][role=status]').textContent(), `BLEU ${score}`, 'announced to screen readers');
  assert.match(await page.locator('.evaluate code').textContent(), new RegExp(`^${signature.replace(/[.+|]/g, '\\$&')}$`));
  assert.match(await page.locator('.evaluate').innerText(), new RegExp(`on ${n} sentences`));
  await page.screenshot({ path: join(screenshots, 'evaluate.png'), fullPage: true });
  assert.equal(await page.locator('[data-testid=eval-stale]').count(), 0);
  // The BLEU page computes what it was opened with (it showed the boxes filled and no score).
  await page.click('[data-testid=eval-open-bleu]');
  const pageScore = page.locator('[data-testid=bleu-score]');
  await pageScore.waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid=bleu-stale]').count(), 0);
  // The button went with its view: the focus is on the scores, not at the top of the page.
  await page.waitForFunction(() => document.activeElement?.matches('.bleu .results'), null, { timeout: 10000 });
  // One decimal there, of the same corpus score.
  assert.ok(Math.abs(Number(await pageScore.textContent()) - Number(score)) <= 0.0551, `${await pageScore.textContent()} vs ${score}`);
  assert.equal((await page.locator('[data-testid=bleu-hyp]').inputValue()).split('\n').length, n);
  assert.deepEqual(errors, []);
});

test('an evaluation names its model, keeps its references, and stops when another model is chosen', async () => {
  const { page, errors } = await blankPage();
  await page.goto(rig.url + '#translate?model=en-de%2Fgru');
  await page.fill('[data-testid=eval-count]', '3');
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 300000 });
  assert.match(await page.locator('.evaluate').innerText(), /on 3 sentences, en-de\/gru, greedy/);
  // A search chosen afterwards: the result says it is not the search's.
  await page.fill('[data-testid=tr-beam]', '3');
  await page.locator('[data-testid=tr-beam]').blur();
  await page.locator('[data-testid=eval-stale]').waitFor();
  await page.fill('[data-testid=tr-beam]', '1');
  await page.locator('[data-testid=tr-beam]').blur();
  await page.locator('[data-testid=eval-stale]').waitFor({ state: 'detached' });
  // Another direction afterwards: the result still opens with the references it was scored on.
  await page.click('[data-testid=tr-swap]');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-model]')?.value?.startsWith('de-en/'));
  await page.locator('[data-testid=eval-stale]').waitFor();
  await page.click('[data-testid=eval-open-bleu]');
  assert.equal(await page.locator('[data-testid=bleu-ref-0]').inputValue(), data('test_2016_flickr.de').slice(0, 3).join('\n'));
  // An evaluation under way stops when the direction changes, and says why.
  await page.goBack();
  await page.fill('[data-testid=eval-count]', '1000');
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-stop]').waitFor();
  await page.click('[data-testid=tr-swap]');
  const note = page.locator('[data-testid=eval-note]');
  await note.waitFor({ timeout: 60000 });
  assert.match(await note.textContent(), /^Stopped after \d+ of 1 000 sentences: the direction was changed to English → German, so de-en\/transformer is no longer evaluated\.$/);
  assert.equal(await page.locator('[data-testid=eval-bleu]').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [what, fulfil, message] of [
  ['missing', { status: 404, body: 'not found' }, /Could not load the model: .*404/],
  ['corrupt', { status: 200, body: 'this is not a safetensors file' }, /Could not load the model: .*safetensors/i],
  ['unreachable', 'abort', /Could not load the model: .*models\/en-de\/gru\/model\.safetensors: the download failed .*check the connection/],
]) {
  test(`${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} model file shows a clear message and the other model still works without a reload`, async () => {
    const { page, errors } = await blankPage();
    await page.route('**/models/en-de/gru/model.safetensors', (route) => (fulfil === 'abort' ? route.abort('connectionreset') : route.fulfill(fulfil)));
    await page.goto(rig.url + '#translate?model=en-de%2Fgru');
    await page.fill('[data-testid=tr-input]', 'A dog runs.');
    const alert = page.locator('[data-testid=tr-error]');
    await alert.waitFor({ timeout: 120000 });
    assert.match(await alert.textContent(), message);
    // A server that does not answer, with the browser online: the models needing no download are
    // named as they are offline (it said only "Failed to fetch"); a server that answers, no.
    const choices = page.locator('[data-testid=tr-offline-choices]');
    if (fulfil === 'abort') {
      assert.match(await alert.textContent(), /the download failed \(no answer from the server\)/);
      assert.match(await choices.textContent(), /^(No model is kept in this browser yet|.* translates? offline)/);
    } else {
      assert.equal(await choices.count(), 0);
    }
    await page.screenshot({ path: join(screenshots, `model-${what}.png`), fullPage: true });
    await page.selectOption('[data-testid=tr-model]', 'en-de/transformer');
    await done(page);
    assert.ok((await page.locator('[data-testid=tr-output]').innerText()).trim().length > 0);
    assert.equal(await page.locator('[data-testid=tr-error]').count(), 0, 'the error clears once a model loads');
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a model list that failed to load is fetched again by the next translation, and the pickers heal', async () => {
  const { page, errors } = await blankPage();
  let broken = true;
  await page.route('**/models/index.json', (route) => (broken ? route.fulfill({ status: 404, body: 'not found' }) : route.continue()));
  await page.goto(rig.url + '#translate');
  await page.fill('[data-testid=tr-input]', 'A dog runs.');
  const alert = page.locator('[data-testid=tr-error]');
  await alert.waitFor({ timeout: 120000 });
  assert.match(await alert.textContent(), /index\.json: the server has no such file \(HTTP 404\)/);
  assert.equal(await page.locator('[data-testid=tr-model] option[value="en-de/gru"]').count(), 0, 'no list, no other models');
  broken = false;
  await page.fill('[data-testid=tr-input]', 'A dog runs fast.');
  await done(page);
  await page.locator('[data-testid=tr-model] option[value="en-de/gru"]').waitFor({ state: 'attached' });
  assert.equal(await page.locator('[data-testid=tr-error]').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a failed download says whose problem it is, goes with Try again, and a later model\'s success clears it', async () => {
  const { page, errors } = await blankPage();
  // The GRU's config answers first with a network's sign-in page, then with a server error, then as it should.
  let answer = { status: 200, contentType: 'text/html', body: '<html><body>Sign in to the Wi-Fi</body></html>' };
  await page.route('**/models/en-de/gru/config.json', (route) => (answer ? route.fulfill(answer) : route.continue()));
  await page.goto(rig.url + '#translate?backend=cpu&text=' + encodeURIComponent('A dog runs.'));
  await done(page);
  const alert = page.locator('[data-testid=tr-error]');
  const output = page.locator('[data-testid=tr-output]');
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await alert.waitFor({ timeout: 120000 });
  assert.match(await alert.textContent(), /config\.json: the server sent a web page instead of this file/);
  // The default model, still in memory, translates again: the GRU's error is out of date.
  await page.selectOption('[data-testid=tr-model]', 'en-de/transformer');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-output]')?.dataset.model === 'en-de/transformer' && / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 120000 });
  await alert.waitFor({ state: 'detached' });
  answer = { status: 503, body: 'busy' };
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await page.waitForFunction(() => /HTTP 503/.test(document.querySelector('[data-testid=tr-error]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.match(await alert.textContent(), /config\.json: the server had a problem \(HTTP 503\); try again later/);
  answer = null;
  await page.click('[data-testid=tr-retry]');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-output]')?.dataset.model === 'en-de/gru' && / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.equal(await alert.count(), 0);
  assert.equal((await output.innerText()).trim(), wgslate(['translate', '--model', join(root, 'www', 'models', 'en-de', 'gru'), '--backend', 'cpu'], 'A dog runs.\n').trim());
  assert.deepEqual(errors, []);
  await page.close();
});

test('the page says it is loading until the app runs, and says so if the app cannot be downloaded', async () => {
  const { page, errors } = await blankPage();
  let cut = true;
  await page.route('**/wgslate-web_bg.wasm', (route) => (cut ? route.abort('connectionreset') : route.continue()));
  await page.goto(rig.url + '#translate');
  const boot = page.locator('[data-testid=boot]');
  await page.waitForFunction(() => document.querySelector('[data-testid=boot]')?.getAttribute('role') === 'alert', null, { timeout: 60000 });
  assert.match(await boot.textContent(), /^wgslate could not start: .+\. Check the connection, then Reload$/);
  cut = false;
  // On a slow line the note counts the WebAssembly's share as it comes (it stood still for 15 s).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 50, downloadThroughput: 250_000, uploadThroughput: 250_000 });
  await recordTexts(page, '[data-testid=boot]');
  await page.click('[data-testid=boot-reload]');
  await page.locator('[data-testid=tr-input]').waitFor({ timeout: 120000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  assert.equal(await boot.count(), 0, 'the loading note goes once the app runs');
  const texts = await page.evaluate(() => window.texts);
  const shares = texts.map((t) => /^Loading wgslate… (\d+) % of \d+\.\d MB$/.exec(t)?.[1]).filter(Boolean).map(Number);
  assert.ok(shares.length >= 3 && shares.at(-1) >= 90, texts.join(' | '));
  assert.deepEqual(shares, [...shares].sort((a, b) => a - b), 'the share only grows');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a test set that cannot be fetched is named where the examples and Evaluate would be', async () => {
  const { page, errors } = await blankPage();
  await page.route('**/data/test_2016_flickr.de', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(rig.url + '#translate');
  await page.locator('[data-testid=eval-unavailable]').waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid=eval-run]').isDisabled(), true);
  await page.click('.examples summary');
  const missing = page.locator('[data-testid=examples-missing]');
  await missing.waitFor();
  assert.match(await missing.textContent(), /^The test set \(data\/test_2016_flickr\.en and \.de\) could not be loaded/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('swapping back after the other direction failed returns the text the swap replaced', async () => {
  const { page, errors } = await blankPage();
  await page.route('**/models/de-en/transformer/config.json', (route) => route.abort('internetdisconnected'));
  await page.goto(rig.url + '#translate?backend=cpu&text=' + encodeURIComponent('A dog runs.'));
  await done(page);
  const german = (await page.locator('[data-testid=tr-output]').innerText()).trim();
  await page.click('[data-testid=tr-swap]');
  await page.locator('[data-testid=tr-error]').waitFor({ timeout: 120000 });
  assert.equal(await page.inputValue('[data-testid=tr-input]'), german);
  // No translation to move back: the English the swap replaced comes back, not the German as English.
  await page.click('[data-testid=tr-swap]');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-model]')?.value?.startsWith('en-de/'));
  assert.equal(await page.inputValue('[data-testid=tr-input]'), 'A dog runs.');
  await done(page);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), german);
  assert.deepEqual(errors, []);
  await page.close();
});

test('after an ensemble, a model that fails to load leaves the backend label without "ensemble of 2"', async () => {
  const { page, errors } = await blankPage();
  await page.route('**/models/en-de/gru/config.json', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(rig.url + '#translate?backend=cpu&model=en-de%2Fensemble&text=' + encodeURIComponent('A dog runs.'));
  await done(page);
  const backend = page.locator('[data-testid=tr-backend]');
  assert.match(await backend.textContent(), /, ensemble of 2$/);
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await page.waitForFunction(() => /404/.test(document.querySelector('[data-testid=tr-error]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.match(await backend.textContent(), /^CPU \(WebAssembly/);
  assert.doesNotMatch(await backend.textContent(), /ensemble/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('before its model\'s first news a translation says the model is loading, not "Translating 0/1"', async () => {
  const { page, errors } = await blankPage();
  await recordTexts(page, '[data-testid=tr-status]');
  const hold = await holdWeights(page, 'en-de/gru');
  await page.goto(rig.url + '#translate?backend=cpu&model=en-de%2Fgru&text=' + encodeURIComponent('A dog runs.'));
  await hold.requested;
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-status]')?.textContent === 'Waiting for the model to download…');
  hold.release();
  await done(page);
  const statuses = (await page.evaluate(() => window.texts)).filter((t) => t !== '');
  const news = statuses.indexOf('Waiting for the model to download…');
  assert.ok(news >= 0, statuses.join(' | '));
  assert.deepEqual(statuses.slice(0, news).filter((t) => /^Translating/.test(t)), [], statuses.join(' | '));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a model says it is loading from its first file on, not only once its weights arrive', async () => {
  const { page, errors } = await blankPage();
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/models/en-de/gru/config.json', async (route) => { await held; await route.continue(); });
  await page.goto(rig.url + '#translate?model=en-de%2Fgru');
  await page.fill('[data-testid=tr-input]', 'A dog runs.');
  await page.waitForFunction(() => /Loading en-de\/gru/.test(document.querySelector('[data-testid=tr-model-status]')?.textContent ?? ''), null, { timeout: 60000 });
  // The bar is named for screen readers and its share written out.
  assert.equal(await page.locator('[data-testid=tr-progress]').getAttribute('aria-label'), 'Model download');
  assert.equal(await page.locator('[data-testid=tr-progress-share]').textContent(), '0 %');
  // The output side waits for the model; it has not begun translating.
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-status]')?.textContent === 'Waiting for the model to download…');
  release();
  await done(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Compare and Attention show the model\'s download, and a failed one\'s reason in place', async () => {
  const { page, errors } = await blankPage();
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/models/en-de/gru/config.json', async (route) => { await held; await route.continue(); });
  await page.route('**/models/en-de/transformer-small/model.safetensors', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(rig.url + '#compare?backend=cpu&model=en-de%2Fgru&text=' + encodeURIComponent('A dog runs.'));
  await page.click('[data-testid=cmp-run]');
  await page.locator('[data-testid=cmp-progress]').waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid=cmp-progress]').getAttribute('aria-label'), 'Model download');
  await page.waitForFunction(() => document.querySelector('[data-testid=cmp-status]')?.textContent === 'Waiting for the model to download…');
  release();
  await page.locator('[data-testid=cmp-greedy]').waitFor({ timeout: 120000 });
  assert.equal(await page.locator('[data-testid=cmp-progress]').count(), 0, 'the bar goes with the download');
  // A model that cannot be loaded: Attention says why where the user looks, not "at the top of the Translate view".
  await page.click('[data-testid=nav-translate]');
  await page.selectOption('[data-testid=tr-model]', 'en-de/transformer-small');
  await page.locator('[data-testid=tr-error]').waitFor({ timeout: 120000 });
  await page.click('[data-testid=nav-attention]');
  await page.click('[data-testid=att-run]');
  const alert = page.locator('[data-testid=att-error]');
  await alert.waitFor({ timeout: 120000 });
  assert.match(await alert.textContent(), /^Could not load the model: .*404/);
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  await page.waitForFunction(() => /^Could not load the model: .*404/.test(document.querySelector('[data-testid=cmp-error]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.deepEqual(errors, []);
  await page.close();
});

for (const typed of [false, true]) {
  test(`choosing another model stops the download of the one ${typed ? 'a translation' : 'the idle page'} was fetching`, async () => {
    const { page, errors } = await blankPage();
    // The GRU's weights never arrive; only a stop from the page ends the request.
    const { requested, release } = await holdWeights(page, 'en-de/gru');
    const stopped = page.waitForEvent('requestfailed', { predicate: (r) => r.url().endsWith('/models/en-de/gru/model.safetensors'), timeout: 60000 });
    const next = page.waitForRequest((r) => r.url().endsWith('/models/en-de/transformer/model.safetensors'), { timeout: 60000 });
    await page.goto(rig.url + '#translate?model=en-de%2Fgru');
    if (typed) await page.fill('[data-testid=tr-input]', 'A dog runs.');
    await requested;
    await page.selectOption('[data-testid=tr-model]', 'en-de/transformer');
    await stopped;
    // The idle page fetches the new model in its place; a translation loads it itself.
    if (!typed) await next;
    if (!typed) await page.fill('[data-testid=tr-input]', 'A dog runs.');
    await done(page);
    assert.ok((await page.locator('[data-testid=tr-output]').innerText()).trim().length > 0);
    assert.equal(await page.locator('[data-testid=tr-error]').count(), 0);
    release();
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('typing while a model downloads keeps its download going', async () => {
  const { page, errors } = await blankPage();
  const hold = await holdWeights(page, 'en-de/gru');
  await page.goto(rig.url + '#translate?model=en-de%2Fgru');
  await page.fill('[data-testid=tr-input]', 'A dog');
  await hold.requested;
  // Each keystroke cancels the running job at once and starts the next after the debounce: the
  // download must outlive that gap (and the page's 2 s grace) instead of starting again.
  await page.type('[data-testid=tr-input]', ' runs.', { delay: 100 });
  await page.waitForTimeout(4000);
  // The job now waiting shows the download it waits for (it came from the first job, gone, whose
  // bar stood still at its last share).
  await page.locator('[data-testid=tr-progress]').waitFor({ timeout: 10000 });
  assert.equal(await page.locator('[data-testid=tr-status]').textContent(), 'Waiting for the model to download…');
  await releaseThenTranslate(page, hold, errors);
});

test('Stop ends a job at once while its model downloads, and the bar stays for the view still waiting for it', async () => {
  const { page, errors } = await blankPage();
  const hold = await holdWeights(page, 'en-de/gru');
  // Compare starts the download; the Translate view's translation of the same text waits for it too.
  await page.goto(rig.url + '#compare?model=en-de%2Fgru&backend=cpu&text=' + encodeURIComponent('A dog runs.'));
  await page.click('[data-testid=cmp-run]');
  await hold.requested;
  await page.locator('[data-testid=cmp-progress]').waitFor({ timeout: 10000 });
  await page.click('[data-testid=cmp-stop]');
  // It waited for the whole download (held here: for ever) before it said so.
  await page.waitForFunction(() => document.querySelector('[data-testid=cmp-status]')?.textContent === 'Stopped.', null, { timeout: 10000 });
  // Compare's bar is for its own run only; the Translate view's goes on.
  await page.waitForTimeout(1500);
  assert.equal(await page.locator('[data-testid=cmp-progress]').count(), 0);
  await page.click('[data-testid=nav-translate]');
  await page.locator('[data-testid=tr-progress]').waitFor({ timeout: 10000 });
  assert.equal(await page.locator('[data-testid=tr-status]').textContent(), 'Waiting for the model to download…');
  await releaseThenTranslate(page, hold, errors);
});

test('Attention has a Stop: it ends a run waiting for its model and keeps the last map, marked out of date', async () => {
  const { page, errors } = await blankPage();
  const hold = await holdWeights(page, 'en-de/gru');
  await page.goto(rig.url + '#attention?backend=cpu&text=' + encodeURIComponent('A dog runs.'));
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
  await page.click('[data-testid=nav-translate]');
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await hold.requested;
  await page.click('[data-testid=nav-attention]');
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-progress]').waitFor({ timeout: 10000 });
  await page.click('[data-testid=att-stop]');
  await page.waitForFunction(() => document.querySelector('[data-testid=att-status]')?.textContent === 'Stopped; the map below is from the last finished run.', null, { timeout: 10000 });
  assert.equal(await page.locator('[data-testid=att-heatmap]').count(), 1);
  assert.equal(await page.locator('[data-testid=att-stale]').count(), 1);
  assert.equal(await page.locator('[data-testid=att-stop]').count(), 0);
  assert.equal(await page.locator('[data-testid=att-error]').count(), 0);
  assert.equal(await page.locator('[data-testid=att-run]').getAttribute('aria-disabled'), 'false');
  await page.click('[data-testid=nav-translate]');
  await releaseThenTranslate(page, hold, errors);
});

test('an ensemble keeps the download of a member already under way', async () => {
  const { page, errors } = await blankPage();
  // The idle page fetches the default model, a member of the ×3 ensemble chosen next; that
  // ensemble first loads another member, slowly, so the default's download would be orphaned
  // for longer than the grace if the ensemble did not claim it from the start.
  const hold = await holdWeights(page, 'en-de/transformer');
  await page.route('**/models/en-de/transformer-d224-distilled/model.safetensors', async (route) => {
    await new Promise((r) => setTimeout(r, 4000));
    await route.continue().catch(() => {});
  });
  await page.goto(rig.url + '#translate');
  await hold.requested;
  await page.selectOption('[data-testid=tr-model]', 'en-de/ensemble-3');
  await page.waitForTimeout(6000);
  await releaseThenTranslate(page, hold, errors, 'A dog runs.');
});

test('a lost GPU device falls back to the CPU engine with a message, keeping the page and its text', async () => {
  const { page, errors } = await blankPage();
  // Keep the devices the engine worker creates, so the test can destroy them as a driver reset
  // would: the worker's script gets a hook before its own code.
  const hook = `self.__devices = [];
    const request = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (...args) {
      const device = await request.apply(this, args);
      self.__devices.push(device);
      return device;
    };\n`;
  await page.route('**/worker.js', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: hook + (await response.text()) });
  });
  const devices = async (action) => {
    let n = 0;
    for (const w of page.workers()) n += await w.evaluate((destroy) => {
      const list = self.__devices || [];
      if (destroy) list.forEach((d) => d.destroy());
      return list.length;
    }, action === 'destroy');
    return n;
  };
  const sources = data('test_2016_flickr.en');
  const short = sources.slice(0, 300).sort((a, b) => a.split(' ').length - b.split(' ').length);
  // SwiftShader is a software adapter, which `auto` leaves for the CPU engine: ask for the GPU.
  await page.goto(rig.url + '#translate?backend=gpu&model=en-de%2Fgru');
  await page.fill('[data-testid=tr-input]', short[0]);
  await done(page);
  assert.match(await page.locator('[data-testid=tr-backend]').textContent(), /^GPU/);
  assert.ok(await devices('count') > 0);
  await devices('destroy');
  await page.fill('[data-testid=tr-input]', short[1]);
  await done(page);
  assert.match(await page.locator('[data-testid=tr-backend]').textContent(), /^CPU \(WebAssembly, (one thread|up to \d threads): the GPU engine failed: .+\)/);
  const want = wgslate(['translate', '--model', join(root, 'www', 'models', 'en-de', 'gru'), '--backend', 'cpu'], short[1] + '\n').trim();
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), want);
  assert.equal(await page.locator('[data-testid=tr-input]').inputValue(), short[1]);
  await page.screenshot({ path: join(screenshots, 'device-lost.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});
