#!/usr/bin/env python3
"""Picks, for each sentence, the n-best hypothesis nearest its reference (sequence-level
interpolation, Kim & Rush 2016): the highest sacreBLEU sentence BLEU, ties to the better model score.
A dev-time step of the README's training record; needs sacrebleu (target/sacrebleu-venv).

usage: target/sacrebleu-venv/bin/python scripts/select_closest.py REF NBEST > OUT
  NBEST: `wgslate translate --nbest N` output, `i ||| text ||| F0= logprob ||| score` lines"""
import sys

from sacrebleu.metrics import BLEU


def lines(path):
    with open(path, encoding='utf-8', newline='\n') as f:
        text = f.read()
    return text.removesuffix('\n').split('\n')


def main(ref_path, nbest_path):
    refs = lines(ref_path)
    candidates = [[] for _ in refs]
    for line in lines(nbest_path):
        index, text, _, _ = line.split(' ||| ')
        candidates[int(index)].append(text)
    bleu = BLEU(effective_order=True)
    out = []
    moved = 0
    for i, (ref, hyps) in enumerate(zip(refs, candidates)):
        if not hyps:
            sys.exit(f'select_closest: no hypothesis for sentence {i}')
        scores = [bleu.sentence_score(h, [ref]).score for h in hyps]
        best = max(range(len(hyps)), key=lambda k: (scores[k], -k))
        moved += best != 0
        out.append(hyps[best])
    sys.stdout.write('\n'.join(out) + '\n')
    print(f'select_closest: {moved} of {len(refs)} sentences take a hypothesis other than the first',
          file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
