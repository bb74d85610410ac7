// The BLEU page scores in a worker: a held-out corpus that crashed TER gives sacreBLEU's figures,
// and a metric that crashes is reported next to its name while the page keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useBrowser, openPage, screenshots } from './harness.mjs';

const rig = useBrowser(8135);

async function score(page, hyp, ref) {
  await page.fill('[data-testid=bleu-hyp]', hyp);
  await page.fill('[data-testid=bleu-ref-0]', ref);
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-progress]').waitFor({ state: 'detached', timeout: 60000 });
}

const title = (page, id) => page.locator(`[data-testid=${id}]`).getAttribute('title');

test('the reproduction that crashed TER shows sacreBLEU’s figures, and the page goes on', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  // sacreBLEU 2.6.0 on this pair with -w 4: BLEU 16.5158, chrF2 51.8916, TER 57.1429.
  await score(page, 'Eine Person; mit une Hosen Hosen beim', 'Eine Person mit roten Hosen beim Skifahren.');
  assert.equal(await title(page, 'bleu-score'), '16.5158');
  assert.equal(await title(page, 'bleu-chrf'), '51.8916');
  assert.equal(await title(page, 'bleu-ter'), '57.1429');
  await score(page, 'a a b', 'a b a');
  assert.equal(await title(page, 'bleu-ter'), '33.3333');
  assert.deepEqual(errors, []);
});

test('a metric that crashes its worker is named next to the inputs; the others and the page survive', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  // A worker whose TER job behaves as a Rust panic does in wasm: the hook posts the message, then
  // the instance traps and the worker raises an uncaught error.
  await page.route('**/worker.js', (route) => route.fulfill({
    contentType: 'text/javascript',
    body: `import init from './wgslate-web.js';
      self.onmessage = async (event) => {
        self.onmessage = null;
        await init({ module_or_path: event.data });
        const job = self.onmessage;
        self.onmessage = (m) => {
          if (String(m.data).includes('"metric":"ter"')) {
            self.postMessage(JSON.stringify({ panic: 'panicked at a test hook: index out of range' }));
            throw new Error('unreachable');
          }
          return job(m);
        };
      };`,
  }));
  // TER is the last job: a metric after it would keep the hooked worker for the next computation.
  await page.uncheck('[data-testid=bleu-wer-on]');
  await page.uncheck('[data-testid=bleu-per-on]');
  await score(page, 'Eine Person; mit une Hosen Hosen beim', 'Eine Person mit roten Hosen beim Skifahren.');
  assert.equal(await title(page, 'bleu-score'), '16.5158');
  assert.equal(await title(page, 'bleu-chrf'), '51.8916');
  assert.match(await page.locator('[data-testid=bleu-ter-error]').textContent(), /^internal error in TER: panicked at a test hook/);
  await page.screenshot({ path: join(screenshots, 'bleu-metric-crash.png') });
  // The next computation gets a fresh worker; with the real one again, TER is back.
  await page.unroute('**/worker.js');
  await score(page, 'a a b', 'a b a');
  assert.equal(await title(page, 'bleu-ter'), '33.3333');
  assert.equal(await page.locator('[data-testid=bleu-ter-error]').count(), 0);
  assert.deepEqual(errors.filter((e) => !/unreachable/.test(e)), []);
});

test('a second Compute during a long run shows only the second input’s scores', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  await page.locator('[data-testid=bleu-ref-0]').waitFor();
  const long = Array.from({ length: 6000 }, (_, i) => `ein Mann ${i % 7} geht über die Straße ${i % 5}`).join('\n');
  await page.evaluate((text) => {
    for (const id of ['bleu-hyp', 'bleu-ref-0']) {
      const el = document.querySelector(`[data-testid=${id}]`);
      el.value = text;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }, long);
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-progress]').waitFor();
  await score(page, 'Eine Person; mit une Hosen Hosen beim', 'Eine Person mit roten Hosen beim Skifahren.');
  assert.equal(await title(page, 'bleu-score'), '16.5158');
  assert.equal(await title(page, 'bleu-chrf'), '51.8916');
  assert.equal(await title(page, 'bleu-ter'), '57.1429');
  assert.equal(await page.locator('[data-testid=bleu-lines] tbody tr').count(), 1);
  assert.deepEqual(errors, []);
});
