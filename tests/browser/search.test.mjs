// The Search view: the traced search gives the CLI's translation, moving α re-ranks the finished
// hypotheses as the exported trace says, picking a word's alternative gives `wgslate translate
// --prefix`, greedy shows each step's choices, a given translation gets `wgslate score`'s total, and
// bad prefixes or a 5 000-character translation get a message or a bounded view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, openPage, wgslate, root } from './harness.mjs';

const rig = useBrowser(8174);
const GRU = join(root, 'www', 'models', 'en-de', 'gru');
const SENTENCE = 'A man in an orange hat starring at something.';
// test_2016_flickr's third sentence: its beam-4 hypotheses re-rank at α = 1.
const RERANKS = "A girl in karate uniform breaking a stick with a front kick.";
const LONGER = 'Two young children in blue shirts are playing with a ball on the grass near a river while their parents watch.';

function cli(args, input) {
  return wgslate(['translate', '--model', GRU, '--backend', 'cpu', ...args], input).trim();
}

async function search(page, query, text = SENTENCE) {
  await page.goto(rig.url + `#search?model=en-de%2Fgru&${query}&text=${encodeURIComponent(text)}`);
  await page.click('[data-testid=search-run]');
  await page.locator('[data-testid=search-results]').waitFor({ timeout: 180000 });
}

const output = (page) => page.locator('[data-testid=search-output]').evaluate((e) => e.textContent.trim());

/// GNMT's length penalty as the trace's scores use it (crates/decode/src/penalties.rs).
function rescore(trace, alpha) {
  return trace.finished.map((f) => {
    const divisor = alpha === 0 ? 1 : Math.pow((5 + Math.max(f.terms.length, 1)) / 6, alpha);
    return f.terms.log_prob / divisor + trace.scoring.coverage * f.coverage_log_sum + trace.scoring.end_penalty * f.terms.length / Math.max(trace.source_len, 1);
  });
}

test('beam 4: the CLI\'s translation, its tree, and α re-ranking as the trace says', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url, errors);
  await search(page, 'beam=4', RERANKS);
  assert.equal(await output(page), cli(['--beam', '4'], RERANKS));
  const finished = await page.locator('[data-testid=search-finished-row]').count();
  assert.ok(finished >= 4, `${finished} finished hypotheses`);
  assert.equal(await page.locator('[data-testid=search-tree] g.node.finished').count(), finished);
  // The exported trace is what the page ranks by.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=search-export-json]')]);
  const trace = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(trace.finished.length, finished);
  for (const n of trace.nodes.slice(1)) {
    const f = Math.fround;
    assert.equal(f(f(trace.nodes[n.parent].log_prob) + f(n.token_log_prob)), f(n.log_prob), "log-probs add up (f32)");
  }
  const order = (alpha) => rescore(trace, alpha).map((s, i) => [s, i]).sort((a, b) => b[0] - a[0]).map((x) => x[1]);
  // Move α until the ranking changes; the page's order is the trace's.
  let moved = false;
  for (const alpha of ['1', '2', '3', '5']) {
    await page.locator('[data-testid=search-alpha]').fill(alpha);
    const shown = await page.locator('[data-testid=search-finished-row]').evaluateAll((rows) => rows.map((r) => Number(r.dataset.finished)));
    assert.deepEqual(shown, order(Number(alpha)), `α = ${alpha}`);
    if ((await page.locator('[data-testid=search-moved]').allTextContents()).some((t) => t !== '')) moved = true;
  }
  assert.ok(moved, 'some α moved a rank');
  // The tree answers the keyboard.
  await page.locator('[data-testid=search-tree]').focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await page.locator('[data-testid=search-node]').textContent(), /at position 1: p = /);
  assert.deepEqual(errors, []);
});

test('a word\'s alternative translates again from there, as `wgslate translate --prefix`', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url, errors);
  await search(page, 'beam=4');
  await page.click('[data-testid=search-word-2]');
  await page.locator('[data-testid=search-alternatives]').waitFor();
  await page.click('[data-testid=search-alt-1]');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-prefix]').value !== '');
  const prefix = await page.locator('[data-testid=search-prefix]').inputValue();
  await page.waitForFunction((p) => document.querySelector('[data-testid=search-output]')?.textContent.trim().startsWith(p), prefix, { timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=search-status]').textContent !== 'Searching…');
  assert.equal(await output(page), cli(['--beam', '4', '--prefix', prefix], SENTENCE));
  assert.match(page.url(), /prefix=/, 'the prefix is in the link');
  // A reload keeps it.
  await page.reload();
  assert.equal(await page.locator('[data-testid=search-prefix]').inputValue(), prefix);
  assert.deepEqual(errors, []);
});

test('greedy shows each step\'s choices; a given translation gets `wgslate score`\'s total', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url, errors);
  const reference = 'Ein Mann mit einem orangefarbenen Hut, der etwas anstarrt.';
  await page.goto(rig.url + `#search?model=en-de%2Fgru&text=${encodeURIComponent(SENTENCE)}`);
  await page.click('.search details.candidate summary');
  await page.fill('[data-testid=search-candidate]', reference);
  await page.click('[data-testid=search-run]');
  await page.locator('[data-testid=search-candidate-score]').waitFor({ timeout: 180000 });
  assert.equal(await output(page), cli([], SENTENCE));
  const words = await page.locator('.output-words .word').count();
  assert.equal(await page.locator('[data-testid=search-choice]').count(), words + 1, 'one choice per subword and EOS');
  const dir = mkdtempSync(join(tmpdir(), 'wgslate-search-'));
  writeFileSync(join(dir, 'src'), SENTENCE + '\n');
  writeFileSync(join(dir, 'hyp'), reference + '\n');
  const [scored] = JSON.parse(wgslate(['score', '--model', GRU, '--src', join(dir, 'src'), '--hyp', join(dir, 'hyp'), '--backend', 'cpu', '--json']));
  const total = (await page.locator('[data-testid=search-candidate-total]').textContent()).match(/log P = (-?\d+\.\d+)/)[1];
  // The page ran on WebGPU (SwiftShader), the CLI on the CPU: equal to the GPU's 1e-3 per step.
  assert.ok(Math.abs(Number(total) - scored.log_prob) < 0.01, `${total} vs ${scored.log_prob}`);
  assert.equal(await page.locator('[data-testid=search-candidate-tokens] tbody tr').count(), scored.tokens);
  assert.match(await page.locator('[data-testid=search-verdict]').textContent(), /model error|search error/);
  // From a prefix: its steps say they were forced (their entropy is 0, once shown as "-0.00 bits").
  await page.fill('[data-testid=search-prefix]', 'Ein Hund');
  await page.locator('[data-testid=search-prefix]').dispatchEvent('change');
  await page.click('[data-testid=search-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-output]')?.textContent.trim().startsWith('Ein Hund'), null, { timeout: 180000 });
  const cards = await page.locator('[data-testid=search-choice] .head').allTextContents();
  assert.match(cards[0], /forced by the prefix/, cards.join(' | '));
  assert.ok(cards.some((c) => / H = \d+\.\d\d bits/.test(c)) && !cards.some((c) => c.includes('-0.00')), cards.join(' | '));
  assert.deepEqual(errors, []);
});

test('bad prefixes and a 5 000-character translation get a message or a bounded view', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url, errors);
  await page.goto(rig.url + `#search?model=en-de%2Fgru&text=${encodeURIComponent(SENTENCE)}`);
  // Another script: the model cannot spell it.
  await page.fill('[data-testid=search-prefix]', 'Привет');
  await page.locator('[data-testid=search-prefix]').dispatchEvent('change');
  await page.click('[data-testid=search-run]');
  await page.locator('[data-testid=search-error]').waitFor({ timeout: 180000 });
  assert.match(await page.locator('[data-testid=search-error]').textContent(), /cannot spell/);
  // Over the limit: refused at once, the box keeps the last accepted prefix.
  await page.fill('[data-testid=search-prefix]', 'Hund '.repeat(300));
  await page.locator('[data-testid=search-prefix]').dispatchEvent('change');
  assert.match(await page.locator('[data-testid=search-prefix-error]').textContent(), /at most 1000 characters/);
  await page.click('[data-testid=search-prefix-clear]');
  // 5 000 characters to score: scored on the subwords the model can emit, said so.
  await page.click('.search details.candidate summary');
  await page.fill('[data-testid=search-candidate]', 'Ein Hund läuft. '.repeat(313).slice(0, 5000));
  await page.click('[data-testid=search-run]');
  await page.locator('[data-testid=search-candidate-cut]').waitFor({ timeout: 180000 });
  assert.match(await page.locator('[data-testid=search-candidate-cut]').textContent(), /Only the first \d+ subwords are scored/);
  // Beam 16 with a 200-token limit: drawn, bounded, and the page answers.
  await page.fill('[data-testid=search-candidate]', '');
  await page.goto(rig.url + `#search?model=en-de%2Fgru&beam=16&b=200&text=${encodeURIComponent(LONGER)}`);
  await page.click('[data-testid=search-run]');
  const t0 = Date.now();
  assert.equal(await page.evaluate(() => 1 + 1), 2);
  assert.ok(Date.now() - t0 < 2000, 'the page answers during the search');
  await page.locator('[data-testid=search-results]').waitFor({ timeout: 300000 });
  await page.check('[data-testid=search-tree-pruned]');
  const drawn = await page.locator('[data-testid=search-tree] g.node').count();
  assert.ok(drawn > 16 && drawn <= 4000, `${drawn} nodes drawn`);
  assert.deepEqual(errors.filter((e) => !/cannot spell/.test(e)), []);
});
