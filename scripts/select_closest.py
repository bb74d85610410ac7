#!/usr/bin/env python3
"""Picks, for each sentence, the n-best hypothesis nearest its reference (sequence-level
interpolation, Kim & Rush 2016): the highest sacreBLEU sentence BLEU, ties to the better model score.
With --alpha A it picks instead the best length-normalised score, score / (words + 1)^A, and the
reference file only gives the number of sentences.
A dev-time step of the README's training record; needs sacrebleu (target/sacrebleu-venv).

usage: target/sacrebleu-venv/bin/python scripts/select_closest.py [--alpha A] REF NBEST > OUT
  NBEST: `wgslate translate --nbest N` output, `i ||| text ||| F0= logprob ||| score` lines"""
import sys

from sacrebleu.metrics import BLEU


def lines(path):
    with open(path, encoding='utf-8', newline='\n') as f:
        text = f.read()
    return text.removesuffix('\n').split('\n')


def main(ref_path, nbest_path, alpha=None):
    refs = lines(ref_path)
    candidates = [[] for _ in refs]
    model_scores = [[] for _ in refs]
    for line in lines(nbest_path):
        index, text, _, score = line.split(' ||| ')
        candidates[int(index)].append(text)
        model_scores[int(index)].append(float(score))
    bleu = BLEU(effective_order=True)
    out = []
    moved = 0
    for i, (ref, hyps) in enumerate(zip(refs, candidates)):
        if not hyps:
            sys.exit(f'select_closest: no hypothesis for sentence {i}')
        if alpha is None:
            scores = [bleu.sentence_score(h, [ref]).score for h in hyps]
        else:
            scores = [m / (len(h.split()) + 1) ** alpha for h, m in zip(hyps, model_scores[i])]
        best = max(range(len(hyps)), key=lambda k: (scores[k], -k))
        moved += best != 0
        out.append(hyps[best])
    sys.stdout.write('\n'.join(out) + '\n')
    print(f'select_closest: {moved} of {len(refs)} sentences take a hypothesis other than the first',
          file=sys.stderr)


if __name__ == '__main__':
    args = sys.argv[1:]
    alpha = None
    if args[:1] == ['--alpha'] and len(args) == 4:
        alpha = float(args[1])
        args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    main(*args, alpha=alpha)
