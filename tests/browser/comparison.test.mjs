// Where two systems differ, in the BLEU view: its tables equal `wgslate compare --json`'s, a line that
// differs opens in the other views with its source, and large or uneven input gets a message or a
// bounded, responsive page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useBrowser, openPage, wgslate, root, fillBleuFields } from './harness.mjs';

const rig = useBrowser(8173);
const data = join(root, 'crates', 'cli', 'tests', 'data');
// ref.de is the first 300 lines of test_2016_flickr.de: these are their sources.
const SOURCES = readFileSync(join(root, 'www', 'data', 'test_2016_flickr.en'), 'utf8').split('\n').slice(0, 300);

async function setBox(page, testid, text) {
  await page.evaluate(([id, t]) => {
    const el = document.querySelector(`[data-testid=${id}]`);
    el.value = t;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, [testid, text]);
}

/// A table's body as rows of cell texts (the row header first).
function rows(page, testid) {
  return page.locator(`[data-testid=${testid}] tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
}

/// The page's 4-decimal figure against the CLI's: equal to its last shown digit.
function close(shown, want, what) {
  assert.ok(Math.abs(Number(shown) - want) <= 0.00005 + 1e-12, `${what}: page ${shown}, CLI ${want}`);
}

async function openWithSecondSystem(errors) {
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  const read = (name) => readFileSync(join(data, name), 'utf8');
  await fillBleuFields(page, read('hyp1.de'), read('ref.de'));
  await page.click('details.second summary');
  await setBox(page, 'bleu-hyp2', read('hyp2.de'));
  return page;
}

test('the comparison\'s tables equal `wgslate compare --json` on the same files', async () => {
  const errors = [];
  const page = await openWithSecondSystem(errors);
  await setBox(page, 'bleu-src', SOURCES.join('\n'));
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-diff-top]').waitFor({ timeout: 120000 });
  const want = JSON.parse(wgslate(['compare', join(data, 'ref.de'), join(data, 'hyp1.de'), join(data, 'hyp2.de'), '--json']));

  const length = await rows(page, 'bleu-diff-length');
  assert.equal(length.length, want.length_buckets.length + 1);
  assert.deepEqual(length[0].slice(0, 2), ['all', String(want.lines)]);
  close(length[0][2], want.bleu[0], 'BLEU all sys1');
  close(length[0][3], want.bleu[1], 'BLEU all sys2');
  want.length_buckets.forEach((b, k) => {
    const [label, lines, s1, s2] = length[k + 1];
    assert.deepEqual([label, lines], [b.label, String(b.lines)]);
    close(s1, b.bleu[0], `length ${b.label} sys1`);
    close(s2, b.bleu[1], `length ${b.label} sys2`);
  });

  const freq = await rows(page, 'bleu-diff-frequency');
  assert.equal(freq.length, want.frequency_buckets.length);
  want.frequency_buckets.forEach((b, k) => {
    const [label, refWords, w1, f1, w2, f2] = freq[k];
    assert.deepEqual([label, refWords, w1, w2], [b.label, String(b.ref_words), String(b.systems[0].words), String(b.systems[1].words)]);
    close(f1, b.systems[0].f_measure, `frequency ${b.label} sys1`);
    close(f2, b.systems[1].f_measure, `frequency ${b.label} sys2`);
  });

  for (const s of [0, 1]) {
    const ngrams = await rows(page, `bleu-diff-ngrams-${s + 1}`);
    // The page keeps, of compare-mt's list, the n-grams on the system's side (ties and the other's left out).
    const wanted = want.ngrams[s].filter((d) => (s === 0 ? d.score > 0.5 : d.score < 0.5));
    assert.equal(ngrams.length, wanted.length);
    assert.ok(ngrams.length > 0, 'the systems differ in some n-gram');
    wanted.forEach((d, k) => {
      const [ngram, score, m1, m2] = ngrams[k];
      assert.deepEqual([ngram, m1, m2], [d.ngram, String(d.matches[0]), String(d.matches[1])]);
      close(score, d.score, `n-gram ${d.ngram}`);
    });
  }

  const histogram = await rows(page, 'bleu-diff-histogram');
  assert.deepEqual(histogram.map((r) => r.slice(0, 2)), want.histogram.map((b) => [b.label, String(b.lines)]));

  const top = await rows(page, 'bleu-diff-top');
  assert.deepEqual(top.map((r) => r.slice(0, 4)), want.top_lines.map((d) => [String(d.line), d.bleu[0].toFixed(1), d.bleu[1].toFixed(1), d.difference.toFixed(1)]));

  // The line that differs most opens in Compare with its source as the text.
  const first = want.top_lines[0].line;
  await page.click(`[data-testid=bleu-diff-top] a[aria-label="Open line ${first} in Compare"]`);
  await page.waitForFunction(() => location.hash.startsWith('#compare'));
  await page.locator('[data-testid=cmp-run]').waitFor({ state: 'visible' });
  assert.equal(new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('text'), SOURCES[first - 1]);
  // Back returns to the comparison, which is still there.
  await page.goBack();
  await page.locator('[data-testid=bleu-diff-top]').waitFor({ state: 'visible' });
  assert.deepEqual(errors, []);
});

test('a source with other line counts is named and the lines do not link; fewer system lines are refused', async () => {
  const errors = [];
  const page = await openWithSecondSystem(errors);
  await setBox(page, 'bleu-src', SOURCES.slice(0, 10).join('\n'));
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-diff-source-problem]').waitFor({ timeout: 120000 });
  assert.match(await page.locator('[data-testid=bleu-diff-source-problem]').textContent(), /source has 10 lines but the hypothesis has 300/);
  assert.equal(await page.locator('[data-testid=bleu-diff-top] a').count(), 0);
  // On a phone the tables scroll inside themselves; the page does not scroll sideways.
  await page.setViewportSize({ width: 360, height: 740 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scrolling at 360 px');
  await page.setViewportSize({ width: 1280, height: 900 });
  // A second system with fewer lines: a message, the boxes kept.
  const fewer = readFileSync(join(data, 'hyp2.de'), 'utf8').split('\n').slice(0, 120).join('\n');
  await setBox(page, 'bleu-hyp2', fewer);
  await page.click('[data-testid=bleu-run]');
  await page.waitForFunction(() => /second system has 120 lines but the hypothesis has 300/.test(document.querySelector('[data-testid=bleu-error]')?.textContent ?? ''));
  assert.equal(await page.locator('[data-testid=bleu-hyp2]').inputValue(), fewer);
  assert.deepEqual(errors, []);
});

test('100 000 lines with a 10 000-word line: every metric and the comparison, the page answering throughout', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  const refLines = readFileSync(join(data, 'ref.de'), 'utf8').trimEnd().split('\n');
  const n = 100000;
  const refs = Array.from({ length: n }, (_, i) => refLines[i % refLines.length]);
  const drop = (line, k) => line.split(' ').filter((_, j) => j !== k).join(' ');
  const hyps = refs.map((r, i) => (i % 3 === 0 ? drop(r, 1) : r));
  const second = refs.map((r, i) => (i % 4 === 0 ? drop(r, 0) : r));
  const long = Array.from({ length: 10000 }, (_, k) => refLines[k % 50].split(' ')[k % 3] ?? 'Hund').join(' ');
  hyps[777] = long;
  refs[777] = long.split(' ').reverse().join(' ');
  await fillBleuFields(page, hyps.join('\n'), refs.join('\n'));
  await page.click('details.second summary');
  await setBox(page, 'bleu-hyp2', second.join('\n'));
  await page.check('[data-testid=bleu-meteor-on]');
  await page.selectOption('[data-testid=bleu-meteor-language]', 'de');
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-progress]').waitFor();
  let slowest = 0;
  while (await page.locator('[data-testid=bleu-progress]').count() > 0) {
    const t0 = Date.now();
    await page.evaluate(() => 1 + 1);
    slowest = Math.max(slowest, Date.now() - t0);
    await page.waitForTimeout(500);
  }
  console.log(`the page answered within ${slowest} ms while 100 000 lines were scored and compared`);
  assert.ok(slowest < 2000, `the page froze for ${slowest} ms`);
  await page.locator('[data-testid=bleu-diff-top]').waitFor({ timeout: 600000 });
  for (const m of ['score', 'chrf', 'ter', 'wer', 'per', 'meteor']) {
    assert.match(await page.locator(`[data-testid=bleu-${m}]`).textContent(), /^\d+\.\d$/, m);
  }
  assert.equal((await rows(page, 'bleu-diff-length'))[0][1], String(n));
  // The table shows a page of lines, not 100 000 rows.
  assert.equal(await page.locator('[data-testid=bleu-lines] tbody tr').count(), 100);
  assert.deepEqual(errors, []);
});

test('greedy and beam evaluations open side by side: the second as the second system, with their sources', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?model=en-de%2Fgru', errors);
  const n = 6;
  await page.fill('[data-testid=eval-count]', String(n));
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 300000 });
  await page.click('[data-testid=eval-open-bleu]');
  await page.locator('[data-testid=bleu-score]').waitFor({ timeout: 60000 });
  const greedy = await page.locator('[data-testid=bleu-hyp]').inputValue();
  await page.goBack();
  await page.fill('[data-testid=tr-beam]', '4');
  await page.locator('[data-testid=tr-beam]').blur();
  await page.locator('[data-testid=eval-stale]').waitFor();
  await page.click('[data-testid=eval-run]');
  await page.locator('[data-testid=eval-stale]').waitFor({ state: 'detached', timeout: 300000 });
  await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 300000 });
  await page.click('[data-testid=eval-open-bleu-second]');
  await page.locator('[data-testid=bleu-diff]').waitFor({ timeout: 60000 });
  // The greedy output stays the hypothesis; the beam output is the second system; the sources came along.
  assert.equal(await page.locator('[data-testid=bleu-hyp]').inputValue(), greedy);
  assert.equal((await page.locator('[data-testid=bleu-hyp2]').inputValue()).split('\n').length, n);
  assert.equal(await page.locator('[data-testid=bleu-src]').inputValue(), SOURCES.slice(0, n).join('\n'));
  assert.equal((await rows(page, 'bleu-diff-length'))[0][1], String(n));
  assert.equal(await page.locator('[data-testid=bleu-paired]').count(), 1);
  const linked = await page.locator('[data-testid=bleu-diff-top] a').count();
  assert.equal(linked, 3 * (await page.locator('[data-testid=bleu-diff-top] tbody tr').count()));
  assert.deepEqual(errors, []);
});
