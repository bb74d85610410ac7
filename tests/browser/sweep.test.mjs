// The decoding sweep in Translate: beam 1, 2 and 4 on the first 50 test sentences give the figures
// of three `wgslate eval` runs, with a chart, a CSV, and a clear message for values out of range.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, openPage, root, wgslate } from './harness.mjs';

const rig = useBrowser(8172);
const N = 50;
const model = join(root, 'www', 'models', 'en-de', 'transformer');

/// One plain `wgslate eval` per beam: BLEU and chrF2 with two decimals, as the table shows them.
function nativeRows(beams) {
  const data = (name) => readFileSync(join(root, 'www', 'data', name), 'utf8').split('\n').slice(0, N).join('\n') + '\n';
  const dir = mkdtempSync(join(tmpdir(), 'wgslate-sweep-'));
  writeFileSync(join(dir, 'src'), data('test_2016_flickr.en'));
  writeFileSync(join(dir, 'ref'), data('test_2016_flickr.de'));
  return beams.map((beam) => {
    const out = wgslate(['eval', '--model', model, '--src', join(dir, 'src'), '--ref', join(dir, 'ref'), '--backend', 'cpu', '--beam', String(beam)]);
    const bleu = out.match(/^ *BLEU\|\S+ = (\d+\.\d+) .*ratio = (\d+\.\d+)/m);
    const chrf = out.match(/^ *chrF2\|\S+ = (\d+\.\d+)/m)[1];
    return [String(beam), bleu[1], chrf, bleu[2]];
  });
}

test('a sweep of beam 1, 2, 4 on 50 sentences equals three wgslate eval runs', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  await page.click('[data-testid=sweep] summary');
  await page.fill('[data-testid=sweep-values]', '1,2,4');
  await page.fill('[data-testid=sweep-count]', String(N));
  // The test set must be in before a run: the examples list shows it.
  await page.locator('[data-testid=eval-run]').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=eval-run]')?.getAttribute('aria-disabled') === 'false', null, { timeout: 60000 });
  await page.click('[data-testid=sweep-run]');
  await page.locator('[data-testid=sweep-status]').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=sweep-table] tbody tr').length === 3
    && !document.querySelector('[data-testid=sweep-stop]'), null, { timeout: 600000 });
  const rows = await page.locator('[data-testid=sweep-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  const want = nativeRows([1, 2, 4]);
  // value, BLEU, chrF2 as printed; the ratio to sacreBLEU's three decimals.
  assert.deepEqual(rows.map((r) => r.slice(0, 4)), want);
  assert.equal(await page.locator('[data-testid=sweep-chart] polyline').count(), 3);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=sweep-csv]')]);
  const csv = readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'beam,BLEU,chrF2,ratio,hyp_len,ref_len,seconds');
  assert.deepEqual(csv.slice(1).map((l) => l.split(',').slice(0, 4)), want);
  assert.deepEqual(errors, []);
});

test('values out of range get a message, not a run', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  await page.click('[data-testid=sweep] summary');
  await page.fill('[data-testid=sweep-values]', '1,99');
  await page.click('[data-testid=sweep-run]');
  assert.match(await page.locator('[data-testid=sweep-error]').textContent(), /beam width must be between 1 and 16, not 99/);
  assert.equal(await page.locator('[data-testid=sweep-table]').count(), 0);
  assert.deepEqual(errors, []);
});
