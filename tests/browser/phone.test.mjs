// Phones: every view, with its results shown, fits a 360 px wide screen without horizontal scrolling
// (Compare stacks its columns, signatures wrap, the attention map scrolls inside its card), and the
// colours follow the system's dark mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, startServer, golden, screenshots, untilTranslated } from './harness.mjs';

const WIDTH = 360;

async function fits(page, view) {
  const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  await page.screenshot({ path: join(screenshots, `phone-${view}.png`), fullPage: true });
  assert.ok(scroll <= inner, `${view}: the page is ${scroll} px wide on a ${inner} px screen`);
  // iOS zooms into a box whose text is under 16 px when it is tapped.
  const small = await page.evaluate(() => [...document.querySelectorAll('input:not([type=checkbox]):not([type=file]), select, textarea')]
    .filter((el) => el.offsetParent && parseFloat(getComputedStyle(el).fontSize) < 16)
    .map((el) => `${el.dataset.testid ?? el.tagName} ${getComputedStyle(el).fontSize}`));
  if (inner <= 800) assert.deepEqual(small, [], `${view}: boxes under 16 px`);
}

test('every view fits 360 px', async () => {
  const server = await startServer(8136);
  const browser = await launch({ webgpu: false });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 800 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const text = 'A man in a blue shirt is standing on a ladder cleaning windows.';
    await page.goto(`${server.url}#translate?beam=4&text=${encodeURIComponent(text)}`);
    await untilTranslated(page, 120000);
    await fits(page, 'translate');
    // The translation shows on a phone's first screen (667 px tall), not below the fold under notes.
    const outputTop = await page.evaluate(() => document.querySelector('[data-testid=tr-output]').getBoundingClientRect().top + window.scrollY);
    assert.ok(outputTop < 667, `the output starts ${outputTop} px down the page`);
    // With its Copy button under it: the backend and the model's status follow the boxes on a phone.
    const copyBottom = await page.evaluate(() => document.querySelector('[data-testid=tr-copy]').getBoundingClientRect().bottom + window.scrollY);
    assert.ok(copyBottom < 667, `the Copy button ends ${copyBottom} px down the page`);
    const backendTop = await page.evaluate(() => document.querySelector('[data-testid=tr-backend]').getBoundingClientRect().top + window.scrollY);
    assert.ok(backendTop > outputTop, 'the backend label is below the output');
    // The model picker cuts its label to the screen; the line under it shows the label whole, on phones only.
    const modelLabel = () => page.evaluate(() => {
      const label = document.querySelector('[data-testid=tr-model-label]');
      return { chosen: document.querySelector('[data-testid=tr-model]').selectedOptions[0].textContent, shown: label.offsetParent ? label.textContent : null };
    });
    const phone = await modelLabel();
    assert.match(phone.chosen, / MB · test BLEU /);
    assert.equal(phone.shown, phone.chosen);
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.equal((await modelLabel()).shown, null, 'a desktop shows the label in the picker alone');
    await page.setViewportSize({ width: WIDTH, height: 800 });
    // The two boxes of the length limit share a line (b wrapped onto its own).
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    const tops = await page.evaluate(() => ['tr-max-a', 'tr-max-b'].map((id) => Math.round(document.querySelector(`[data-testid=${id}]`).getBoundingClientRect().top)));
    assert.equal(tops[1], tops[0], 'a and b on one line');

    await page.click('[data-testid=nav-compare]');
    await page.click('[data-testid=cmp-run]');
    await page.locator('[data-testid=cmp-beam-3]').waitFor({ timeout: 120000 });
    await fits(page, 'compare');

    await page.click('[data-testid=nav-search]');
    await page.click('[data-testid=search-run]');
    await page.locator('[data-testid=search-results]').waitFor({ timeout: 120000 });
    await fits(page, 'search');

    await page.click('[data-testid=nav-attention]');
    await page.click('[data-testid=att-run]');
    await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
    await fits(page, 'attention');
    // Scrolled to its right end, the map keeps its rows' words in view at its left edge (drawn there:
    // dark text where, unpinned, the blue and white cells would be).
    const label = await page.evaluate(async () => {
      const wrapper = document.querySelector('.heatmap');
      wrapper.scrollLeft = wrapper.scrollWidth;
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const canvas = document.querySelector('[data-testid=att-heatmap]');
      const scale = canvas.width / canvas.getBoundingClientRect().width;
      const [left, top, CELL] = [Number(canvas.dataset.left), Number(canvas.dataset.top), 26];
      const x = Math.round((wrapper.scrollLeft + left - 70) * scale);
      const strip = canvas.getContext('2d').getImageData(x, top * scale, 60 * scale, CELL * scale).data;
      let dark = 0;
      for (let i = 0; i < strip.length; i += 4) dark += strip[i] < 120 && strip[i + 1] < 120 && strip[i + 2] < 120;
      return { scrolled: wrapper.scrollLeft, dark };
    });
    assert.ok(label.scrolled > 100, `the map scrolls on a phone (${label.scrolled} px)`);
    assert.ok(label.dark > 0, 'the first row\'s label is drawn at the visible left edge');
    await page.locator('.heatmap').screenshot({ path: join(screenshots, 'phone-attention-scrolled.png') });
    // The keyboard scrolls the map to the cell it chooses, beside the row labels, and the page so that
    // the cell and its readout are both on screen.
    const where = () => page.evaluate(() => {
      const w = document.querySelector('.heatmap');
      const readout = document.querySelector('[data-testid=att-readout]');
      const map = document.querySelector('[data-testid=att-heatmap]');
      const [rows, cols] = map.getAttribute('aria-label').match(/\d+/g).map(Number);
      const r = readout.getBoundingClientRect();
      const [margin, lastRow] = [Number(map.dataset.left), map.getBoundingClientRect().top + Number(map.dataset.top) + (rows - 1) * 26];
      return { left: w.scrollLeft, width: w.clientWidth, rows, cols, margin, lastRow, top: r.top, bottom: r.bottom, inner: innerHeight, text: readout.textContent };
    });
    await page.focus('[data-testid=att-heatmap]');
    await page.keyboard.press('Home');
    assert.equal((await where()).left, 0, 'the first cell is scrolled to, out from under the row labels');
    await page.keyboard.press('End');
    const end = await where();
    assert.ok(end.left > 0 && end.margin + end.cols * 26 <= end.left + end.width, `the last column is in view: ${JSON.stringify(end)}`);
    for (let i = 1; i < end.rows; i++) await page.keyboard.press('ArrowDown');
    const bottom = await where();
    assert.match(bottom.text, /→ .*: \d\.\d{3}/);
    assert.ok(bottom.top >= 0 && bottom.bottom <= bottom.inner, `the readout is on screen at the last row: ${JSON.stringify(bottom)}`);
    assert.ok(bottom.lastRow >= bottom.bottom && bottom.lastRow + 26 <= bottom.inner, `the last row is on screen below the readout: ${JSON.stringify(bottom)}`);

    await page.click('[data-testid=nav-bleu]');
    const c = golden('orejuela-4refs');
    await page.fill('[data-testid=bleu-hyp]', c.hyps.join('\n'));
    await page.fill('[data-testid=bleu-ref-0]', c.refs[0].join('\n'));
    await page.click('[data-testid=bleu-run]');
    await page.locator('[data-testid=bleu-signature]').waitFor({ timeout: 120000 });
    await fits(page, 'bleu');

    // Dark mode follows the system setting.
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(await background(), 'rgb(247, 248, 251)');
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await background(), 'rgb(20, 23, 29)');
    await page.screenshot({ path: join(screenshots, 'phone-bleu-dark.png'), fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});

test('a 300-letter word wraps on Translate, Compare and BLEU, on a phone and a desktop', async () => {
  const server = await startServer(8143);
  const browser = await launch({ webgpu: false });
  try {
    const errors = [];
    const word = 'y'.repeat(300);
    for (const width of [WIDTH, 1280]) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${server.url}#translate?text=${encodeURIComponent(`A ${word} dog runs.`)}`);
      await untilTranslated(page, 120000);
      await fits(page, `long-word-translate-${width}`);
      await page.click('[data-testid=nav-compare]');
      await page.click('[data-testid=cmp-run]');
      await page.locator('[data-testid=cmp-beam-3]').waitFor({ timeout: 120000 });
      await fits(page, `long-word-compare-${width}`);
      await page.click('[data-testid=nav-bleu]');
      await page.fill('[data-testid=bleu-hyp]', `A ${word} dog runs.`);
      await page.fill('[data-testid=bleu-ref-0]', `A ${word} dog is running.`);
      await page.click('[data-testid=bleu-run]');
      await page.click('[data-testid=bleu-lines] tbody tr');
      await page.locator('[data-testid=bleu-line-detail]').waitFor({ timeout: 120000 });
      await fits(page, `long-word-bleu-${width}`);
      await page.close();
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});

// On a small phone an answer can appear a screen or more away from what asked for it, with nothing
// on screen changed: a tapped example (the list lies below the boxes), a drawn attention map (below
// its button), the scores Evaluate opens in the BLEU page (which kept the Translate view's scroll).
test('on a 320 × 568 phone an example tapped, a map drawn and the scores Evaluate opens come into view; held sideways the translation is on the first screen', async () => {
  const server = await startServer(8152);
  const browser = await launch({ webgpu: false });
  try {
    const page = await browser.newPage({ viewport: { width: 320, height: 568 }, isMobile: true, hasTouch: true });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const where = (selector) => {
      const r = document.querySelector(selector)?.getBoundingClientRect();
      return r && { top: Math.round(r.top), bottom: Math.round(r.bottom), inner: innerHeight, shown: r.top > -2 && r.top < innerHeight - 40 };
    };
    // On screen within 5 s (a scroll follows the answer's drawing), or where it stayed.
    const onScreen = async (selector) => {
      await page.waitForFunction(`(${where})(${JSON.stringify(selector)})?.shown`, null, { timeout: 5000 }).catch(() => {});
      return page.evaluate(`(${where})(${JSON.stringify(selector)})`);
    };
    await page.goto(`${server.url}#translate?backend=cpu`);
    await page.locator('details.examples summary').click();
    const example = page.locator('[data-testid=examples] li button').nth(5);
    await example.waitFor({ timeout: 60000 });
    await example.tap();
    await untilTranslated(page, 120000);
    const input = await onScreen('[data-testid=tr-input]');
    assert.ok(input.shown, `the input after an example's tap: ${JSON.stringify(input)}`);
    // A finger gets a box of 20 px, not a mouse's 13.
    const box = await page.locator('[data-testid=tr-rerank]').boundingBox();
    assert.ok(box.width >= 20 && box.height >= 20, JSON.stringify(box));

    await page.tap('[data-testid=nav-attention]');
    await page.tap('[data-testid=att-run]');
    await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: 120000 });
    const map = await onScreen('.attention .options');
    assert.ok(map.shown, `the map's card once drawn: ${JSON.stringify(map)}`);

    await page.tap('[data-testid=nav-translate]');
    await page.fill('[data-testid=eval-count]', '3');
    await page.locator('[data-testid=eval-count]').dispatchEvent('change');
    await page.tap('[data-testid=eval-run]');
    await page.locator('[data-testid=eval-bleu]').waitFor({ timeout: 300000 });
    await page.tap('[data-testid=eval-open-bleu]');
    await page.locator('[data-testid=bleu-score]').waitFor({ timeout: 60000 });
    const scores = await onScreen('.bleu .results');
    assert.ok(scores.shown, `the scores opened from Evaluate: ${JSON.stringify(scores)}`);
    // Held sideways (740 × 360) the boxes sit side by side: the translation starts on the first screen.
    await page.setViewportSize({ width: 740, height: 360 });
    await page.tap('[data-testid=nav-translate]');
    await page.evaluate(() => window.scrollTo(0, 0));
    const output = await onScreen('[data-testid=tr-output]');
    assert.ok(output.shown, `the output on a phone held sideways: ${JSON.stringify(output)}`);
    const wide = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
    assert.ok(wide.scroll <= wide.inner, `sideways, the page is ${wide.scroll} px wide on a ${wide.inner} px screen`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});

test('the view tabs stay at the top of a long page, on a phone and a desktop, and a box the focus moves to is not under them', async () => {
  const server = await startServer(8168);
  const browser = await launch({ webgpu: false });
  try {
    for (const viewport of [{ width: WIDTH, height: 640 }, { width: 1280, height: 600 }]) {
      const page = await browser.newPage({ viewport });
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${server.url}#translate`);
      await page.click('details.file-translate summary');
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const where = () => page.evaluate(() => {
        const nav = document.querySelector('nav').getBoundingClientRect();
        const hit = document.elementFromPoint(nav.left + 4, nav.top + nav.height / 2);
        return { top: nav.top, bottom: nav.bottom, scrolled: window.scrollY, onTop: Boolean(hit?.closest('nav')) };
      });
      const low = await where();
      assert.ok(low.scrolled > 200, `${viewport.width} px: the page scrolled (${low.scrolled} px)`);
      assert.deepEqual([low.top, low.onTop], [0, true], `${viewport.width} px: the tabs at the top, above the page`);
      // The first box scrolled to just under the top edge, behind the tabs: the focus moved to it
      // brings it out below them (it counted as in view, and stayed hidden there).
      await page.locator('[data-testid=tr-input]').evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().top - 5));
      await page.focus('[data-testid=tr-input]');
      const input = await page.locator('[data-testid=tr-input]').evaluate((el) => el.getBoundingClientRect().top);
      const { bottom } = await where();
      assert.ok(input >= bottom, `${viewport.width} px: the box's top ${input} px is under the tabs (to ${bottom} px)`);
      await page.click('[data-testid=nav-bleu]');
      assert.deepEqual(errors, []);
      await page.close();
    }
  } finally {
    await browser.close();
    server.stop();
  }
});
