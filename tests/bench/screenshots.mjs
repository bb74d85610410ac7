// Not a test: the docs' screenshots. Each view with a result on it (Translate with an example
// translated and coloured by confidence, Compare and Attention on that sentence, BLEU scoring five
// translations against their references) at 1280 and 360 px wide, light and dark, as
// docs/img/<view>-<width>-<scheme>.png. Each PNG shows the top of the page down to a fixed height and
// must stay at most 200 KB: the run fails, naming the file, when one is larger.
//   scripts/screenshots           (serves dist/ on port 8190 and runs this with its address)
//   node bench/screenshots.mjs http://127.0.0.1:8190/ [view…]
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { launch, root, wgslate, untilTranslated } from '../browser/harness.mjs';

const [url = 'http://127.0.0.1:8190/', ...only] = process.argv.slice(2);
const out = join(root, 'docs', 'img');
mkdirSync(out, { recursive: true });
const LIMIT = 200 * 1024;
// The viewport, and the most of the page a picture shows (the top of it): a phone's screen, and a
// laptop's with the settings below the boxes.
const SIZES = [{ width: 1280, height: 800, most: 1000 }, { width: 360, height: 740, most: 1500 }];
const SCHEMES = ['light', 'dark'];
// A model loads and a beam search runs on the CPU engine (WebGPU here is SwiftShader's).
const LONG = 600000;

const lines = (lang) => readFileSync(join(root, 'www', 'data', `test_2016_flickr.${lang}`), 'utf8').split('\n');
const sentence = lines('en')[0];
const translateLink = `#translate?text=${encodeURIComponent(sentence)}`;

const VIEWS = {
  // The first example, put in the box from the list, translated, with its sentence BLEU and colours.
  async translate(page) {
    await page.goto(url + '#translate');
    await page.locator('details.examples summary').click();
    await page.locator('[data-testid=examples] li button').first().click({ timeout: LONG });
    await untilTranslated(page, LONG);
    await page.locator('[data-testid=tr-example-bleu]').waitFor();
    await page.getByLabel('Colour by confidence').check();
    await page.locator('[data-testid=tr-conf-readout]').waitFor();
    await page.locator('details.examples summary').click();
  },
  // Greedy, the beam's four and a sample for the sentence.
  async compare(page) {
    await page.goto(url + translateLink);
    await untilTranslated(page, LONG);
    await page.click('[data-testid=nav-compare]');
    await page.click('[data-testid=cmp-run]');
    await page.locator('[data-testid=cmp-time-sample]').waitFor({ timeout: LONG });
    await page.locator('[data-testid=cmp-beam-3]').waitFor();
  },
  // Beam 4's search of the sentence: its tree and finished hypotheses.
  async search(page) {
    await page.goto(url + translateLink + '&beam=4');
    await untilTranslated(page, LONG);
    await page.click('[data-testid=nav-search]');
    await page.click('[data-testid=search-run]');
    await page.locator('[data-testid=search-tree] svg').waitFor({ timeout: LONG });
  },
  // The sentence's attention heatmap.
  async attention(page) {
    await page.goto(url + translateLink);
    await untilTranslated(page, LONG);
    await page.click('[data-testid=nav-attention]');
    await page.click('[data-testid=att-run]');
    await page.locator('[data-testid=att-heatmap]').waitFor({ timeout: LONG });
  },
  // Five of the model's translations (the CLI's) scored against test_2016_flickr's references.
  async bleu(page) {
    const hyps = wgslate(['translate', '--model', join(root, 'www', 'models', 'en-de', 'transformer'), '--backend', 'cpu'], lines('en').slice(0, 5).join('\n') + '\n').trimEnd();
    await page.goto(url + '#bleu');
    await page.fill('[data-testid=bleu-hyp]', hyps);
    await page.fill('[data-testid=bleu-ref-0]', lines('de').slice(0, 5).join('\n'));
    await page.click('[data-testid=bleu-run]');
    await page.locator('[data-testid=bleu-score]').waitFor({ timeout: LONG });
    await page.locator('[data-testid=bleu-signature]').waitFor();
  },
};

const views = only.length ? only : Object.keys(VIEWS);
for (const v of views) if (!VIEWS[v]) throw new Error(`no view "${v}": the views are ${Object.keys(VIEWS).join(', ')}`);

const browser = await launch();
const written = [];
try {
  for (const view of views) {
    for (const { width, height, most } of SIZES) {
      for (const colorScheme of SCHEMES) {
        const page = await browser.newPage({ viewport: { width, height }, colorScheme, serviceWorkers: 'block' });
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await VIEWS[view](page);
        if (errors.length) throw new Error(`${view} at ${width} px, ${colorScheme}: ${errors.join('; ')}`);
        // The top of the page and of each box, without a focus ring or a caret, once the fonts and the
        // last frame are in.
        await page.evaluate(() => {
          document.activeElement?.blur();
          for (const box of document.querySelectorAll('textarea')) box.scrollTop = 0;
          window.scrollTo(0, 0);
        });
        await page.evaluate(() => document.fonts.ready);
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const full = await page.evaluate(() => document.documentElement.scrollHeight);
        const path = join(out, `${view}-${width}-${colorScheme}.png`);
        await page.screenshot({ path, fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(full, most) }, animations: 'disabled' });
        const size = statSync(path).size;
        written.push([path, size]);
        console.log(`${path.slice(root.length + 1).padEnd(40)} ${(size / 1024).toFixed(0).padStart(5)} KB`);
        await page.close();
      }
    }
  }
} finally {
  await browser.close();
}

const over = written.filter(([, size]) => size > LIMIT);
if (over.length) {
  console.error(`over ${LIMIT / 1024} KB:\n` + over.map(([p, s]) => `  ${p}: ${(s / 1024).toFixed(0)} KB`).join('\n'));
  process.exit(1);
}
