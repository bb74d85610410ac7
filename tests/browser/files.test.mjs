// Files in and out: a .txt translated line for line (the CLI's output for each sentence, a line
// of several sentences split as the Translate box splits it, the same line count), a long file
// stopped with its finished lines kept, and the BLEU per-line table and Compare outputs exported as TSV and JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser, openPage, wgslate, root, holdRequests } from './harness.mjs';

const rig = useBrowser(8138);
const dir = mkdtempSync(join(tmpdir(), 'wgslate-files-'));

async function download(page, testid) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), 'utf8') };
}

// A TSV file's rows as Python's csv module reads them (the tab dialect spreadsheets import).
function pythonTsvRows(text) {
  const read = 'import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin, dialect="excel-tab"))))';
  return JSON.parse(execFileSync('python3', ['-c', read], { input: text, encoding: 'utf8' }));
}

// The Translate view on the CPU engine with "Translate a file" open.
async function fileTranslatePage(errors) {
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  await page.click('details.file-translate summary');
  return page;
}

test('a file dropped anywhere on the Translate a file section is translated (not only on its drop zone), and the section opens', async () => {
  const errors = [];
  // Closed: the file is dropped on its heading.
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu', errors);
  await page.locator('details.file-translate > summary').waitFor();
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['A dog runs.\n'], 'dropped.txt', { type: 'text/plain' }));
    document.querySelector('details.file-translate > summary').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.locator('[data-testid=tr-file-download]').waitFor({ timeout: 120000 });
  assert.equal(await page.evaluate(() => document.querySelector('details.file-translate').open), true);
  const { name, text } = await download(page, 'tr-file-download');
  assert.equal(name, 'dropped.de.txt');
  assert.equal(text, wgslate(['translate', '--model', join(root, 'www', 'models', 'en-de', 'transformer'), '--backend', 'cpu'], 'A dog runs.\n'));
  // Two files at once are refused; the message comes after the last file's download, which stays
  // (above it, the download read as the refused drop's).
  await page.evaluate(() => {
    const dt = new DataTransfer();
    for (const name of ['a.txt', 'b.txt']) dt.items.add(new File(['A cat.\n'], name, { type: 'text/plain' }));
    document.querySelector('details.file-translate > summary').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.locator('[data-testid=tr-file-error]').waitFor();
  assert.equal(await page.locator('[data-testid=tr-file-error]').textContent(), '2 files were dropped; drop one at a time (nothing was loaded).');
  assert.ok(await page.evaluate(() => {
    const [download, error] = ['tr-file-download', 'tr-file-error'].map((id) => document.querySelector(`[data-testid=${id}]`));
    return Boolean(download.compareDocumentPosition(error) & Node.DOCUMENT_POSITION_FOLLOWING);
  }), 'the error follows the download');
  assert.equal((await download(page, 'tr-file-download')).name, 'dropped.de.txt');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a picked .txt is translated line for line and downloaded with the same lines', async () => {
  const errors = [];
  const lines = ['A man is riding a bike.', '', 'Two dogs play in the snow.', 'A woman reads a book on a bench. She is smiling.'];
  const file = join(dir, 'notes.txt');
  // Saved with a byte order mark, which is not part of the first sentence.
  writeFileSync(file, '\ufeff' + lines.join('\n') + '\n');
  const page = await fileTranslatePage(errors);
  await page.setInputFiles('[data-testid=tr-file]', file);
  await page.locator('[data-testid=tr-file-download]').waitFor({ timeout: 120000 });
  const { name, text } = await download(page, 'tr-file-download');
  assert.equal(name, 'notes.de.txt');
  const out = text.split('\n');
  assert.equal(out.pop(), '', 'ends with a line break');
  assert.equal(out.length, lines.length, 'the same number of lines');
  assert.equal(out[1], '', 'an empty line stays empty');
  const model = join(root, 'www', 'models', 'en-de', 'transformer');
  const sentences = ['A man is riding a bike.', 'Two dogs play in the snow.', 'A woman reads a book on a bench.', 'She is smiling.'];
  const native = wgslate(['translate', '--model', model, '--backend', 'cpu'], sentences.join('\n') + '\n').split('\n');
  assert.deepEqual([out[0], out[2], out[3]], [native[0], native[1], `${native[2]} ${native[3]}`]);
  // wgslate translate splits the file's lines into sentences the same way: the same file out.
  const whole = wgslate(['translate', '--model', model, '--backend', 'cpu'], lines.join('\n') + '\n').split('\n');
  assert.deepEqual(out, whole.slice(0, lines.length));
  // The status names the model and search the run used (it keeps them if the form changes meanwhile).
  assert.match(await page.locator('[data-testid=tr-file-status]').textContent(), /4 lines \(3 translated\) with Transformer \(distilled\), English → German, greedy in (\d+ ms|[\d.]+ s)/);
  // The same file picked again with another model is translated again (the input is emptied after each pick).
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  await page.setInputFiles('[data-testid=tr-file]', file);
  await page.waitForFunction(() => /4 lines \(3 translated\) with GRU \+ attention, English → German, greedy in/.test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.deepEqual(errors, []);
});

test('a file waiting for its model says how far that download is, also once the picker has another model', async () => {
  const errors = [];
  const page = await fileTranslatePage(errors);
  const release = await holdRequests(page, '**/en-de/gru/model.safetensors');
  await page.selectOption('[data-testid=tr-model]', 'en-de/gru');
  const file = join(dir, 'waits.en.txt');
  writeFileSync(file, 'A man is riding a bike.\n');
  await page.setInputFiles('[data-testid=tr-file]', file);
  const waiting = /^Downloading en-de\/gru, \d+ %, to translate 1 line \(1 sentence\) with GRU \+ attention, English → German, greedy…$/;
  await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''), waiting.source, { timeout: 60000 });
  // The bar now follows the Transformer; the file's status still tells of the GRU's download.
  await page.selectOption('[data-testid=tr-model]', 'en-de/transformer');
  await new Promise((r) => setTimeout(r, 1000));
  assert.match(await page.locator('[data-testid=tr-file-status]').textContent(), waiting);
  release();
  await page.waitForFunction(() => /^1 line \(1 translated\) with GRU \+ attention, English → German, greedy in/.test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the notes say which lines of a file, and which sentences of the box, were cut to the model\'s limit', async () => {
  const errors = [];
  const long = 'a '.repeat(300).trim() + '.';
  // 20 lines, more than one batch of 8 sentences: the CPU workers' shares are numbered in the whole file.
  const lines = Array.from({ length: 20 }, (_, i) => (i === 2 || i === 18 ? long : i === 5 ? '' : `A dog runs ${i}.`));
  const page = await openPage(rig.browser, rig.url + '#translate?backend=cpu&a=0&b=4&text=' + encodeURIComponent('A dog runs. A ' + long), errors);
  await page.waitForFunction(() => /in (\d+ ms|\d+\.\d s|under 1 ms)/.test(document.querySelector('[data-testid=tr-status]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.match(await page.locator('[data-testid=tr-status]').textContent(), /1 sentence \(sentence 2\) was cut to the model's limit of 256 subwords/);
  await page.click('details.file-translate summary');
  await page.setInputFiles('[data-testid=tr-file]', { name: 'long.txt', mimeType: 'text/plain', buffer: Buffer.from(lines.join('\n') + '\n') });
  await page.waitForFunction(() => /translated\)/.test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.match(await page.locator('[data-testid=tr-file-status]').textContent(), /2 sentences \(lines 3 and 19\) were cut to the model's limit of 256 subwords/);
  assert.deepEqual(errors, []);
});

test('a file in another language gets a hint, and its button translates the file again with that language\'s model', async () => {
  const errors = [];
  const german = readFileSync(join(root, 'www', 'data', 'val.de'), 'utf8').split('\n').slice(0, 3);
  const file = join(dir, 'deutsch.txt');
  writeFileSync(file, german.join('\n') + '\n');
  const page = await fileTranslatePage(errors);
  await page.setInputFiles('[data-testid=tr-file]', file);
  await page.locator('[data-testid=tr-file-language]').waitFor({ timeout: 120000 });
  assert.equal(await page.locator('[data-testid=tr-file-language]').textContent(),
    'This file reads as German, but the model translates from English. Translate German → English');
  await page.click('[data-testid=tr-file-language-switch]');
  await page.waitForFunction(() => /3 lines \(3 translated\) with Transformer, German → English, greedy in/.test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''), null, { timeout: 120000 });
  const { name, text } = await download(page, 'tr-file-download');
  assert.equal(name, 'deutsch.en.txt');
  const model = join(root, 'www', 'models', 'de-en', 'transformer');
  assert.equal(text, wgslate(['translate', '--model', model, '--backend', 'cpu'], german.join('\n') + '\n'));
  assert.equal(await page.locator('[data-testid=tr-file-language]').count(), 0, 'no hint once the model fits');
  assert.deepEqual(errors, []);
});

test('a file with Windows line ends comes back with Windows line ends; old Mac ones get a note', async () => {
  const errors = [];
  const file = join(dir, 'windows.txt');
  writeFileSync(file, 'A dog runs.\r\n\r\nTwo men fish.\r\n');
  const page = await fileTranslatePage(errors);
  await page.setInputFiles('[data-testid=tr-file]', file);
  await page.locator('[data-testid=tr-file-download]').waitFor({ timeout: 120000 });
  const { text } = await download(page, 'tr-file-download');
  const out = text.split('\r\n');
  assert.equal(out.length, 4, JSON.stringify(text));
  assert.equal(out.pop(), '', 'ends with CR LF');
  assert.equal(out[1], '', 'an empty line stays empty');
  assert.ok(out.every((l) => !l.includes('\n') && !l.includes('\r')), JSON.stringify(text));
  // Old Mac line ends (a carriage return alone) end no line, as in the CLI, which says so too.
  const mac = join(dir, 'mac.txt');
  writeFileSync(mac, 'A dog runs.\rTwo men fish.\r');
  await page.setInputFiles('[data-testid=tr-file]', mac);
  await page.waitForFunction(() => /^1 line \(1 translated\)/.test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.match(await page.locator('[data-testid=tr-file-status]').textContent(), /; 1 input line holds a carriage return that ends no line \(old Mac line ends\?\): only \\n ends a line, so each was translated as one line$/);
  assert.deepEqual(errors, []);
});

test('Stop ends a long file’s translation and offers the lines finished', async () => {
  const errors = [];
  const file = join(dir, 'long.txt');
  // Line 2's first sentence is longer than the model takes: the stopped run still says so.
  const lines = Array.from({ length: 400 }, (_, i) => `A man with ${i % 9} dogs walks down the street number ${i}. He is happy.`);
  lines[1] = `A ${'a '.repeat(300)}dog. He is happy.`;
  writeFileSync(file, lines.join('\n'));
  const page = await fileTranslatePage(errors);
  await page.setInputFiles('[data-testid=tr-file]', file);
  await page.waitForFunction(() => /Translating [1-9]\d* of 400 lines \([1-9]\d* of 800 sentences\)/.test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''), null, { timeout: 120000 });
  await page.click('[data-testid=tr-file-stop]');
  await page.waitForFunction(() => /Stopped after \d+ of 400 lines/.test(document.querySelector('[data-testid=tr-file-status]')?.textContent ?? ''));
  assert.equal(await page.locator('[data-testid=tr-file-stop]').count(), 0);
  const stopped = Number((await page.locator('[data-testid=tr-file-status]').textContent()).match(/Stopped after (\d+)/)[1]);
  assert.match(await page.locator('[data-testid=tr-file-download]').textContent(), new RegExp(`Download the ${stopped} translated line`));
  const { name, text } = await download(page, 'tr-file-download');
  assert.equal(name, 'long.de.partial.txt');
  const out = text.split('\n');
  assert.equal(out.pop(), '');
  assert.equal(out.length, 400, 'every line has its place; those not reached are empty');
  assert.equal(out.filter((l) => l).length, stopped, 'a line whose second sentence was not reached stays empty');
  assert.ok(out.filter((l, i) => l && i !== 1).every((l) => /\.\s+\S.*\.$/.test(l)), 'each kept line has both its sentences');
  assert.match(await page.locator('[data-testid=tr-file-status]').textContent(), /Stopped after \d+ of 400 lines \(.*\); 1 sentence \(line 2\) was cut to the model's limit of 256 subwords/);
  assert.deepEqual(errors, []);
});

test('a new file clears the last one’s status; an empty or non-text file gets a message and no download', async () => {
  const errors = [];
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '\n  \n');
  const binary = join(dir, 'image.txt');
  writeFileSync(binary, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]));
  const one = join(dir, 'one.txt');
  writeFileSync(one, 'A dog runs.\n');
  const page = await fileTranslatePage(errors);
  await page.setInputFiles('[data-testid=tr-file]', one);
  await page.locator('[data-testid=tr-file-download]').waitFor({ timeout: 120000 });
  await page.setInputFiles('[data-testid=tr-file]', empty);
  await page.locator('[data-testid=tr-file-error]').waitFor();
  assert.match(await page.locator('[data-testid=tr-file-error]').textContent(), /empty\.txt has no text to translate/);
  assert.equal(await page.locator('[data-testid=tr-file-status]').textContent(), '');
  assert.equal(await page.locator('[data-testid=tr-file-download]').count(), 0);
  await page.setInputFiles('[data-testid=tr-file]', binary);
  await page.waitForFunction(() => /not UTF-8/.test(document.querySelector('[data-testid=tr-file-error]')?.textContent ?? ''));
  assert.equal(await page.locator('[data-testid=tr-file-status]').textContent(), '');
  // Notepad's "Unicode" (UTF-16 with its byte order mark) gets told how to fix it.
  await page.setInputFiles('[data-testid=tr-file]', { name: 'notepad.txt', mimeType: 'text/plain', buffer: Buffer.from('\ufeffA dog runs.\n', 'utf16le') });
  await page.waitForFunction(() => /notepad\.txt is UTF-16 text .*save it as UTF-8/.test(document.querySelector('[data-testid=tr-file-error]')?.textContent ?? ''));
  // A paragraph of 52 000 sentences on one line (what the Translate box's 5 000-character limit
  // suggests putting in a file), and a file too large to read at all.
  const sentence = 'A young boy in a red shirt sits on a bench. ';
  await page.setInputFiles('[data-testid=tr-file]', { name: 'paragraph.txt', mimeType: 'text/plain', buffer: Buffer.from(sentence.repeat(52000)) });
  await page.waitForFunction(() => /paragraph\.txt has 52 000 sentences; wgslate translates files of up to 20 000 sentences/.test(document.querySelector('[data-testid=tr-file-error]')?.textContent ?? ''), null, { timeout: 60000 });
  assert.equal(await page.locator('[data-testid=tr-file-status]').textContent(), '');
  await page.setInputFiles('[data-testid=tr-file]', { name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc(20e6, 'a') });
  await page.waitForFunction(() => /huge\.txt is 20\.0 MB; wgslate translates files of up to 4 MB/.test(document.querySelector('[data-testid=tr-file-error]')?.textContent ?? ''), null, { timeout: 60000 });
  assert.deepEqual(errors, []);
});

test('the BLEU per-line table and the Compare outputs export as TSV and JSON', async () => {
  const errors = [];
  const page = await openPage(rig.browser, rig.url + '#bleu', errors);
  // A tab, quotes, and texts a spreadsheet would run as formulas.
  const hyps = ['a b c d', 'the cat\tsat', 'say "hi" now', '=HYPERLINK("http://x")', '-a dog', '+1 @ 2'];
  const refs = ['a b c d', 'the cat sat', 'say hi now', '"quoted" ref', '@ref', 'x'];
  await page.fill('[data-testid=bleu-hyp]', hyps.join('\n'));
  await page.fill('[data-testid=bleu-ref-0]', refs.join('\n'));
  await page.click('[data-testid=bleu-run]');
  await page.locator('[data-testid=bleu-export-tsv]').waitFor();
  const tsv = await download(page, 'bleu-export-tsv');
  assert.equal(tsv.name, 'sentence-bleu.tsv');
  const rows = pythonTsvRows(tsv.text);
  // WER and PER are on by default: each line's figures come after sentence BLEU.
  assert.deepEqual(rows[0], ['line', 'sentence_bleu', 'sentence_wer', 'sentence_per', 'hypothesis', 'reference_1']);
  const asText = (s) => (/^[=+\-@]/.test(s) ? "'" + s : s);
  assert.deepEqual(rows.slice(1).map((r) => [r[0], r[4], r[5]]), hyps.map((h, i) => [String(i + 1), asText(h), asText(refs[i])]));
  assert.deepEqual(rows[1].slice(1, 4).map(Number), [100, 0, 0]);
  assert.equal(rows[2][2], '66.6667', 'jiwer keeps "cat\tsat" one word: 2 edits in 3 words');
  const json = JSON.parse((await download(page, 'bleu-export-json')).text);
  assert.deepEqual(json.map((l) => l.hypothesis), hyps, 'the JSON keeps every text exact');
  assert.deepEqual(json[3].references, ['"quoted" ref']);

  assert.deepEqual(errors, []);

  const compare = await openPage(rig.browser, rig.url + '#translate?backend=cpu&beam=3&text=' + encodeURIComponent('A man is riding a bike.'), errors);
  await compare.click('[data-testid=nav-compare]');
  await compare.click('[data-testid=cmp-run]');
  await compare.locator('[data-testid=cmp-export-json]').waitFor({ timeout: 120000 });
  const cmp = JSON.parse((await download(compare, 'cmp-export-json')).text);
  assert.equal(cmp.source, 'A man is riding a bike.');
  assert.equal(cmp.settings.model, 'en-de/transformer');
  assert.equal(cmp.settings.beam, '4', 'the beam width the beam column ran with');
  assert.deepEqual([...new Set(cmp.outputs.map((o) => o.search))], ['greedy', 'beam', 'sample']);
  assert.equal(cmp.outputs.filter((o) => o.search === 'beam').length, 4, 'Compare runs beam 4 at least');
  assert.equal(cmp.outputs.find((o) => o.search === 'greedy').text, (await compare.locator('[data-testid=cmp-greedy]').innerText()).trim());
  const cmpTsv = pythonTsvRows((await download(compare, 'cmp-export-tsv')).text);
  assert.deepEqual(cmpTsv.slice(1).map((r) => r[2]), cmp.outputs.map((o) => o.text));
  assert.deepEqual(errors, []);
});
