import { launch, open, report, txt, setVal, sleep, waitIdle, tid } from './walk_tmp_lib.mjs';
const b = await launch(false);
const e = encodeURIComponent;
const big = 'word '.repeat(20000);
const cases = [
  '#translate?beam=0&text=Hello',
  '#translate?beam=999&text=Hello',
  '#translate?temperature=-1&sample=1&text=Hello',
  '#translate?top_p=2&text=Hello',
  '#translate?model=xx-yy%2Ffoo&text=Hello',
  '#translate?model=fr-en%2Ftransformer&text=Hello%20world',
  '#translate?model=de-en%2Ftransformer&text=' + e('Der Hund läuft über die Straße.'),
  '#translate?beam=abc&lenpen=NaN&text=Hi',
  '#translate?beam=4&beam=8&text=Hi',
  '#bogus?text=Hi',
  '#translate?text=' + e(big),
  '#compare?model=en-de%2Fensemble&beam=0&text=Hi',
  '#attention?beam=999&text=Hi',
  '#bleu?beam=0',
];
for (const h of cases) {
  const p = await open(b, h);
  await sleep(1500);
  const w = await waitIdle(p, 60000);
  console.log('\n=== ' + h.slice(0, 120));
  for (const id of ['url-problems', 'tr-settings-error', 'tr-input-error', 'tr-error', 'tr-status', 'tr-output']) {
    const t = await txt(p, id); if (t !== '<none>') console.log(id + ': ' + t.slice(0, 300).replace(/\n/g, ' | '));
  }
  console.log('beam field:', await p.locator('[data-testid=tr-beam]').inputValue({timeout:500}).catch(()=>'-'), 'model:', await p.locator('[data-testid=tr-model]').inputValue({timeout:500}).catch(()=>'-'));
  console.log('input len', await p.locator('[data-testid=tr-input]').inputValue({timeout:500}).then(v=>v.length).catch(()=>'-'));
  console.log('url now:', p.url().slice(0, 160), 'len', p.url().length);
  await report(p, 'idle ' + w);
  await p.context().close();
}
await b.close();
