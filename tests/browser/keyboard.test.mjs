// Keyboard and touch use (a walk found these): every file picker takes the focus and opens from the
// keyboard, a button keeps the focus while its work runs (or hands it on when it goes), BLEU's per-line
// rows open from the keyboard, and a word's probability is not in a hover tooltip only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, golden, untilTranslated } from './harness.mjs';

const rig = useBrowser(8149);
const focused = (page) => page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);

test('every file picker takes the keyboard focus, and Translate a file opens from it', async () => {
  const errors = [];
  const page = await openPage(rig.browser, `${rig.url}#translate?backend=cpu`, errors);
  await page.focus('details.file-translate summary');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  // A display:none input is skipped by Tab (focus went on to "Available offline").
  assert.equal(await focused(page), 'tr-file');
  // Space opens the file chooser. (Once in a full run the first press opened none, with the picker
  // focused: a second press, the picker still focused, is what a user would do too.)
  const opens = async () => {
    const chooser = page.waitForEvent('filechooser', { timeout: 15000 }).then(() => true, () => false);
    await page.keyboard.press('Space');
    return chooser;
  };
  assert.ok(await opens() || (await focused(page) === 'tr-file' && await opens()), 'Space on the focused picker opens the file chooser');
  await page.click('[data-testid=nav-bleu]');
  await page.click('.bleu details.second summary');
  const pickers = page.locator('.bleu input[type=file]');
  assert.equal(await pickers.count(), 4, 'hypothesis, reference, second system, source');
  for (let i = 0; i < 4; i++) {
    assert.equal(await pickers.nth(i).evaluate((el) => { el.focus(); return document.activeElement === el; }), true, `BLEU file picker ${i} takes the focus`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('Compare, Show attention and the swap keep the keyboard focus while they work', async () => {
  const errors = [];
  const page = await openPage(rig.browser, `${rig.url}#translate?backend=cpu&text=${encodeURIComponent('A dog runs in the snow.')}`, errors);
  const translated = () => untilTranslated(page, 120000);
  await translated();
  await page.click('[data-testid=nav-compare]');
  await page.focus('[data-testid=cmp-run]');
  await page.keyboard.press('Enter');
  await page.locator('[data-testid=cmp-beam-0]').waitFor({ timeout: 120000 });
  assert.equal(await focused(page), 'cmp-run');
  await page.click('[data-testid=nav-attention]');
  await page.focus('[data-testid=att-run]');
  await page.keyboard.press('Enter');
  await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
  assert.equal(await focused(page), 'att-run');
  assert.match(await page.locator('[data-testid=att-status]').textContent(), /^Attention maps drawn: \d+ output × \d+ source tokens\.$/);
  // Evaluate too (it dropped the focus as well).
  await page.click('[data-testid=nav-translate]');
  await page.fill('[data-testid=eval-count]', '2');
  await page.locator('[data-testid=eval-count]').dispatchEvent('change');
  await page.focus('[data-testid=eval-run]');
  await page.keyboard.press('Enter');
  await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 120000 });
  assert.equal(await focused(page), 'eval-run');
  await page.focus('[data-testid=tr-swap]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-model]')?.value?.startsWith('de-en/'));
  await translated();
  assert.equal(await focused(page), 'tr-swap');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a per-line row of BLEU opens its detail from the keyboard, and the sorted column says so', async () => {
  const errors = [];
  const page = await openPage(rig.browser, `${rig.url}#bleu`, errors);
  const c = golden('de-corpus-smooth-none');
  await page.fill('[data-testid=bleu-hyp]', c.hyps.join('\n'));
  await page.fill('[data-testid=bleu-ref-0]', c.refs[0].join('\n'));
  await page.click('[data-testid=bleu-run]');
  const rows = page.locator('[data-testid=bleu-lines] tbody tr');
  await rows.first().waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid=bleu-lines] th').first().getAttribute('aria-sort'), 'ascending');
  // The line number is the row's button, and says whether its detail is open.
  const open = rows.nth(1).locator('button');
  assert.equal(await open.getAttribute('aria-expanded'), 'false');
  await open.focus();
  await page.keyboard.press('Enter');
  const detail = page.locator('[data-testid=bleu-line-detail] h4');
  await detail.waitFor({ timeout: 10000 });
  assert.equal(await detail.textContent(), 'Line 2');
  assert.equal(await open.getAttribute('aria-expanded'), 'true');
  // The three file pickers say which box they fill.
  assert.equal(await page.locator('.bleu input[type=file]').first().getAttribute('aria-label'), 'Open a .txt file into the hypothesis');
  assert.equal(await page.locator('.bleu .ref button.remove').first().getAttribute('aria-label'), 'Remove reference 1');
  // Removing a reference hands the focus to the one now in its place, not to the page.
  await page.click('[data-testid=bleu-add-ref]');
  await page.click('[data-testid=bleu-add-ref]');
  await page.fill('[data-testid=bleu-ref-2]', 'third');
  await page.focus('.bleu .ref:nth-of-type(2) button.remove');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === 'bleu-ref-1');
  assert.equal(await page.inputValue('[data-testid=bleu-ref-1]'), 'third');
  assert.deepEqual(errors, []);
  await page.close();
});

test('BLEU per-line details close from the keyboard, say their n-gram orders in words, and the focus never falls to the page', async () => {
  const errors = [];
  const page = await openPage(rig.browser, `${rig.url}#bleu`, errors);
  // 250 lines: three pages of the per-line table.
  const lines = Array.from({ length: 250 }, (_, i) => `a dog runs in the snow number ${i}`);
  await page.fill('[data-testid=bleu-hyp]', lines.join('\n'));
  await page.fill('[data-testid=bleu-ref-0]', lines.map((l, i) => (i % 2 ? l : 'a cat runs in the snow')).join('\n'));
  // The reference's heading is its name, without its remove button's "×".
  assert.equal(await page.locator('.bleu .ref h3').first().textContent(), 'Reference 1');
  await page.click('[data-testid=bleu-run]');
  const rows = page.locator('[data-testid=bleu-lines] tbody tr');
  await rows.first().waitFor({ timeout: 60000 });
  const open = rows.nth(1).locator('button');
  await open.focus();
  await page.keyboard.press('Enter');
  const detail = page.locator('[data-testid=bleu-line-detail]');
  await detail.waitFor({ timeout: 10000 });
  // Each matched word carries the order of its longest n-gram as text, not as a colour only.
  const orders = await detail.locator('.tokens .tok').evaluateAll((ts) => ts.map((t) => [t.className, getComputedStyle(t, '::after').content.replaceAll('"', '').replace('none', '')]));
  assert.ok(orders.some(([c]) => c === 'tok m4'), JSON.stringify(orders));
  assert.ok(orders.every(([c, digit]) => c === `tok m${digit || 0}`), JSON.stringify(orders));
  // The same key closes it again, and so does Escape.
  await page.keyboard.press('Enter');
  await detail.waitFor({ state: 'detached', timeout: 10000 });
  assert.equal(await open.getAttribute('aria-expanded'), 'false');
  await page.keyboard.press('Enter');
  await detail.waitFor({ timeout: 10000 });
  await page.keyboard.press('Escape');
  await detail.waitFor({ state: 'detached', timeout: 10000 });
  // A Compute asked while the focus is in the results (a click that does not move it, as Safari's):
  // the focus goes to Compute, not to the page.
  await open.focus();
  await page.evaluate(() => {
    document.querySelector('[data-testid=bleu-lines]').dataset.old = 'yes';
    document.querySelector('[data-testid=bleu-run]').click();
  });
  await page.waitForFunction(() => document.querySelector('[data-testid=bleu-lines]:not([data-old])'), null, { timeout: 60000 });
  assert.equal(await focused(page), 'bleu-run');
  // "Show more" on its last page goes, and hands the focus to the first line it showed.
  const more = page.locator('.bleu button', { hasText: 'Show more' });
  await more.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=bleu-lines] tbody tr').length === 200);
  assert.equal(await more.evaluate((b) => b === document.activeElement), true, 'kept while there is more');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.dataset?.row === '200', null, { timeout: 10000 });
  assert.equal(await rows.count(), 250);
  // A file that could not be read stays said after a Compute of the box it left empty.
  await page.fill('[data-testid=bleu-hyp]', '');
  await page.setInputFiles('[data-testid=bleu-hyp] ~ label input[type=file]', { name: 'latin1.txt', mimeType: 'text/plain', buffer: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
  await page.locator('[data-testid=bleu-file-error]').waitFor();
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-error]').waitFor();
  assert.match(await page.locator('[data-testid=bleu-file-error]').textContent(), /latin1\.txt is not UTF-8/);
  // The least likely translated words are underlined, not told apart by colour alone.
  const decorations = await page.evaluate(() => ['p1', 'p2', 'p3'].map((p) => {
    const probe = document.createElement('span');
    probe.className = `conf ${p}`;
    document.body.append(probe);
    const style = getComputedStyle(probe).textDecorationStyle + ' ' + getComputedStyle(probe).textDecorationLine;
    probe.remove();
    return style;
  }));
  assert.deepEqual(decorations, ['wavy underline', 'dotted underline', 'solid none']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a word coloured by confidence tells its probability when tapped, clicked or reached by the arrow keys', async () => {
  const errors = [];
  // Two lines, the first of two sentences: the words are counted across sentences and lines.
  const input = 'A dog runs in the snow. Two men fish.\nA girl sings.';
  const page = await openPage(rig.browser, `${rig.url}#translate?backend=cpu&text=${encodeURIComponent(input)}`, errors);
  await page.waitForFunction(() => /3 sentences in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 120000 });
  await page.click('.out-tools input[type=checkbox]');
  const word = page.locator('[data-testid=tr-output] .conf').nth(1);
  const [text, title] = [(await word.textContent()).trim(), await word.getAttribute('title')];
  await word.click();
  const readout = page.locator('[data-testid=tr-conf-readout]');
  assert.equal(await readout.textContent(), `“${text}”: ${title}`);
  assert.match(title, /^p = (0\.\d{3}|1\.000)$/);
  // From the keyboard: Tab from the input box reaches the translation, whose arrow keys walk the
  // words (from the one clicked), End and Home jump to the ends.
  const words = await page.locator('[data-testid=tr-output] .conf').evaluateAll((ws) => ws.map((w) => [w.textContent.trim(), w.title]));
  await page.focus('[data-testid=tr-input]');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'tr-output');
  const readsAs = async (k) => {
    assert.equal(await readout.textContent(), `“${words[k][0]}”: ${words[k][1]}`);
    assert.equal(await page.locator('[data-testid=tr-output] .conf.chosen').count(), 1);
    assert.equal((await page.locator('[data-testid=tr-output] .conf.chosen').textContent()).trim(), words[k][0]);
  };
  await page.keyboard.press('ArrowRight');
  await readsAs(2);
  await page.keyboard.press('End');
  await readsAs(words.length - 1);
  await page.keyboard.press('ArrowRight');
  await readsAs(words.length - 1);
  await page.keyboard.press('Home');
  await readsAs(0);
  // The legend's swatches are the words' colours (a grey glyph covered them).
  const colours = await page.evaluate(() => [1, 2, 3, 4, 5].map((k) => {
    const swatch = document.querySelector(`.legend .swatch.p${k}`);
    const probe = document.createElement('span');
    probe.className = `conf p${k}`;
    document.querySelector('[data-testid=tr-output]').append(probe);
    const word = getComputedStyle(probe).backgroundColor;
    probe.remove();
    const box = swatch.getBoundingClientRect();
    return [swatch.textContent, getComputedStyle(swatch).backgroundColor === word, box.width >= 10 && box.height >= 10];
  }));
  assert.deepEqual(colours, [1, 2, 3, 4, 5].map(() => ['', true, true]));
  assert.deepEqual(errors, []);
  await page.close();
});
