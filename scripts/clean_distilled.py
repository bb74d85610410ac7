#!/usr/bin/env python3
"""Replaces degenerate distillation targets with the human reference (a dev-time step, README's
training record): a translation longer than 2 × source words + 5, or one that repeats a word or a
phrase of up to three words four times in a row.

usage: scripts/clean_distilled.py SRC REF HYP > OUT   (one sentence a line, the same number of lines)"""
import re
import sys

LOOP = re.compile(r'(\b\S+(?: \S+){0,2}\b)(?: \1){3,}')


def lines(path):
    with open(path, encoding='utf-8', newline='\n') as f:
        text = f.read()
    return text.removesuffix('\n').split('\n')


def main(src_path, ref_path, hyp_path):
    src, ref, hyp = lines(src_path), lines(ref_path), lines(hyp_path)
    if not len(src) == len(ref) == len(hyp):
        sys.exit(f'clean_distilled: {len(src)}, {len(ref)} and {len(hyp)} lines: the files must have as many')
    replaced = 0
    out = []
    for s, r, h in zip(src, ref, hyp):
        bad = len(h.split()) > 2 * len(s.split()) + 5 or LOOP.search(h)
        replaced += bool(bad)
        out.append(r if bad else h)
    sys.stdout.write('\n'.join(out) + '\n')
    print(f'clean_distilled: {replaced} of {len(hyp)} targets replaced by the reference', file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
