// The BLEU page end to end: sacreBLEU's numbers in the page, clear errors, no injection, big inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { useBrowser, launch, openPage, golden, screenshots, root, fillBleuFields } from './harness.mjs';

const rig = useBrowser(8131);

async function fillCase(page, hyps, refs) {
  await page.fill('[data-testid=bleu-hyp]', hyps.join('\n'));
  for (let k = 1; k < refs.length; k++) await page.click('[data-testid=bleu-add-ref]');
  for (let k = 0; k < refs.length; k++) await page.fill(`[data-testid=bleu-ref-${k}]`, refs[k].join('\n'));
}

test('the golden orejuela case shows sacreBLEU’s score and counts', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  const c = golden('orejuela-4refs');
  await fillCase(page, c.hyps, c.refs);
  await page.click('[data-testid=bleu-run]');
  const score = page.locator('[data-testid=bleu-score]');
  await score.waitFor();
  assert.equal(await score.textContent(), c.expected.score.toFixed(1));
  assert.equal(await score.textContent(), '41.8');
  assert.equal(await page.locator('[data-testid=bleu-status][role=status]').textContent(), 'BLEU 41.8', 'announced to screen readers');
  const want = ['15/18', '10/17', '5/16', '3/15'];
  for (let n = 1; n <= 4; n++) {
    assert.equal(await page.locator(`[data-testid=bleu-count-${n}]`).textContent(), want[n - 1]);
    assert.equal(`${c.expected.counts[n - 1]}/${c.expected.totals[n - 1]}`, want[n - 1]);
  }
  assert.equal(await page.locator('[data-testid=bleu-signature]').textContent(), c.signature);
  // Each signature line says whose it is.
  assert.deepEqual(await page.locator('.signature .metric-name').allTextContents(), ['BLEU', 'chrF2', 'TER', 'WER', 'PER']);
  assert.equal(await page.locator('[data-testid=bleu-chrf]').textContent(), golden('orejuela-4refs-chrf').expected.score.toFixed(1));
  assert.equal(await page.locator('[data-testid=bleu-ter]').textContent(), golden('orejuela-4refs-ter').expected.score.toFixed(1));
  // Selecting the line shows its tokens with the matched n-grams marked.
  await page.click('[data-testid=bleu-lines] tbody tr');
  const detail = page.locator('[data-testid=bleu-line-detail]');
  await detail.waitFor();
  assert.ok(await detail.locator('.tok.m4').count() > 0, 'some tokens are inside matched 4-grams');
  await page.screenshot({ path: join(screenshots, 'bleu.png'), fullPage: true });
  assert.equal(await page.locator('[data-testid=bleu-smoothed]').count(), 0, 'every order matched: nothing smoothed');
  assert.deepEqual(errors, []);
});

test('an order with no match says its precision is the smoothing\'s', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await fillCase(page, ['the cat sat on a mat'], [['the cat is on the mat']]);
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-score]').waitFor();
  assert.equal(await page.locator('[data-testid=bleu-count-4]').textContent(), '0/3');
  assert.match(await page.locator('[data-testid=bleu-smoothed]').textContent(), /no match has a precision above 0: the smoothing/);
  assert.deepEqual(errors, []);
});

test('mismatched line counts and empty input show a message, not a crash', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-error]').waitFor();
  assert.match(await page.locator('[data-testid=bleu-error]').textContent(), /system output/);
  await page.fill('[data-testid=bleu-hyp]', 'a b c\nd e f');
  await page.fill('[data-testid=bleu-ref-0]', 'a b c');
  await page.click('[data-testid=bleu-run]');
  await page.waitForFunction(() => /Line counts differ/.test(document.querySelector('[data-testid=bleu-error]')?.textContent ?? ''));
  assert.match(await page.locator('[data-testid=bleu-error]').textContent(), /2 lines but reference 1 has 1/);
  assert.equal(await page.locator('[data-testid=bleu-score]').count(), 0);
  assert.deepEqual(errors, []);
});

test('blank lines and a byte order mark count as sacreBLEU counts them', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  const upload = (box, name, text) =>
    page.setInputFiles(`[data-testid=${box}] ~ label input[type=file]`, { name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  const ref = 'Zwei Hunde spielen im Schnee.\nEin Kind lacht.\nDrei Vögel fliegen.\n';
  await upload('bleu-ref-0', 'ref.txt', ref);
  // sacreBLEU 2.6.0 (`sacrebleu ref.txt -i hyp.txt -m bleu chrf ter`) keeps the mark in the first
  // line: BLEU 87.68, chrF 99.58, TER 9.09.
  await upload('bleu-hyp', 'bom.txt', '\ufeff' + ref);
  await page.click('[data-testid=bleu-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-score]')?.textContent === '87.7');
  assert.equal(await page.locator('[data-testid=bleu-chrf]').textContent(), '99.6');
  assert.equal(await page.locator('[data-testid=bleu-ter]').textContent(), '9.1');
  // Three empty lines are three empty segments: 0.0, 0.0 and 100.0 in sacreBLEU, not missing input.
  await upload('bleu-hyp', 'blank.txt', '\n\n\n');
  await page.click('[data-testid=bleu-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-score]')?.textContent === '0.0');
  assert.equal(await page.locator('[data-testid=bleu-chrf]').textContent(), '0.0');
  assert.equal(await page.locator('[data-testid=bleu-ter]').textContent(), '100.0');
  assert.equal(await page.locator('[data-testid=bleu-error]').count(), 0);
  // A carriage return alone does not end a line for sacreBLEU (`sacrebleu ref.txt -i cr.txt` with
  // a two-line reference: "different lengths"; against itself, 100.0): one line, and the count says why.
  const cr = 'Ein Hund läuft.\rEine Katze schläft.\n';
  await upload('bleu-hyp', 'cr.txt', cr);
  await upload('bleu-ref-0', 'cr-ref.txt', cr);
  await page.waitForFunction(() => /^1 line \(a carriage return alone/.test(document.querySelector('[data-testid=bleu-hyp] ~ .lines')?.textContent ?? ''));
  await page.click('[data-testid=bleu-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-score]')?.textContent === '100.0');
  await upload('bleu-hyp', 'crlf.txt', 'Ein Hund läuft.\r\nEine Katze schläft.\r\n');
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-hyp] ~ .lines')?.textContent === '2 lines');
  // A file that is not UTF-8 is refused; the message goes once a readable file is loaded, and once the user types.
  const latin1 = { name: 'latin1.txt', mimeType: 'text/plain', buffer: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) };
  await page.setInputFiles('[data-testid=bleu-hyp] ~ label input[type=file]', latin1);
  await page.waitForFunction(() => /latin1\.txt is not UTF-8/.test(document.querySelector('[data-testid=bleu-file-error]')?.textContent ?? ''));
  await upload('bleu-hyp', 'good.txt', ref);
  await page.locator('[data-testid=bleu-file-error]').waitFor({ state: 'detached' });
  await page.setInputFiles('[data-testid=bleu-hyp] ~ label input[type=file]', latin1);
  await page.locator('[data-testid=bleu-file-error]').waitFor();
  await page.locator('[data-testid=bleu-ref-0]').pressSequentially('x');
  await page.locator('[data-testid=bleu-file-error]').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
});

test('scores are marked out of date once the inputs or options change', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await fillCase(page, ['the cat sat on the mat'], [['the cat sat on a mat']]);
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-score]').waitFor();
  assert.equal(await page.locator('[data-testid=bleu-stale]').count(), 0);
  await page.fill('[data-testid=bleu-hyp]', 'totally different');
  await page.locator('[data-testid=bleu-stale]').waitFor();
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-score]').waitFor();
  assert.equal(await page.locator('[data-testid=bleu-stale]').count(), 0, 'Compute clears the mark');
  await page.click('[data-testid=bleu-lowercase]');
  await page.locator('[data-testid=bleu-stale]').waitFor();
  assert.deepEqual(errors, []);
});

test('pasted markup is shown as text', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  const evil = '<img src=x onerror="window.__pwned=1"> <b>bold</b>';
  await page.fill('[data-testid=bleu-hyp]', evil);
  await page.fill('[data-testid=bleu-ref-0]', 'a reference');
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-lines] td.text').first().waitFor();
  assert.equal(await page.locator('[data-testid=bleu-lines] td.text').first().textContent(), evil);
  assert.equal(await page.locator('.results img').count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(errors, []);
});

test('10 000 lines are scored with progress while the page stays responsive', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  const words = ['ein', 'Mann', 'mit', 'einem', 'Hund', 'läuft', 'über', 'die', 'Straße', 'und', 'lacht', '.'];
  const line = (i, shift) => Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3 + shift) % words.length]).join(' ');
  const hyps = Array.from({ length: 10000 }, (_, i) => line(i, i % 3));
  const refs = Array.from({ length: 10000 }, (_, i) => line(i, 0));
  // The app mounts after the wasm loads; the helper writes into the fields only once they exist.
  await fillBleuFields(page, hyps.join('\n'), refs.join('\n'));
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-progress]').waitFor();
  // The main thread answers while the computation runs.
  const t0 = Date.now();
  assert.equal(await page.evaluate(() => 1 + 1), 2);
  const answered = Date.now() - t0;
  await page.locator('[data-testid=bleu-score]').waitFor({ timeout: 300000 });
  console.log(`page answered in ${answered} ms during the 10 000-line computation`);
  assert.equal(await page.locator('[data-testid=bleu-lines] tbody tr').count(), 100);
  assert.deepEqual(errors, []);
});

test('files can be picked, and a second system gets a paired bootstrap test', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  const data = join(root, 'crates', 'cli', 'tests', 'data');
  await page.setInputFiles('[data-testid=bleu-hyp] ~ label input[type=file]', join(data, 'hyp1.de'));
  await page.setInputFiles('[data-testid=bleu-ref-0] ~ label input[type=file]', join(data, 'ref.de'));
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-hyp]').value.length > 1000);
  // Picking the same file again reloads it over an edit (the input is emptied after each pick).
  await page.fill('[data-testid=bleu-hyp]', 'edited by hand');
  await page.setInputFiles('[data-testid=bleu-hyp] ~ label input[type=file]', join(data, 'hyp1.de'));
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-hyp]').value.length > 1000);
  await page.click('details.second summary');
  await page.setInputFiles('[data-testid=bleu-hyp2] ~ label input[type=file]', join(data, 'hyp2.de'));
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-hyp2]').value.length > 1000);
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-paired]').waitFor();
  // The same numbers as `wgslate bleu ref.de -i hyp1.de hyp2.de --paired-bs` (recorded from sacreBLEU).
  const recorded = JSON.parse(readFileSync(join(data, 'sacrebleu_cli.json'), 'utf8')).cases.find((c) => c.args === 'ref.de -i hyp1.de hyp2.de --paired-bs');
  const [base, sys] = JSON.parse(recorded.stdout);
  assert.equal(await page.locator('[data-testid=bleu-score]').textContent(), base.BLEU.score.toFixed(1));
  const text = await page.locator('[data-testid=bleu-paired]').textContent();
  assert.ok(text.includes(`p = ${sys.BLEU.p_value.toFixed(4)}`), text);
  assert.ok(text.includes(`(μ = ${sys.BLEU.mean.toFixed(1)} ± ${sys.BLEU.ci.toFixed(1)})`), text);
  assert.ok(text.includes('significant') && !text.includes('same output'), text);
  // sacreBLEU signs a paired test's BLEU with its resamples and seed.
  const signed = JSON.parse(readFileSync(join(data, 'sacrebleu_cli.json'), 'utf8')).cases
    .find((c) => c.args === 'ref.de -i hyp1.de hyp2.de hyp3.de --paired-bs -f text -m bleu chrf ter').stdout
    .split('\n').find((l) => l.startsWith(' - BLEU ')).slice(' - BLEU'.length).trim();
  assert.equal(await page.locator('[data-testid=bleu-signature]').textContent(), signed);
  assert.ok(signed.includes('|bs:1000|seed:12345|'), signed);
  // The baseline against itself: sacreBLEU gives p = 0.0010 (1 / 1001, starred), a "difference" the page
  // does not call significant.
  await page.setInputFiles('[data-testid=bleu-hyp2] ~ label input[type=file]', join(data, 'hyp1.de'));
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-hyp2]').value === document.querySelector('[data-testid=bleu-hyp]').value);
  await page.click('[data-testid=bleu-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-paired]')?.textContent.includes('same output'));
  const same = await page.locator('[data-testid=bleu-paired]').textContent();
  assert.ok(same.includes('p = 0.0010') && !same.includes('significant'), same);
  assert.deepEqual(errors, []);
});

test('an empty file or two dropped files leave the box as it was, with a message; dropped text is the browser\'s to insert', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await page.fill('[data-testid=bleu-hyp]', 'Typed by hand.\nSecond line.');
  await page.setInputFiles('[data-testid=bleu-hyp] ~ label input[type=file]', { name: 'zero.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) });
  await page.locator('[data-testid=bleu-file-error]').waitFor();
  assert.equal(await page.locator('[data-testid=bleu-file-error]').textContent(), 'zero.txt is empty: the box keeps its text.');
  assert.equal(await page.inputValue('[data-testid=bleu-hyp]'), 'Typed by hand.\nSecond line.');
  // UTF-16 without a byte order mark is valid UTF-8 (every other byte zero), but not the text.
  const utf16 = Buffer.from('A dog runs.\nTwo men fish.\n', 'utf16le');
  await page.setInputFiles('[data-testid=bleu-hyp] ~ label input[type=file]', { name: 'notepad.txt', mimeType: 'text/plain', buffer: utf16 });
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-file-error]')?.textContent.includes('notepad.txt'));
  assert.equal(await page.locator('[data-testid=bleu-file-error]').textContent(), 'notepad.txt looks like UTF-16 text without a byte order mark (every other byte is zero); save it as UTF-8 and open it again');
  assert.equal(await page.inputValue('[data-testid=bleu-hyp]'), 'Typed by hand.\nSecond line.');
  // A drop of two files, and a drop of text (the default action of a drop on a textarea inserts it).
  const prevented = await page.evaluate(() => {
    const box = document.querySelector('[data-testid=bleu-ref-0]');
    const drop = (fill) => {
      const dt = new DataTransfer();
      fill(dt);
      const ev = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
      box.dispatchEvent(ev);
      return ev.defaultPrevented;
    };
    return {
      files: drop((dt) => ['a.txt', 'b.txt'].forEach((n) => dt.items.add(new File(['x\n'], n, { type: 'text/plain' })))),
      text: drop((dt) => dt.setData('text/plain', 'dragged words')),
    };
  });
  assert.deepEqual(prevented, { files: true, text: false });
  // A file dropped anywhere else (the page's heading, the Translate box) does not make the browser open it in place of the page.
  const elsewhere = await page.evaluate(() => ['h2', '[data-testid=tr-input]'].map((at) => ['dragover', 'drop'].map((type) => {
    const dt = new DataTransfer();
    dt.items.add(new File(['x\n'], 'a.txt', { type: 'text/plain' }));
    const ev = new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true });
    document.querySelector(at).dispatchEvent(ev);
    return ev.defaultPrevented;
  })));
  assert.deepEqual(elsewhere, [[true, true], [true, true]]);
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-file-error]')?.textContent.includes('2 files were dropped'));
  assert.equal(await page.inputValue('[data-testid=bleu-ref-0]'), '');
  assert.deepEqual(errors, []);
});

test('the test browser has a real WebGPU adapter', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url, errors);
  const info = await page.evaluate(async () => {
    if (!navigator.gpu) return null;
    const adapter = await navigator.gpu.requestAdapter();
    return adapter ? { ok: true } : null;
  });
  assert.ok(info, 'navigator.gpu.requestAdapter() returned an adapter');
});

test('the BLEU page works without WebGPU', async () => {
  const plain = await launch({ webgpu: false });
  try {
    const errors = [];
    const page = await openPage(plain, rig.url + '#bleu', errors);
    const c = golden('orejuela-4refs');
    await fillCase(page, c.hyps, c.refs);
    await page.click('[data-testid=bleu-run]');
    await page.locator('[data-testid=bleu-score]').waitFor();
    assert.equal(await page.locator('[data-testid=bleu-score]').textContent(), '41.8');
    assert.deepEqual(errors, []);
  } finally {
    await plain.close();
  }
});

test('a reload keeps the boxes’ text (the tab’s sessionStorage), references and second system included', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await page.fill('[data-testid=bleu-hyp]', 'Ein Hund läuft.\nZwei Katzen.');
  await page.fill('[data-testid=bleu-ref-0]', 'Ein Hund rennt.\nZwei Katzen.');
  await page.click('[data-testid=bleu-add-ref]');
  await page.fill('[data-testid=bleu-ref-1]', 'Der Hund läuft.\nZwei Katzen schlafen.');
  await page.click('details.second summary');
  await page.fill('[data-testid=bleu-hyp2]', 'Ein Hund.\nKatzen.');
  await page.reload();
  await page.locator('[data-testid=bleu-ref-1]').waitFor();
  assert.equal(await page.inputValue('[data-testid=bleu-hyp]'), 'Ein Hund läuft.\nZwei Katzen.');
  assert.equal(await page.inputValue('[data-testid=bleu-ref-0]'), 'Ein Hund rennt.\nZwei Katzen.');
  assert.equal(await page.inputValue('[data-testid=bleu-ref-1]'), 'Der Hund läuft.\nZwei Katzen schlafen.');
  assert.equal(await page.inputValue('[data-testid=bleu-hyp2]'), 'Ein Hund.\nKatzen.');
  assert.equal(await page.locator('details.second[open]').count(), 1, 'the second system is shown, not hidden with text in it');
  // A new tab starts empty: sessionStorage is the tab's own.
  const fresh = await openPage(rig.browser, rig.url + '#bleu', errors);
  assert.equal(await fresh.inputValue('[data-testid=bleu-hyp]'), '');
  // Boxes larger than the tab's storage come back empty, and the page says why (it said nothing).
  const big = Buffer.from('Ein Hund läuft durch den Schnee.\n'.repeat(200000));
  for (const box of ['bleu-hyp', 'bleu-ref-0']) {
    await fresh.setInputFiles(`[data-testid=${box}] ~ label input[type=file]`, { name: 'big.txt', mimeType: 'text/plain', buffer: big });
    await fresh.waitForFunction((b) => document.querySelector(`[data-testid=${b}]`).value.length > 6e6, box, { timeout: 60000 });
  }
  await fresh.reload();
  await fresh.locator('[data-testid=bleu-file-error]').waitFor();
  assert.match(await fresh.locator('[data-testid=bleu-file-error]').textContent(), /^The boxes held more text than this browser keeps across a reload/);
  assert.equal(await fresh.inputValue('[data-testid=bleu-hyp]'), '');
  // Once: the empty boxes are kept, and the next reload has nothing to explain.
  await fresh.reload();
  await fresh.locator('[data-testid=bleu-hyp]').waitFor();
  assert.equal(await fresh.locator('[data-testid=bleu-file-error]').count(), 0);
  assert.deepEqual(errors, []);
});
