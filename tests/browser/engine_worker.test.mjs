// Translations run in the engine worker (src/engine_worker.rs): the page stays responsive during a
// long run, a newer input or Stop cancels the older run, and a crashed worker is reported and
// replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, openPage, wgslate, root, untilTranslated } from './harness.mjs';

const rig = useBrowser(8141);
const model = join(root, 'www', 'models', 'en-de', 'transformer');
const status = (page) => page.locator('[data-testid=tr-status]').textContent();
const finished = (page) => untilTranslated(page, 300000);
const output = async (page) => (await page.locator('[data-testid=tr-output]').innerText()).trim();

test('a beam-16 long word from a shared link leaves the page responsive, and a new sentence replaces it', async () => {
  const errors = [];
  // Without WebGPU this froze the tab for 19.7 s when the CPU engine ran on the page's thread. The
  // d224 model and three such words (sentences of 256 subwords each, the model's limit) keep the run
  // going long enough for the checks below to see it unfinished (the smaller default once finished first).
  // Capitalised, so each starts a sentence (a lower-case word after a period continues one).
  const words = Array(3).fill('Abcdefghij' + 'abcdefghij'.repeat(49)).join('. ');
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&beam=16&model=en-de%2Ftransformer-d224&text=${words}`, errors);
  // Translating with the model in place (while it downloads, the status says it waits for it).
  await page.waitForFunction(() => /Translating/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? '')
    && /transformer-d224 loaded/.test(document.querySelector('[data-testid=tr-model-status]')?.textContent ?? ''), null, { timeout: 60000 });
  // The page answers clicks while the worker translates: another view opens with the run still going.
  await page.click('[data-testid=nav-compare]');
  await page.locator('[data-testid=cmp-run]').waitFor({ state: 'visible' });
  assert.match(await status(page), /Translating [0-2]\/3/);
  await page.click('[data-testid=nav-translate]');
  assert.equal(await page.locator('[data-testid=tr-output]').getAttribute('aria-busy'), 'true', 'the output is marked as not yet this input\'s');
  const sentence = 'Two dogs are playing in the snow.';
  await page.fill('[data-testid=tr-input]', sentence);
  await finished(page);
  const d224 = join(root, 'www', 'models', 'en-de', 'transformer-d224');
  assert.equal(await output(page), wgslate(['translate', '--model', d224, '--backend', 'cpu', '--beam', '16'], sentence + '\n').trim());
  assert.equal(await page.locator('[data-testid=tr-output]').getAttribute('aria-busy'), 'false');
  assert.deepEqual(errors, []);
});

test('the beam-16 long word itself is answered, with the CLI\'s output, while the page answers clicks', async () => {
  const errors = [];
  const word = 'abcdefghij'.repeat(50);
  const page = await openPage(rig.browser, rig.url + `#translate?backend=cpu&beam=16&text=${word}`, errors);
  await page.waitForFunction(() => /Translating/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 60000 });
  await page.click('[data-testid=nav-bleu]');
  await page.click('[data-testid=nav-translate]');
  await finished(page);
  assert.equal(await output(page), wgslate(['translate', '--model', model, '--backend', 'cpu', '--beam', '16'], word + '\n').trim());
  assert.deepEqual(errors, []);
});

test('Stop ends an evaluation in the worker after some sentences', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-stop]').waitFor({ timeout: 120000 });
  await page.waitForFunction(() => Number(document.querySelector('.evaluate progress')?.value) > 0, null, { timeout: 300000 });
  await page.click('[data-testid=eval-stop]');
  const note = page.locator('[data-testid=eval-note]');
  await note.waitFor({ timeout: 60000 });
  // Counts of 1 000 and more are written in groups of three.
  const [done, all] = (await note.textContent()).match(/Stopped after ([\d ]+) of ([\d ]+) sentences/).slice(1).map((n) => Number(n.replaceAll(' ', '')));
  assert.equal(all, 1000, await note.textContent());
  assert.ok(done > 0 && done < all, await note.textContent());
  assert.equal(await page.locator('[data-testid=eval-bleu]').count(), 0);
  assert.deepEqual(errors, []);
});

test('a crash of the engine worker is reported next to the input, and the next translation works', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  const long = Array.from({ length: 40 }, (_, i) => `A man with ${i} red balloons is walking past the old church.`).join(' ');
  await page.fill('[data-testid=tr-input]', long);
  await page.waitForFunction(() => /Translating/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.equal(await crashWorkers(page, 'engine', 'simulated crash'), 1, 'one engine worker runs');
  const error = page.locator('[data-testid=tr-input-error]');
  await error.waitFor({ timeout: 60000 });
  assert.match(await error.textContent(), /translation engine crashed \(.*simulated crash.*\); it has been restarted/);
  const sentence = 'A girl is reading a book.';
  await page.fill('[data-testid=tr-input]', sentence);
  await finished(page);
  assert.equal(await output(page), wgslate(['translate', '--model', model, '--backend', 'cpu'], sentence + '\n').trim());
  assert.equal(await page.locator('[data-testid=tr-input-error]').count(), 0);
  assert.deepEqual(errors.filter((e) => !/simulated crash/.test(e)), []);
});

// Throws in each of the page's workers named `name` (an uncaught error, as a crash); how many.
async function crashWorkers(page, name, message) {
  let crashed = 0;
  for (const w of page.workers()) {
    crashed += await w.evaluate(([n, m]) => {
      if (self.name !== n) return 0;
      setTimeout(() => { throw new Error(m); });
      return 1;
    }, [name, message]).catch(() => 0);
  }
  return crashed;
}

// Starts an evaluation of the first `n` test sentences in a browser that reports `cores` cores
// (and so gets that many engine workers).
async function startEvaluation(cores, n) {
  const errors = [];
  const page = await rig.browser.newPage({ serviceWorkers: 'block' });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript((c) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => c }), cores);
  await page.goto(rig.url + '#translate?backend=cpu');
  await page.fill('[data-testid=eval-count]', String(n));
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  await page.click('[data-testid=eval-run]');
  return { page, errors };
}

async function evaluateWithCores(cores, n, during = async () => {}) {
  const { page, errors } = await startEvaluation(cores, n);
  await during(page);
  const bleu = page.locator('[data-testid=eval-bleu]');
  await bleu.waitFor({ timeout: 600000 });
  return { page, errors, bleu: await bleu.textContent() };
}

function nativeBleu(n) {
  const data = (name) => readFileSync(join(root, 'www', 'data', name), 'utf8').split('\n').slice(0, n).join('\n') + '\n';
  const dir = mkdtempSync(join(tmpdir(), 'wgslate-pool-'));
  writeFileSync(join(dir, 'src'), data('test_2016_flickr.en'));
  writeFileSync(join(dir, 'ref'), data('test_2016_flickr.de'));
  return wgslate(['eval', '--model', model, '--src', join(dir, 'src'), '--ref', join(dir, 'ref'), '--backend', 'cpu']).match(/^ *BLEU\|\S+ = (\d+\.\d+)/m)[1];
}

test('a long CPU job is shared by one engine worker per core and gives what one engine gives, in order', async () => {
  const n = 40;
  const { page, errors, bleu } = await evaluateWithCores(3, n);
  assert.equal(bleu, nativeBleu(n), 'the same BLEU as `wgslate eval` on one thread');
  const names = [];
  for (const w of page.workers()) names.push(await w.evaluate(() => self.name));
  assert.deepEqual(names.filter((x) => x.startsWith('engine')).sort(), ['engine', 'engine-2', 'engine-3']);
  assert.equal(await page.locator('[data-testid=tr-backend]').textContent(), 'CPU (WebAssembly, up to 3 threads: chosen in Settings)');
  // Twelve sentences of one paste: three batches (one per worker), shown in the order typed.
  const sentences = Array.from({ length: 12 }, (_, i) => `A man with ${i + 2} red balloons is walking past the old church.`);
  await page.fill('[data-testid=tr-input]', sentences.join(' '));
  await finished(page);
  const expected = wgslate(['translate', '--model', model, '--backend', 'cpu'], sentences.join('\n') + '\n').trim().split('\n').join(' ');
  assert.equal(await output(page), expected);
  assert.deepEqual(errors, []);
});

test('a helper engine worker killed in the middle of an evaluation hands its batch back, and the BLEU is still `wgslate eval`\'s', async () => {
  const n = 400;
  let killed = 0;
  const { errors, bleu } = await evaluateWithCores(2, n, async (page) => {
    // The helper starts with the shared job; it is killed as soon as it is there.
    for (let i = 0; i < 1200 && killed === 0; i++) {
      killed += await crashWorkers(page, 'engine-2', 'simulated helper crash');
      if (killed === 0) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await page.locator('[data-testid=eval-bleu]').count(), 0, 'killed before the evaluation ended');
  });
  assert.equal(killed, 1, 'the helper was running');
  assert.equal(bleu, nativeBleu(n));
  assert.deepEqual(errors.filter((e) => !/simulated helper crash/.test(e)), []);
});

test('a crash of the main engine worker in the middle of a shared evaluation is reported as the crash, not as a Stop', async () => {
  const { page, errors } = await startEvaluation(2, 400);
  // The job is shared once the helper exists; the main worker is killed after some sentences.
  await page.waitForFunction(() => Number(document.querySelector('.evaluate progress')?.value) > 0, null, { timeout: 300000 });
  let shared = false;
  for (let i = 0; i < 1200 && !shared; i++) {
    const names = await Promise.all(page.workers().map((w) => w.evaluate(() => self.name).catch(() => '')));
    shared = names.includes('engine-2');
    if (!shared) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(shared, 'the helper engine worker shares the job');
  assert.equal(await crashWorkers(page, 'engine', 'simulated main crash'), 1, 'the main engine worker was running');
  const error = page.locator('[data-testid=tr-error]');
  await error.waitFor({ timeout: 120000 });
  assert.match(await error.textContent(), /Evaluation failed: .*translation engine crashed \(.*simulated main crash/);
  assert.equal(await page.locator('[data-testid=eval-note]').count(), 0, 'no "Stopped after" note');
  assert.equal(await page.locator('[data-testid=eval-bleu]').count(), 0);
  assert.deepEqual(errors.filter((e) => !/simulated main crash/.test(e)), []);
});
