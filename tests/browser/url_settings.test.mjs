// A shared link cannot carry settings the form refuses: each refused value is named, the rest kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, untilTranslated } from './harness.mjs';

const rig = useBrowser(8136);

test('out-of-range URL settings are refused with a message and do not reach the form', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?beam=4&cov=-1e30&lp=1e30&a=1e30&b=4294967295&p=-1&k=4294967295&t=inf', errors);
  const problems = page.locator('[data-testid=url-problems]');
  await problems.waitFor();
  const text = await problems.textContent();
  for (const what of ['coverage β', 'length penalty α', 'max length a', 'max length b', 'top-p', 'top-k', 'temperature']) {
    assert.ok(text.includes(what), `${what} is named in: ${text}`);
  }
  assert.equal(await page.inputValue('[data-testid=tr-beam]'), '4');
  assert.equal(await page.inputValue('[data-testid=tr-coverage]'), '0');
  // The form refuses the same values: the box goes back to the setting. While it shows the value
  // it would refuse, it is invalid.
  const beam = page.locator('[data-testid=tr-beam]');
  await page.fill('[data-testid=tr-beam]', '99');
  assert.equal(await beam.getAttribute('aria-invalid'), 'true');
  await page.press('[data-testid=tr-beam]', 'Enter');
  await page.locator('[data-testid=tr-beam]').blur();
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-beam]').value === '4');
  assert.match(await page.locator('[data-testid=tr-settings-error]').textContent(), /^Beam width must be between 1 and 16, not 99/);
  // A screen reader hears which box was refused and why: it is described by the message, and no
  // longer invalid, holding the setting again.
  assert.equal(await beam.getAttribute('aria-invalid'), null);
  assert.equal(await beam.getAttribute('aria-describedby'), await page.locator('[data-testid=tr-settings-error]').getAttribute('id'));
  assert.equal(await page.locator('[data-testid=tr-top-k]').getAttribute('aria-invalid'), null, 'only the refused box');
  await page.fill('[data-testid=tr-beam]', '2');
  await page.locator('[data-testid=tr-beam]').blur();
  await page.locator('[data-testid=tr-settings-error]').waitFor({ state: 'detached' });
  assert.deepEqual([await beam.getAttribute('aria-invalid'), await beam.getAttribute('aria-describedby')], [null, null]);
  assert.deepEqual(errors, []);
});

test('settings before the "#" (?text=…&beam=4) are read when the part after it has none, and the address keeps one copy', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '?backend=cpu&text=A%20dog%20runs.&beam=4', errors);
  await untilTranslated(page, 120000);
  assert.equal(await page.inputValue('[data-testid=tr-input]'), 'A dog runs.');
  assert.equal(await page.inputValue('[data-testid=tr-beam]'), '4');
  assert.equal(await page.evaluate(() => location.search), '');
  assert.match(await page.evaluate(() => location.hash), /^#translate\?beam=4&backend=cpu&text=A\+dog\+runs\.$/);
  assert.equal(await page.locator('[data-testid=url-problems]').count(), 0);
  // Both: the part after the "#" is used, and the other is named.
  const both = await openPage(rig.browser, rig.url + '?beam=3#translate?beam=2&text=A%20cat.', errors);
  await both.locator('[data-testid=url-problems]').waitFor();
  assert.match(await both.locator('[data-testid=url-problems]').textContent(), /the settings before the "#" \(beam\): those after it are used/);
  assert.equal(await both.inputValue('[data-testid=tr-beam]'), '2');
  assert.equal(await both.evaluate(() => location.search), '');
  // Someone else's parameters are left where they are, also beside ours.
  const other = await openPage(rig.browser, rig.url + '?fbclid=abc&text=A%20cat.', errors);
  assert.equal(await other.inputValue('[data-testid=tr-input]'), 'A cat.');
  assert.equal(await other.evaluate(() => location.search), '?fbclid=abc');
  assert.match(await other.evaluate(() => location.hash), /^#translate\?text=A\+cat\.$/);
  assert.equal(await other.locator('[data-testid=url-problems]').count(), 0);
  assert.deepEqual(errors, []);
  await Promise.all([page.close(), both.close(), other.close()]);
});

test('a link to Compare or Attention shows the sentence, model and search it will run before any run', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#compare?backend=cpu&beam=2&text=' + encodeURIComponent('A man rides a bike. A dog runs.'), errors);
  const plan = page.locator('[data-testid=cmp-plan]');
  await page.waitForFunction(() => /Transformer/.test(document.querySelector('[data-testid=cmp-plan]')?.textContent ?? ''));
  assert.match(await plan.textContent(), /^“\u2068A man rides a bike\.\u2069” with Transformer[^,]*, greedy, beam 4 \(the Translate view's beam 2, raised to 4\) and a sample$/);
  await page.click('[data-testid=nav-attention]');
  assert.match(await page.locator('[data-testid=att-plan]').textContent(), /^“\u2068A man rides a bike\.\u2069” with Transformer[^,]*, beam 2$/);
  // An ensemble has no single map: the plan says so before a run is refused.
  await page.click('[data-testid=nav-translate]');
  await page.selectOption('[data-testid=tr-model]', 'en-de/ensemble');
  await page.click('[data-testid=nav-attention]');
  assert.match(await page.locator('[data-testid=att-plan]').textContent(), /^“\u2068A man rides a bike\.\u2069” with Transformer ×2[^,]*, beam 2\. Attention is drawn for one model at a time: choose one of the ensemble's members \(the Use … buttons, or Translate's Model menu\)\.$/);
  // And a run says it at once (it downloaded every member first, saying nothing for a while).
  await page.click('[data-testid=att-run]');
  await page.waitForFunction(() => /^Attention is drawn for one model at a time/.test(document.querySelector('[data-testid=att-error]')?.textContent ?? ''), null, { timeout: 5000 });
  // Its members are offered by their names in the Model menu; one becomes the model everywhere.
  const members = await page.locator('[data-testid=att-members] button').allTextContents();
  assert.deepEqual(members, ['Use Transformer d224 (distilled)', 'Use Transformer d224 (distilled, back-translation)']);
  await page.click('[data-testid=att-member-en-de-transformer-d224-bt]');
  assert.match(await page.locator('[data-testid=att-plan]').textContent(), /with Transformer d224 \(distilled, back-translation\)[^,]*, beam 2$/);
  assert.equal(await page.locator('[data-testid=att-members]').count(), 0);
  assert.equal(await page.locator('[data-testid=att-error]').count(), 0, 'the refusal went with the ensemble');
  assert.match(page.url(), /model=en-de(%2F|\/)transformer-d224-bt/);
  await page.click('[data-testid=nav-translate]');
  await page.fill('[data-testid=tr-input]', '');
  await page.click('[data-testid=nav-attention]');
  assert.equal(await page.locator('[data-testid=att-plan]').textContent(), 'No sentence yet: type one in the Translate view.');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link to an unknown view or with a setting given twice says so', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bogus?beam=4&beam=8', errors);
  const problems = page.locator('[data-testid=url-problems]');
  await problems.waitFor();
  assert.match(await problems.textContent(), /view "bogus" \(not a view; Translate is shown\); beam's other value \(given twice; "8" is used\)/);
  assert.equal(await page.inputValue('[data-testid=tr-beam]'), '8');
  // Going on to another view puts the link's message away (it stayed on every view until Dismiss).
  await page.click('[data-testid=nav-bleu]');
  await problems.waitFor({ state: 'detached' });
  await page.click('[data-testid=nav-translate]');
  assert.equal(await problems.count(), 0);
  assert.deepEqual(errors, []);
});

test('a link whose text was cut inside a character, or with a number too small for a float, says so', async () => {
  const errors = [];
  // "€" is %E2%82%AC: the link lost its last byte; a = 1e-400 would read as 0.
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu&a=1e-400&text=Five%20dogs%20cost%205%E2%82', errors);
  const problems = page.locator('[data-testid=url-problems]');
  await problems.waitFor();
  const said = await problems.textContent();
  assert.match(said, /max length a 1e-400 is too small to hold \(it would read as 0\); write 0/);
  assert.match(said, /the text's last character, whose %-escape was cut short \(perhaps the link was cut when it was copied\)/);
  assert.equal(await page.inputValue('[data-testid=tr-input]'), 'Five dogs cost 5');
  assert.equal(await page.inputValue('[data-testid=tr-max-a]'), '2');
  // Cut inside an escape ("क" is %E0%A4%95): URLSearchParams keeps the "%9" as written.
  const cut = await openPage(rig.browser, rig.url + '#translate?backend=cpu&text=Two%20dogs%20%E0%A4%9', errors);
  await cut.locator('[data-testid=url-problems]').waitFor();
  assert.match(await cut.locator('[data-testid=url-problems]').textContent(), /the text's last character, whose %-escape was cut short/);
  assert.equal(await cut.inputValue('[data-testid=tr-input]'), 'Two dogs ');
  // Escapes that are not UTF-8 inside the text are not a cut link; a lone % is a character, kept.
  const inside = await openPage(rig.browser, rig.url + '#translate?backend=cpu&text=Two%FF%20dogs%2C%2050%', errors);
  await inside.locator('[data-testid=url-problems]').waitFor();
  assert.match(await inside.locator('[data-testid=url-problems]').textContent(), /the text's broken %-escapes \(bytes that are not UTF-8 characters\)/);
  assert.equal(await inside.inputValue('[data-testid=tr-input]'), 'Two dogs, 50%');
  assert.deepEqual(errors, []);
});

test('the status says when the maximum length cut the output and names unseen characters', async () => {
  const errors = [];
  const text = encodeURIComponent('A man in a blue shirt is standing on a ladder.');
  const page = await openPage(rig.browser, rig.url + `#translate?a=0&b=3&backend=cpu&text=${text}`, errors);
  const status = page.locator('[data-testid=tr-status]');
  await page.waitForFunction(() => /sentence.* in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''));
  assert.match(await status.textContent(), /1 sentence in (\d+ ms|\d+\.\d s|under 1 ms); the translation stopped at the maximum output length/);
  await page.fill('[data-testid=tr-input]', 'A man says 你好 to a dog.');
  await page.waitForFunction(() => /never seen/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''));
  assert.match(await status.textContent(), /characters the model has never seen \(translated as unknown\): 你 好/);
  assert.deepEqual(errors, []);
});

test('sentences appear as they finish, and an error replaces the old output', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  const long = Array.from({ length: 40 }, (_, i) => `A man with ${i} red balloons is walking past the old church in the rain.`).join(' ');
  await page.fill('[data-testid=tr-input]', long);
  // While the run is under way, finished sentences are shown and the others wait as "…".
  await page.waitForFunction(() => {
    const s = [...document.querySelectorAll('[data-testid=tr-output] .sentence')].map((e) => e.textContent.trim());
    return /Translating/.test(document.querySelector('[data-testid=tr-status]').textContent) && s.length === 40 && s.includes('…') && s.some((t) => t !== '…');
  }, null, { timeout: 120000, polling: 50 });
  await page.waitForFunction(() => / in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]').textContent), null, { timeout: 300000 });
  assert.ok(!(await page.locator('[data-testid=tr-output]').innerText()).includes('…'));
  await page.fill('[data-testid=tr-input]', 'x '.repeat(3000));
  await page.locator('[data-testid=tr-input-error]').waitFor();
  assert.match(await page.locator('[data-testid=tr-input-error]').textContent(), /6 000 characters/);
  assert.equal((await page.locator('[data-testid=tr-output]').innerText()).trim(), '', 'the old translation is gone');
  assert.deepEqual(errors, []);
});

test('the URL names the view, Back returns to the last view, and a link pasted into the tab is followed', async () => {
  const errors = [];
  // A link as people write them (a refused value, spaces, another order) is rewritten, view kept.
  const page = await openPage(rig.browser, rig.url + '#attention?text=A%20dog%20runs.&cov=-5&beam=3', errors);
  await page.locator('[data-testid=nav-attention].active').waitFor();
  await page.waitForFunction(() => location.hash === '#attention?beam=3&text=A+dog+runs.');
  // Typing adds no history entry: Back from Compare returns to Translate, then to Attention.
  await page.click('[data-testid=nav-translate]');
  await page.fill('[data-testid=tr-input]', 'A dog runs fast.');
  await page.waitForFunction(() => location.hash === '#translate?beam=3&text=A+dog+runs+fast.');
  await page.click('[data-testid=nav-attention]');
  await page.goBack();
  await page.locator('[data-testid=nav-translate].active').waitFor();
  await page.goBack();
  await page.locator('[data-testid=nav-attention].active').waitFor();
  assert.equal(await page.evaluate(() => location.hash), '#attention?beam=3&text=A+dog+runs.');
  await page.goForward();
  await page.locator('[data-testid=nav-translate].active').waitFor();
  assert.equal(await page.inputValue('[data-testid=tr-input]'), 'A dog runs fast.');
  await page.click('[data-testid=nav-compare]');
  await page.waitForFunction(() => location.hash.startsWith('#compare?beam=3&text='));
  await page.click('[data-testid=nav-bleu]');
  await page.waitForFunction(() => location.hash.startsWith('#bleu?'));
  await page.goBack();
  await page.locator('[data-testid=nav-compare].active').waitFor();
  await page.goBack();
  await page.locator('[data-testid=nav-translate].active').waitFor();
  // A link pasted into the address bar of the open tab.
  await page.evaluate(() => { location.hash = '#translate?beam=5&text=Two+men+are+fishing.'; });
  await page.locator('[data-testid=nav-translate].active').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-input]').value === 'Two men are fishing.');
  assert.equal(await page.inputValue('[data-testid=tr-beam]'), '5');
  assert.deepEqual(errors, []);
});

test('a link naming a model that is not shipped gets a message and the default model', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?model=xx%2Fyy&text=A+dog+runs.', errors);
  const problems = page.locator('[data-testid=url-problems]');
  await problems.waitFor();
  assert.match(await problems.textContent(), /"xx\/yy" \(not a shipped model; en-de\/transformer is used\)/);
  await untilTranslated(page, 120000);
  assert.equal(await page.locator('[data-testid=tr-output]').getAttribute('data-model'), 'en-de/transformer');
  assert.equal(await page.locator('[data-testid=tr-error]').count(), 0);
  assert.deepEqual(errors, []);
});

test('a settings message goes once the box holds a good value, and the evaluation count names what it refused', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate', errors);
  await page.fill('[data-testid=tr-top-p]', '0');
  await page.locator('[data-testid=tr-top-p]').blur();
  assert.match(await page.locator('[data-testid=tr-settings-error]').textContent(), /^Top-p must be between/);
  // The box went back to 1; typing 1 again is no change for the browser, but the message goes.
  await page.fill('[data-testid=tr-top-p]', '1');
  await page.locator('[data-testid=tr-settings-error]').waitFor({ state: 'detached' });
  await page.fill('[data-testid=eval-count]', '-5');
  await page.locator('[data-testid=eval-count]').blur();
  assert.match(await page.locator('[data-testid=eval-count-error]').textContent(), /must be between 1 and 1000, not -5; the evaluation keeps the first 1000/);
  assert.equal(await page.inputValue('[data-testid=eval-count]'), '1000');
  await page.fill('[data-testid=eval-count]', '20');
  await page.locator('[data-testid=eval-count]').blur();
  await page.locator('[data-testid=eval-count-error]').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
});

test('every settings box starts valid and its arrows reach round values; a right-to-left mark stays inside its quotes', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu&text=' + encodeURIComponent('\u202Edogs run. Next one.'), errors);
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  // Temperature and top-p counted their steps from 0.01: the default 1 was invalid, and ↑ gave 1.01.
  await page.waitForFunction(() => document.querySelector('[data-testid=tr-temperature]')?.value === '1');
  const invalid = await page.evaluate(() => [...document.querySelectorAll('.settings input[type=number]')].filter((e) => !e.validity.valid).map((e) => `${e.dataset.testid}=${e.value}`));
  assert.deepEqual(invalid, []);
  // Every box of Translate's settings says what it does (a tooltip on its label).
  const untitled = await page.evaluate(() => [...document.querySelectorAll('.options input[type=number][data-testid^=tr-]')].filter((e) => !e.closest('label')?.title).map((e) => e.dataset.testid));
  assert.deepEqual(untitled, []);
  assert.match(await page.locator('label', { has: page.locator('[data-testid=tr-coverage]') }).getAttribute('title'), /^Coverage penalty β \(GNMT\)/);
  await page.focus('[data-testid=tr-temperature]');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.inputValue('[data-testid=tr-temperature]'), '1.1');
  await page.focus('[data-testid=tr-top-p]');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.inputValue('[data-testid=tr-top-p]'), '0.95');
  // The sentence is isolated (FSI … PDI): its override mark turned the whole plan line around.
  await page.click('[data-testid=nav-compare]');
  await page.waitForFunction(() => /Transformer/.test(document.querySelector('[data-testid=cmp-plan]')?.textContent ?? ''));
  assert.ok((await page.locator('[data-testid=cmp-plan]').textContent()).startsWith('“\u2068\u202Edogs run.\u2069” with '));
  assert.deepEqual(errors, []);
  await page.close();
});
