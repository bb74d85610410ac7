"""Differential test: `wgslate bleu -m wer per meteor` against jiwer 4.0.0, NLTK 3.10.4's
meteor_score (reading Debian's WordNet 3.0) and an oracle of PER written from its definition.

    python metrics_diff.py --wgslate PATH --wordnet-table FILE [--cases N] [--first I] [--seed S] [--jobs J]

Each case is a small corpus (1-4 references, Unicode whitespace, case, punctuation, repeated words,
empty lines) and a target language (en: Porter + WordNet; de, fr: NLTK's Snowball; cs: exact matches).
wgslate prints the corpus scores as JSON with 17 decimals (every digit Python's repr has); every
fourth case also compares each line's score (`-sl`). Closes with "N passed, N failed".
"""
import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile

import jiwer
from nltk.stem.porter import PorterStemmer
from nltk.stem.snowball import SnowballStemmer
from nltk.translate.meteor_score import meteor_score
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

import corpora

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../metrics/tests/data"))
import nltk_wordnet_root  # noqa: E402

LANGUAGES = ["en", "en", "en", "de", "fr", "cs"]
# Words that meet the stem and synonym stages: inflections, WordNet synonyms, stems' collisions.
ENGLISH = ("man men woman women dog dogs puppy cat cats run runs running ran walk walking walked street road "
           "streets car automobile auto machine big large great huge small little child children kid kids "
           "boy boys girl girls play plays playing played happy glad happier happiest sad shirt shirts red "
           "blue sits sitting sat seat chair people persons person jumps jumping leaps leaping bike bicycle "
           "water beach sand ocean sea wave waves house home building buildings geese goose better good "
           "well generous generously general generally wears wearing worn hat hats picture photo image "
           "photograph looks looking look see seeing watches watching watch").split()
GERMAN = ("Mann Männer Frau Frauen Hund Hunde spielt spielen spielte läuft laufen Straße Straßen Kinder Kind "
          "kleiner kleines kleine große großen Häuser Haus sitzt sitzen sitzende roten rotes Fahrrad Fahrräder "
          "Wasser Strand trägt tragen Hemd Hemden Mädchen Jungen schöne schönen").split()
FRENCH = ("homme hommes femme femmes chien chiens joue jouent jouant court courent rue rues enfants enfant "
          "petit petite petits grandes grand maison maisons assis assise rouge rouges vélo vélos eau plage "
          "porte portant chemise chemises fille filles garçon garçons l'homme d'un qu'elle heureusement").split()
WORDS = {"en": ENGLISH, "de": GERMAN, "fr": FRENCH, "cs": "muž ženy pes psi hraje hrají ulice děti".split()}
SPACES = [" "] * 12 + ["  ", "\t", "\u00a0", "\u3000", " \t", "\u2009", "\x0b", "\x1c", "\x85"]


class EmptyWordNet:
    """NLTK's meteor_score with no synonym stage."""

    def synsets(self, word):
        return []


class NoStemmer:
    def stem(self, word):
        return word


def make_case(seed, index):
    r = random.Random(f"{seed}:{index}")
    lang = r.choice(LANGUAGES)
    corpus = corpora.Corpus(r)
    words = WORDS[lang]

    def line(base=None):
        if r.random() < 0.08:
            return r.choice(["", " ", "\t"])
        if base is not None and r.random() < 0.7:
            # A variant of another line: shared words make the stages and the edit distance matter.
            out = list(base)
            for _ in range(r.randint(0, 4)):
                k = r.randrange(len(out) + 1)
                op = r.random()
                if op < 0.3 and out:
                    del out[min(k, len(out) - 1)]
                elif op < 0.6:
                    out.insert(k, r.choice(words))
                elif out:
                    out[min(k, len(out) - 1)] = r.choice(words).upper() if r.random() < 0.1 else r.choice(words)
            if out and r.random() < 0.3:
                i, j = r.randrange(len(out)), r.randrange(len(out))
                out[i], out[j] = out[j], out[i]
            toks = out
        else:
            n = r.choice([0, 1, 2, 3, 5, 8, 12, 20])
            toks = [r.choice(words) if r.random() < 0.75 else corpus.token() for _ in range(n)]
        text = ""
        for k, t in enumerate(toks):
            text += (r.choice(SPACES) if k else ("" if r.random() < 0.8 else r.choice(SPACES))) + t
        if r.random() < 0.1:
            text += r.choice(SPACES)
        return text.replace("\n", " ").replace("\r", " ")

    n_lines = r.choice([1, 1, 2, 3, 5, 8])
    n_refs = r.choice([1, 1, 2, 3, 4])
    bases = [[r.choice(words) for _ in range(r.randint(0, 10))] for _ in range(n_lines)]
    refs = [[line(b) for b in bases] for _ in range(n_refs)]
    hyp = [line(b) for b in bases]
    return {"index": index, "lang": lang, "refs": refs, "hyp": hyp}


def sacrebleu_lines(text):
    """Lines as sacreBLEU (and so `wgslate bleu`) reads a file: split on "\\n", each rstripped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


_wordnet = None


def wordnet():
    global _wordnet
    if _wordnet is None:
        _wordnet = nltk_wordnet_root.reader()
    return _wordnet


def meteor_setup(lang):
    if lang == "en":
        return PorterStemmer(), wordnet()
    if lang in ("de", "fr"):
        return SnowballStemmer({"de": "german", "fr": "french"}[lang]), EmptyWordNet()
    return NoStemmer(), EmptyWordNet()


def per_line(hyp, ref):
    """PER's counts from its definition (Moses' PerScorer): max(|h|, |r|) - bag matches."""
    h, r = jiwer.transformations.wer_default(hyp), jiwer.transformations.wer_default(ref)
    h, r = (h[0] if h else []), (r[0] if r else [])
    bag = {}
    for w in r:
        bag[w] = bag.get(w, 0) + 1
    matches = 0
    for w in h:
        if bag.get(w, 0) > 0:
            bag[w] -= 1
            matches += 1
    return max(len(h), len(r)) - matches, len(r)


def oracle(case, refs, hyp):
    """The three corpus scores and, per line, each metric's sentence score."""
    tok = Tokenizer13a()
    stemmer, wn = meteor_setup(case["lang"])
    sentence_meteor = [
        meteor_score([tok(r[i]).split() for r in refs], tok(h).split(), stemmer=stemmer, wordnet=wn)
        for i, h in enumerate(hyp)
    ]
    total = 0.0
    for s in sentence_meteor:
        total += s
    errors = [per_line(h, refs[0][i]) for i, h in enumerate(hyp)]
    e, n = sum(x for x, _ in errors), sum(y for _, y in errors)
    per = 100.0 * e / n if n > 0 else (100.0 if e > 0 else 0.0)
    scores = {
        "WER": 100.0 * jiwer.wer(refs[0], hyp),
        "PER": per,
        "METEOR": 100.0 * (total / len(hyp)),
    }
    lines = {
        "WER": [100.0 * jiwer.wer(refs[0][i], h) for i, h in enumerate(hyp)],
        "PER": [100.0 * x / y if y > 0 else (100.0 if x > 0 else 0.0) for x, y in errors],
        "METEOR": [100.0 * s for s in sentence_meteor],
    }
    return scores, lines


def run_wgslate(binary, folder, argv, table):
    env = dict(os.environ, WGSLATE_WORDNET=table)
    p = subprocess.run([binary, "bleu", *argv], cwd=folder, env=env, capture_output=True)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def check(job):
    binary, table, seed, index = job
    case = make_case(seed, index)
    problems = []
    with tempfile.TemporaryDirectory(prefix="wgslate-metrics-") as folder:
        names = []
        for k, ref in enumerate(case["refs"]):
            names.append(f"ref{k}.txt")
            with open(os.path.join(folder, names[-1]), "w", encoding="utf-8", newline="") as f:
                f.write("".join(line + "\n" for line in ref))
        with open(os.path.join(folder, "hyp.txt"), "w", encoding="utf-8", newline="") as f:
            f.write("".join(line + "\n" for line in case["hyp"]))
        refs = [sacrebleu_lines(open(os.path.join(folder, n), encoding="utf-8", newline="").read()) for n in names]
        hyp = sacrebleu_lines(open(os.path.join(folder, "hyp.txt"), encoding="utf-8", newline="").read())
        want, want_lines = oracle(case, refs, hyp)
        lang = ["-l", f"xx-{case['lang']}"]
        code, out, err = run_wgslate(binary, folder, [*names, "-i", "hyp.txt", "-m", "wer", "per", "meteor",
                                                      "-f", "json", "-w", "17", *lang], table)
        if code != 0:
            return index, case, [f"exit {code}: {err.strip()[-300:]}"]
        got = {d["name"]: d["score"] for d in json.loads(out)}
        for name, value in want.items():
            if repr(round(value, 17)) != repr(got.get(name)):
                problems.append(f"{name}: oracle {round(value, 17)!r}, wgslate {got.get(name)!r}")
        if index % 4 == 0:
            for name in want_lines:
                code, out, err = run_wgslate(binary, folder, [*names, "-i", "hyp.txt", "-m", name.lower(), "-sl",
                                                              "-b", "-w", "17", *lang], table)
                got_lines = out.split()
                expect = [f"{round(v, 17):.17f}" for v in want_lines[name]]
                if code != 0 or got_lines != expect:
                    problems.append(f"{name} per line: oracle {expect}, wgslate {got_lines} {err.strip()[-200:]}")
    return index, case, problems


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--wgslate", required=True)
    p.add_argument("--wordnet-table", required=True, help="the compact table `wgslate wordnet` writes")
    p.add_argument("--cases", type=int, default=500)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--seed", default="1")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    a = p.parse_args()
    jobs = [(a.wgslate, a.wordnet_table, a.seed, i) for i in range(a.first, a.first + a.cases)]
    failed = 0
    with multiprocessing.Pool(a.jobs) as pool:
        for done, (index, case, problems) in enumerate(pool.imap_unordered(check, jobs, chunksize=4), 1):
            if problems:
                failed += 1
                print(f"case {index} ({case['lang']}): refs {json.dumps(case['refs'], ensure_ascii=False)[:300]} "
                      f"hyp {json.dumps(case['hyp'], ensure_ascii=False)[:300]}")
                for line in problems:
                    print("  " + line)
            if done % 10000 == 0:
                print(f"{done} cases, {failed} failed", file=sys.stderr, flush=True)
    print(f"seed {a.seed}, cases {a.first}..{a.first + a.cases - 1}")
    print(f"metrics differential: {a.cases - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
