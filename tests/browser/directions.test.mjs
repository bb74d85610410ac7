// Language pickers: only directions that exist are offered, the swap button turns the direction
// round and moves the translation into the input, and all of it is in the URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { useBrowser, openPage, wgslate, root, untilTranslated } from './harness.mjs';

const rig = useBrowser(8142);
const finished = (page) => untilTranslated(page, 300000);
const output = async (page) => (await page.locator('[data-testid=tr-output]').innerText()).trim();
const options = (page, id) => page.locator(`[data-testid=${id}] option`).allTextContents();
const index = JSON.parse(readFileSync(join(root, 'www', 'models', 'index.json'), 'utf8'));
const names = { en: 'English', de: 'German', fr: 'French', cs: 'Czech' };
// The en→de ensemble's members as the index lists them.
const members = index.find((e) => e.pair === 'en-de' && e.arch === 'ensemble').members;
const memberFlags = members.flatMap((a) => ['--model', join(root, 'www', 'models', 'en-de', a)]);

test('the pickers offer the shipped directions, and swap translates the output back', async () => {
  const errors = [];
  const sentence = 'A brown dog runs through the grass.';
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&text=${encodeURIComponent(sentence)}`, errors);
  await finished(page);
  const german = await output(page);
  assert.equal(german, wgslate(['translate', '--model', join(root, 'www', 'models', 'en-de', 'transformer'), '--backend', 'cpu'], sentence + '\n').trim());
  const sources = [...new Set(index.map((e) => e.pair.split('-')[0]))].map((c) => names[c]);
  assert.deepEqual(await options(page, 'tr-src'), sources);
  const fromEnglish = [...new Set(index.filter((e) => e.pair.startsWith('en-')).map((e) => e.pair.split('-')[1]))].map((c) => names[c]);
  assert.deepEqual(await options(page, 'tr-tgt'), fromEnglish);
  // The model list shows each model's size and test BLEU before anything is downloaded.
  const models = await options(page, 'tr-model');
  assert.equal(models.length, index.filter((e) => e.pair === 'en-de').length);
  const first = index.find((e) => e.pair === 'en-de');
  assert.ok(models[0].startsWith(`${first.title} · `), models[0]);
  assert.match(models[0], / · \d+\.\d MB · test BLEU \d+\.\d$/);

  await page.click('[data-testid=tr-swap]');
  assert.equal(await page.inputValue('[data-testid=tr-input]'), german);
  assert.equal(await page.inputValue('[data-testid=tr-src]'), 'de');
  assert.equal(await page.inputValue('[data-testid=tr-tgt]'), 'en');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-output]')?.dataset.model === 'de-en/transformer');
  await finished(page);
  const back = wgslate(['translate', '--model', join(root, 'www', 'models', 'de-en', 'transformer'), '--backend', 'cpu'], german + '\n').trim();
  assert.equal(await output(page), back);
  assert.match(await page.getAttribute('[data-testid=tr-input]', 'placeholder'), /Type German text/);
  assert.match(page.url(), /model=de-en%2Ftransformer/);
  // Swap replaced the user's text; Back brings it and the direction back, Forward the swapped ones.
  await page.goBack();
  await page.waitForFunction((s) => document.querySelector('[data-testid=tr-input]').value === s, sentence);
  assert.equal(await page.inputValue('[data-testid=tr-src]'), 'en');
  assert.match(page.url(), /#translate\?/);
  await page.goForward();
  await page.waitForFunction((s) => document.querySelector('[data-testid=tr-input]').value === s, german);
  assert.equal(await page.inputValue('[data-testid=tr-src]'), 'de');
  await finished(page);

  // A reload keeps the direction; choosing English as the source again goes back to en-de.
  await page.reload();
  await finished(page);
  assert.equal(await output(page), back);
  await page.selectOption('[data-testid=tr-src]', 'en');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-output]')?.dataset.model === 'en-de/transformer');
  assert.deepEqual(errors, []);
});

test('English → French and back: the page gives the CLI’s translations', async () => {
  const errors = [];
  const sentence = 'Two men are playing football in the park.';
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&model=en-fr%2Ftransformer&text=${encodeURIComponent(sentence)}`, errors);
  await finished(page);
  assert.equal(await page.inputValue('[data-testid=tr-tgt]'), 'fr');
  const french = await output(page);
  assert.equal(french, wgslate(['translate', '--model', join(root, 'www', 'models', 'en-fr', 'transformer'), '--backend', 'cpu'], sentence + '\n').trim());
  await page.click('[data-testid=tr-swap]');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-output]')?.dataset.model === 'fr-en/transformer');
  await finished(page);
  assert.equal(await output(page), wgslate(['translate', '--model', join(root, 'www', 'models', 'fr-en', 'transformer'), '--backend', 'cpu'], french + '\n').trim());
  assert.deepEqual(errors, []);
});

test('the ensemble model gives the CLI ensemble’s translation', async () => {
  const errors = [];
  const sentence = 'Three children are sitting on a wooden bench near the lake.';
  const page = await openPage(rig.browser, rig.url + `#translate?model=en-de%2Fensemble&text=${encodeURIComponent(sentence)}`, errors);
  await finished(page);
  assert.equal(await output(page), wgslate(['translate', ...memberFlags, '--backend', 'cpu'], sentence + '\n').trim());
  assert.match(await page.locator('[data-testid=tr-backend]').textContent(), new RegExp(`ensemble of ${members.length}`));
  assert.match(await page.locator('[data-testid=tr-model] option:checked').textContent(), /ensemble/);
  const loaded = `en-de/ensemble loaded (${members.map((a) => `en-de/${a}`).join(' + ')}): weights int8`;
  assert.ok((await page.locator('[data-testid=tr-model-status]').textContent()).startsWith(loaded));
  assert.deepEqual(errors, []);
});

test('on WebGPU the ensemble runs on the WGSL engine and gives the CPU ensemble’s tokens', async () => {
  const errors = [];
  const sentence = 'A woman is riding a horse on the beach.';
  // SwiftShader is a software adapter, which `auto` leaves for the CPU engine: ask for the GPU.
  const page = await openPage(rig.browser, rig.url + `#translate?backend=gpu&model=en-de%2Fensemble&text=${encodeURIComponent(sentence)}`, errors);
  await finished(page);
  assert.match(await page.locator('[data-testid=tr-backend]').textContent(), new RegExp(`^GPU .*ensemble of ${members.length}`));
  assert.equal(await output(page), wgslate(['translate', ...memberFlags, '--backend', 'cpu'], sentence + '\n').trim());
  assert.deepEqual(errors, []);
});

test('Rerank with the reverse model gives the CLI’s reranked translation, not plain beam search’s', async () => {
  const errors = [];
  // A val sentence whose beam-4 output drops the life jacket; the de→en model's score brings it back.
  const sentence = 'A balding man wearing a red life jacket is sitting in a small boat.';
  const forward = ['--model', join(root, 'www', 'models', 'en-de', 'transformer'), '--backend', 'cpu', '--beam', '4'];
  const plain = wgslate(['translate', ...forward], sentence + '\n').trim();
  const reranked = wgslate(['translate', ...forward, '--rerank', join(root, 'www', 'models', 'de-en', 'transformer')], sentence + '\n').trim();
  assert.notEqual(reranked, plain);
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&beam=4&rerank=true&text=${encodeURIComponent(sentence)}`, errors);
  await finished(page);
  assert.equal(await output(page), reranked);
  assert.ok(await page.locator('[data-testid=tr-rerank]').isChecked());
  assert.match(await page.locator('[data-testid=tr-model-status]').textContent(), /de-en\/transformer to rerank with/);
  // A bad count is refused with a message, and the click that left the box does not start a run.
  await page.fill('[data-testid=eval-count]', '0');
  await page.click('[data-testid=eval-run]');
  assert.match(await page.locator('[data-testid=eval-count-error]').textContent(), /between 1 and 1000, not 0; the evaluation keeps the first 1000/);
  assert.equal(await page.locator('[data-testid=eval-stop]').count(), 0, 'no run started');
  assert.equal(await page.locator('[data-testid=eval-status]').textContent(), '');
  // The test-set evaluation follows the setting and says so.
  await page.fill('[data-testid=eval-count]', '2');
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  await page.click('[data-testid=eval-run]');
  await page.waitForSelector('[data-testid=eval-bleu]', { timeout: 120000 });
  assert.match(await page.locator('p', { has: page.locator('[data-testid=eval-bleu]') }).textContent(), /on 2 sentences, en-de\/transformer, beam 4, reranked/);
  // Unticked, the same beam gives plain beam search's output.
  await page.locator('[data-testid=tr-rerank]').uncheck();
  await page.waitForFunction((want) => document.querySelector('[data-testid=tr-output]')?.innerText.trim() === want, plain, { timeout: 120000 });
  // On WebGPU (the search and the reverse model's scores on the WGSL engine): the same.
  const gpu = await openPage(rig.browser, rig.url + `#translate?backend=gpu&beam=4&rerank=true&text=${encodeURIComponent(sentence)}`, errors);
  await finished(gpu);
  assert.match(await gpu.locator('[data-testid=tr-backend]').textContent(), /^GPU/);
  assert.equal(await output(gpu), reranked);
  // A link that ticks it for greedy search: the box says why it does nothing.
  const greedy = await openPage(rig.browser, rig.url + `#translate?backend=cpu&rerank=true&text=${encodeURIComponent(sentence)}`, errors);
  await finished(greedy);
  assert.equal(await output(greedy), wgslate(['translate', ...forward.slice(0, -2)], sentence + '\n').trim());
  assert.match(await greedy.locator('label', { has: greedy.locator('[data-testid=tr-rerank]') }).textContent(), /off until the beam is 2 or more/);
  // Unticking it there changes no translation, so none starts (a start marks the output busy at once).
  await greedy.evaluate(() => {
    window.__busy = 0;
    const out = document.querySelector('[data-testid=tr-output]');
    new MutationObserver(() => { if (out.getAttribute('aria-busy') === 'true') window.__busy += 1; })
      .observe(out, { attributes: true, attributeFilter: ['aria-busy'] });
  });
  await greedy.locator('[data-testid=tr-rerank]').uncheck();
  await greedy.waitForFunction(() => !/rerank=true/.test(location.hash));
  await greedy.waitForTimeout(1500);
  assert.equal(await greedy.evaluate(() => window.__busy), 0);
  // While a change of beam does start one (the observer can see it).
  await greedy.fill('[data-testid=tr-beam]', '2');
  await greedy.locator('[data-testid=tr-beam]').dispatchEvent('change');
  await greedy.waitForFunction(() => window.__busy > 0, null, { timeout: 60000 });
  assert.deepEqual(errors, []);
});
