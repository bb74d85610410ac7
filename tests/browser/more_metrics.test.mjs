// WER, PER and METEOR in the BLEU view: the headline and every line's figure equal `wgslate bleu`'s,
// METEOR's language follows the choice, and METEOR without its WordNet table says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, openPage, wgslate } from './harness.mjs';

const rig = useBrowser(8171);

const HYPS = ['A man is running down the street .', 'Two dogs play in the  snow', '', 'children sitting  on\ta bench'];
const REFS = [
  ['A man runs down the road.', 'Two dogs are playing in the snow.', 'A woman.', 'Kids sit on a bench.'],
  ['The man is jogging on the street.', 'two dogs playing in snow', '', 'Children are sitting on a bench.'],
];
const GERMAN_HYPS = ['Ein Mann läuft die Straße hinunter .', 'Zwei Hunde spielen im Schnee'];
const GERMAN_REFS = [['Ein Mann rennt die Straßen entlang.', 'Zwei Hunde spielten im Schnee.']];

/// The CLI's figures for the same text: corpus scores (one decimal, as the page shows them) and
/// each line's, per metric.
function cli(hyps, refs, language) {
  const dir = mkdtempSync(join(tmpdir(), 'wgslate-more-metrics-'));
  const write = (name, lines) => { writeFileSync(join(dir, name), lines.map((l) => l + '\n').join('')); return join(dir, name); };
  const hyp = write('hyp.txt', hyps);
  const refFiles = refs.map((r, k) => write(`ref${k}.txt`, r));
  const common = [...refFiles, '-i', hyp, '-l', `xx-${language}`];
  const scores = JSON.parse(wgslate(['bleu', ...common, '-m', 'wer', 'per', 'meteor', '-f', 'json', '-w', '1']));
  const lines = {};
  for (const m of ['wer', 'per', 'meteor']) {
    lines[m] = wgslate(['bleu', ...common, '-m', m, '-sl', '-b', '-w', '1']).trim().split('\n');
  }
  return { scores: Object.fromEntries(scores.map((s) => [s.name, s.score.toFixed(1)])), lines };
}

async function fill(page, hyps, refs) {
  await page.fill('[data-testid=bleu-hyp]', hyps.join('\n'));
  for (let k = 1; k < refs.length; k++) await page.click('[data-testid=bleu-add-ref]');
  for (let k = 0; k < refs.length; k++) await page.fill(`[data-testid=bleu-ref-${k}]`, refs[k].join('\n'));
}

async function pageFigures(page) {
  const figures = {};
  for (const m of ['wer', 'per', 'meteor']) figures[m] = await page.locator(`[data-testid=bleu-${m}]`).textContent();
  const lines = {};
  for (const m of ['wer', 'per', 'meteor']) {
    // The table in line order (its default): each row's cell for the metric.
    lines[m] = await page.locator(`[data-testid=bleu-lines] tbody td[data-metric=${m}]`).allTextContents();
  }
  return { figures, lines };
}

test('WER, PER and METEOR in the page equal the CLI, headline and per line', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await fill(page, HYPS, REFS);
  await page.check('[data-testid=bleu-meteor-on]');
  assert.equal(await page.locator('[data-testid=bleu-meteor-language]').inputValue(), 'en', 'English text reads as English');
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-meteor]').waitFor({ timeout: 60000 });
  const want = cli(HYPS, REFS, 'en');
  const got = await pageFigures(page);
  assert.deepEqual(got.figures, { wer: want.scores.WER, per: want.scores.PER, meteor: want.scores.METEOR });
  assert.deepEqual(got.lines, want.lines);
  // Two references: the error rates say they score the first one only.
  assert.match(await page.locator('[data-testid=bleu-first-reference]').textContent(), /WER and PER score the first reference only/);
  // The per-line table sorts by a new column.
  await page.click('[data-testid=bleu-lines] th:has-text("WER") button');
  const sorted = (await page.locator('[data-testid=bleu-lines] tbody td[data-metric=wer]').allTextContents()).map(Number);
  assert.deepEqual(sorted, [...sorted].sort((a, b) => a - b));
  assert.deepEqual(errors, []);
});

test('METEOR for German uses the Snowball stemmer, as the CLI with -l xx-de', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  // Without WordNet: the page must not even ask for the table.
  const asked = [];
  page.on('request', (r) => { if (r.url().includes('wordnet')) asked.push(r.url()); });
  await fill(page, GERMAN_HYPS, GERMAN_REFS);
  await page.check('[data-testid=bleu-meteor-on]');
  await page.selectOption('[data-testid=bleu-meteor-language]', 'de');
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-meteor]').waitFor({ timeout: 60000 });
  const want = cli(GERMAN_HYPS, GERMAN_REFS, 'de');
  const got = await pageFigures(page);
  assert.equal(got.figures.meteor, want.scores.METEOR);
  assert.deepEqual(got.lines.meteor, want.lines.meteor);
  assert.deepEqual(asked, []);
  assert.deepEqual(errors, []);
});

test('METEOR without its WordNet table (offline) says why; the other metrics stand', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await page.route('**/wordnet-3.0.bin', (route) => route.abort('internetdisconnected'));
  await fill(page, HYPS, REFS);
  await page.check('[data-testid=bleu-meteor-on]');
  await page.click('[data-testid=bleu-run]');
  const failed = page.locator('[data-testid=bleu-meteor-error]');
  await failed.waitFor({ timeout: 60000 });
  assert.match(await failed.textContent(), /WordNet's synonym table/);
  assert.equal(await page.locator('[data-testid=bleu-wer]').textContent(), cli(HYPS, REFS, 'en').scores.WER);
  assert.ok(errors.every((e) => /wordnet|Failed to fetch|net::/i.test(e)), errors.join('\n'));
});
