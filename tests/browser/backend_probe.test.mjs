// `auto` chooses the backend by a probe: the first time an adapter and model shape are met, the engine
// worker times a few greedy steps on the GPU engine and the CPU engine and keeps the faster, and the
// backend label says why. A stub (the worker's `wgslateProbeStub`, injected into www/worker.js) makes
// one engine slow each way; SwiftShader stands in for a hardware adapter while it is set. On a hardware
// adapter the worker also builds a model's GPU engine with fused and with per-op decoder steps and
// keeps the one that decoded the probe faster (the GRU's too, where the adapter binds its 9 buffers, as
// SwiftShader does); the stub's "fused-slow" / "per-op-slow" slow one of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, wgslate, root, untilTranslated } from './harness.mjs';
import { join } from 'node:path';

const rig = useBrowser(8175);
const TEXT = 'A dog runs in the snow.';

async function withStub(stub, model = 'gru') {
  const errors = [];
  const page = await openPage(rig.browser, 'about:blank', errors);
  await page.route('**/worker.js', async (route) => {
    const response = await route.fetch();
    const body = `self.wgslateProbeStub = ${JSON.stringify(stub)};\n` + (await response.text());
    await route.fulfill({ response, body });
  });
  await page.goto(rig.url + `#translate?model=en-de%2F${model}&text=${encodeURIComponent(TEXT)}`);
  await untilTranslated(page, 300000);
  return { page, errors };
}

const cli = (model = 'gru') =>
  wgslate(['translate', '--model', join(root, 'www', 'models', 'en-de', model), '--backend', 'cpu'], TEXT).trim();

test('auto takes the GPU when the probe finds the CPU slower, and says by how much', async () => {
  const { page, errors } = await withStub('cpu-slow');
  await page.waitForFunction(() => /× the CPU here/.test(document.querySelector('[data-testid=tr-backend]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.match(await page.locator('[data-testid=tr-backend]').textContent(), /^GPU \(WebGPU: .+; \d+\.\d× the CPU here\)/);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), cli());
  assert.deepEqual(errors, []);
});

test('auto keeps the CPU when the probe finds the GPU slower, and says so', async () => {
  const { page, errors } = await withStub('gpu-slow');
  await page.waitForFunction(() => /probe/.test(document.querySelector('[data-testid=tr-backend]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.match(await page.locator('[data-testid=tr-backend]').textContent(), /^CPU \(WebAssembly.*auto: the CPU engine ran \d+\.\d× the GPU's speed here in a probe/);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), cli());
  assert.deepEqual(errors, []);
});

// The GRU's one-dispatch step (gru_step.wgsl) is compiled only when chosen: this is where Chrome's
// compiler meets it.
for (const [model, slow, kept] of [['transformer', 'fused', 'per-op'], ['transformer', 'per-op', 'fused'], ['gru', 'per-op', 'fused']]) {
  test(`the ${model}'s GPU engine keeps ${kept} decoder steps when the probe finds ${slow} ones slower`, async () => {
    const { page, errors } = await withStub(`cpu-slow ${slow}-slow`, model);
    const label = () => document.querySelector('[data-testid=tr-backend]')?.textContent ?? '';
    await page.waitForFunction(() => / steps: /.test(document.querySelector('[data-testid=tr-backend]')?.textContent ?? ''), null, { timeout: 180000 });
    const text = await page.evaluate(label);
    assert.match(text, new RegExp(`^GPU \\(WebGPU: .+; \\d+\\.\\d× the CPU here; ${kept} steps: ${slow} took \\d+\\.\\d× as long\\)`), text);
    assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), cli(model));
    assert.deepEqual(errors, []);
  });
}
