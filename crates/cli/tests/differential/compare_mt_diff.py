"""Differential test: `wgslate compare --json` against compare-mt 0.2.10's own report functions.

    python compare_mt_diff.py --wgslate PATH [--data DIR] [--seed S]

Cases (held in, written to a temporary directory): Multi30k's German validation set, punctuation
split off, as the reference, and two systems made from it by seeded edits (dropped, repeated,
swapped and replaced words), scored with word frequencies from the reference and from the training
set; and small adversarial files: empty lines, repeated words, runs of spaces, tabs, CRLF, a line of
10 000 words, n-grams tied in score. compare-mt's numbers come from the functions its command line
calls with its defaults (generate_score_report, generate_sentence_bucketed_report with
bucket_type=length, generate_word_accuracy_report, generate_ngram_report with report_length=20);
every one is compared exactly. The sentence-BLEU histogram and the lines that differ most are ours:
they are checked against sacreBLEU's sentence_bleu. Closes with "N passed, N failed".
"""
import argparse
import contextlib
import io
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

from compare_mt import compare_mt_main, corpus_utils, reporters
from sacrebleu.metrics import BLEU

TOP = 20


def tokenize(line):
    return " ".join(re.sub(r"([^\w\s])", r" \1 ", line).split())


def perturb(words, rng, rate, vocab):
    out = []
    for w in words:
        r = rng.random()
        if r < rate * 0.3:
            continue
        if r < rate * 0.6:
            out.append(rng.choice(vocab))
        elif r < rate * 0.8:
            out += [w, w]
        else:
            out.append(w)
    if len(out) > 2 and rng.random() < rate:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def multi30k(data, rng):
    with open(os.path.join(data, "val.de"), encoding="utf-8") as f:
        ref = [tokenize(line) for line in f]
    vocab = sorted({w for line in ref for w in line.split()})
    sys1 = [" ".join(perturb(line.split(), rng, 0.15, vocab)) for line in ref]
    sys2 = [" ".join(perturb(line.split(), rng, 0.3, vocab)) for line in ref]
    return ref, sys1, sys2


def adversarial(rng):
    words = "der die das Mann Frau Hund ein eine spielt im Park . ,".split()
    ref, sys1, sys2 = [], [], []
    for i in range(120):
        line = [rng.choice(words) for _ in range(rng.randrange(0, 25))]
        ref.append(" ".join(line))
        sys1.append(" ".join(perturb(line, rng, 0.4, words)))
        sys2.append(" ".join(perturb(line, rng, 0.2, words)))
    ref += ["", "", "der der der der der", "  Mann  Frau ", "\tein\tHund", "x", "a b", "", "Park"]
    sys1 += ["", "Hund", "der der der", "Mann Frau", "ein Hund", "x", "a b", "", ""]
    sys2 += ["Hund", "", "der der der der der der der", "Mann  Frau", "\tein\tHund ", "y", "b a", "", "Park"]
    long = " ".join(rng.choice(words) for _ in range(10_000))
    ref.append(long)
    sys1.append(long)
    sys2.append(" ".join(perturb(long.split(), rng, 0.1, words)))
    return ref, sys1, sys2


def ties(rng):
    """Every n-gram matched once by one system only: one score, (1 + 1) / (1 + 2), for all of them."""
    ref = [f"w{i} v{i}" for i in range(60)]
    return ref, [ref[i] if i % 2 else "" for i in range(60)], [ref[i] if i % 2 == 0 else "" for i in range(60)]


def write(directory, name, lines, newline="\n"):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("".join(line + newline for line in lines))
    return path


def compare_mt(ref_path, sys_paths, freq_corpus):
    ref = corpus_utils.load_tokens(ref_path)
    outs = [corpus_utils.load_tokens(p) for p in sys_paths]
    reporters.sys_names = ["sys1", "sys2"]
    with contextlib.redirect_stdout(io.StringIO()):
        score = compare_mt_main.generate_score_report(ref, outs, score_type="bleu")
        length = compare_mt_main.generate_sentence_bucketed_report(
            ref, outs, bucket_type="length", statistic_type="score", score_measure="bleu")
        words = compare_mt_main.generate_word_accuracy_report(ref, outs, freq_corpus_file=freq_corpus)
        ngrams = compare_mt_main.generate_ngram_report(ref, outs, report_length=TOP, compare_type="match")
    bucketed = length.bucketer.create_bucketed_corpus(outs[0], ref=ref)
    return {
        "bleu": list(score.scores),
        "length_buckets": [
            {"label": label, "lines": len(bucketed[b][0]), "bleu": [s[b] for s in length.sys_stats]}
            for b, label in enumerate(length.bucketer.bucket_strs)
        ],
        "frequency_buckets": [
            {
                "label": label,
                "ref_words": int(words.statistics[0][b][1]),
                "systems": [
                    dict(zip(["matches", "ref", "words", "recall", "precision", "f_measure"], map(float, st[b])))
                    for st in words.statistics
                ],
            }
            for b, label in enumerate(words.bucketer.bucket_strs)
        ],
        "ngrams": ngrams.scorelist[0],
        "matches": ngrams.matches,
    }


def check_ngrams(ours, scorelist, matches, direction):
    """Our list must be a top-TOP of compare-mt's ranking: its scores in order, and every n-gram
    with the counts and score compare-mt has; only the order within a tie may differ."""
    problems = []
    theirs = scorelist if direction == 0 else scorelist[::-1]
    score = {" ".join(k): v for k, v in scorelist}
    if [d["score"] for d in ours] != [v for _, v in theirs[:TOP]]:
        problems.append(f"scores {[d['score'] for d in ours]} != {[v for _, v in theirs[:TOP]]}")
    if len({d["ngram"] for d in ours}) != len(ours):
        problems.append("an n-gram listed twice")
    for d in ours:
        key = tuple(d["ngram"].split(" "))
        counts = [matches[0].get(key, 0), matches[1].get(key, 0)]
        if score.get(d["ngram"]) != d["score"] or counts != d["matches"]:
            problems.append(f"{d} but compare-mt has score {score.get(d['ngram'])}, matches {counts}")
    if ours:
        last = ours[-1]["score"]
        ahead = {" ".join(k) for k, v in theirs if (v > last if direction == 0 else v < last)}
        if not ahead <= {d["ngram"] for d in ours}:
            problems.append(f"left out n-grams ranked above the last listed: {sorted(ahead - {d['ngram'] for d in ours})[:5]}")
    return problems


def histogram_bin(d):
    """[-100,-90) … [-10,0) are bins 0 to 9, a tie bin 10, (0,10] … (90,100] bins 11 to 20; a
    sentence BLEU of 100.00000000000004 (sacreBLEU's, for a perfect line) falls in an outer bin."""
    if d < 0:
        return max(0, min(9, math.floor((d + 100) / 10)))
    return 10 + min(10, math.ceil(d / 10))


def check_sentences(ours, ref, sys1, sys2):
    """The histogram and the lines that differ most, from sacreBLEU's sentence_bleu."""
    bleu = BLEU(effective_order=True)
    scores = [[bleu.sentence_score(h, [r]).score for h in (a, b)] for r, a, b in zip(ref, sys1, sys2)]
    problems = []
    counts = [0] * 21
    for a, b in scores:
        counts[histogram_bin(a - b)] += 1
    if [b["lines"] for b in ours["histogram"]] != counts:
        problems.append(f"histogram {[b['lines'] for b in ours['histogram']]} != {counts}")
    seen, candidates = set(), []
    for i, (a, b) in enumerate(scores):
        if a != b and (ref[i], sys1[i], sys2[i]) not in seen:
            seen.add((ref[i], sys1[i], sys2[i]))
            candidates.append((-abs(a - b), i))
    expected = [{"line": i + 1, "bleu": scores[i]} for _, i in sorted(candidates)[:10]]
    got = [{"line": d["line"], "bleu": d["bleu"]} for d in ours["top_lines"]]
    if got != expected:
        problems.append(f"top lines {got} != {expected}")
    return problems


def compare_case(name, wgslate, paths, freq_corpus, lines):
    args = [wgslate, "compare", *paths, "--json"] + (["--freq-corpus", freq_corpus] if freq_corpus else [])
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        return [f"wgslate compare failed: {run.stderr}"]
    ours = json.loads(run.stdout)
    theirs = compare_mt(paths[0], paths[1:], freq_corpus)
    problems = []
    for table in ["bleu", "length_buckets"]:
        if ours[table] != theirs[table]:
            problems.append(f"{table}: {ours[table]} != {theirs[table]}")
    for o, t in zip(ours["frequency_buckets"], theirs["frequency_buckets"]):
        systems = [{k: s[k] for k in ["matches", "words", "recall", "precision", "f_measure"]} for s in t["systems"]]
        if (o["label"], o["ref_words"], o["systems"]) != (t["label"], t["ref_words"], systems):
            problems.append(f"frequency bucket {o} != {t}")
    for direction in (0, 1):
        problems += check_ngrams(ours["ngrams"][direction], theirs["ngrams"], theirs["matches"], direction)
    problems += check_sentences(ours, *lines)
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wgslate", required=True)
    parser.add_argument("--data", default="/work/shared/data/multi30k")
    parser.add_argument("--seed", default="ci")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        train = os.path.join(args.data, "train.de")
        with open(train, encoding="utf-8") as f:
            freq = write(tmp, "train.tok", [tokenize(line) for line in f])
        validation = multi30k(args.data, rng)
        cases = [("multi30k", validation, None), ("multi30k-train-freq", validation, freq),
                 ("adversarial", adversarial(rng), None), ("ties", ties(rng), None)]
        for name, lines, freq_corpus in cases:
            newline = "\r\n" if name == "adversarial" else "\n"
            paths = [write(tmp, f"{name}.{role}", text, newline) for role, text in zip(["ref", "sys1", "sys2"], lines)]
            # sacreBLEU reads what wgslate reads: each line without its CR.
            problems = compare_case(name, args.wgslate, paths, freq_corpus, [[l.rstrip() for l in t] for t in lines])
            print(f"{name}: {'ok' if not problems else 'FAILED'}")
            for p in problems[:10]:
                print(f"  {p}")
            passed, failed = passed + (not problems), failed + bool(problems)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
