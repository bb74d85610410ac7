// Accessibility: axe-core (npm, Deque's rules) on every view with its results shown: no serious or
// critical violations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { useBrowser, openPage, golden, untilTranslated } from './harness.mjs';

const rig = useBrowser(8139);
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function serious(page, view) {
  // Through the DevTools protocol: the page's Content-Security-Policy forbids inline scripts.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${view}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

test('no serious or critical accessibility violations on any view', async () => {
  const errors = [];
  const text = 'A man in a blue shirt is standing on a ladder.';
  const page = await openPage(rig.browser, `${rig.url}#translate?backend=cpu&text=${encodeURIComponent(text)}`, errors);
  await untilTranslated(page, 120000);
  // The check can fail: a button without a name is a critical violation axe must report.
  await page.evaluate(() => document.body.append(Object.assign(document.createElement('button'), { id: 'axe-probe' })));
  assert.ok((await serious(page, 'probe')).some((v) => v.includes('button-name')), 'axe reports an unnamed button');
  await page.evaluate(() => document.getElementById('axe-probe').remove());
  await page.click('details.file-translate summary');
  const found = await serious(page, 'translate');
  // axe has no rule for it: the view shown is named to assistive technology, by the tab and the title.
  const current = () => page.evaluate(() => [...document.querySelectorAll('nav [aria-current=page]')].map((b) => b.textContent));
  assert.deepEqual(await current(), ['Translate']);
  assert.equal(await page.title(), 'Translate · wgslate — translation on your GPU');
  await page.click('[data-testid=nav-compare]');
  await page.click('[data-testid=cmp-run]');
  await page.locator('[data-testid=cmp-beam-3]').waitFor({ timeout: 120000 });
  found.push(...await serious(page, 'compare'));
  await page.click('[data-testid=nav-attention]');
  await page.click('[data-testid=att-run]');
  await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
  found.push(...await serious(page, 'attention'));
  // Search: greedy's step choices, then beam 4's tree (the link's beam, followed in this tab).
  await page.click('[data-testid=nav-search]');
  await page.click('[data-testid=search-run]');
  await page.locator('[data-testid=search-choices]').waitFor({ timeout: 120000 });
  found.push(...await serious(page, 'search (greedy)'));
  await page.evaluate(() => { location.hash = location.hash.includes('?') ? location.hash + '&beam=4' : location.hash + '?beam=4'; });
  await page.waitForFunction(() => /beam 4/.test(document.querySelector('[data-testid=search-plan]')?.textContent ?? ''));
  await page.click('[data-testid=search-run]');
  await page.locator('[data-testid=search-tree] svg').waitFor({ timeout: 120000 });
  found.push(...await serious(page, 'search (beam)'));
  await page.click('[data-testid=nav-bleu]');
  assert.deepEqual(await current(), ['BLEU']);
  assert.equal(await page.title(), 'BLEU · wgslate — translation on your GPU');
  const c = golden('orejuela-4refs');
  await page.fill('[data-testid=bleu-hyp]', c.hyps.join('\n'));
  await page.fill('[data-testid=bleu-ref-0]', c.refs[0].join('\n'));
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-score]').waitFor();
  found.push(...await serious(page, 'bleu'));
  assert.deepEqual(found, []);
  assert.deepEqual(errors, []);
});
