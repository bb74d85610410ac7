"""Writes wordnet_nltk.tsv: the synonyms NLTK 3.10.4's METEOR takes for a sample of words,

    set(lemma.name() for synset in wordnet.synsets(word) for lemma in synset.lemmas()
        if lemma.name().find("_") < 0)

with `wordnet` NLTK's reader over Debian's WordNet 3.0 (see nltk_wordnet_root.py), for
tests/wordnet_nltk.rs to compare `WordNet::synonyms` with.

    target/metrics-venv/bin/python crates/metrics/tests/data/wordnet_nltk.py

The sample (seeded, so the file is reproducible): words meeting each of morphy's substitution rules
and the exception lists (a word listed twice keeps its last line), case, spaces, underscores and
hyphens, words WordNet lacks, Porter stems (METEOR looks up stems), numerals, non-ASCII, the empty
string; then lemmas, their inflections and stems, and random strings drawn with a fixed seed.

Format: a first line starting with "#", then one line per word: the word (backslash, tab, line feed
and carriage return written as \\\\, \\t, \\n, \\r), a tab, the synonyms sorted and joined by spaces.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nltk_wordnet_root  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wordnet_nltk.tsv")
SEED = 20240607
LINES = 2500

CURATED = [
    # noun rules: s, ses, ves, xes, zes, ches, shes, men, ies
    "dogs", "glasses", "buses", "wolves", "knives", "boxes", "foxes", "buzzes", "quizzes", "churches",
    "watches", "dishes", "wishes", "women", "firemen", "flies", "cities", "ladies",
    # verb rules: s, ies, es→e, es→"", ed→e, ed→"", ing→e, ing→""
    "runs", "tries", "hopes", "writes", "fixes", "goes", "hoped", "used", "jumped", "walked",
    "making", "hoping", "walking", "running", "sitting", "flying", "lying", "dying",
    # adjective rules: er, est, er→e, est→e
    "greater", "greatest", "taller", "nicer", "nicest", "larger", "largest", "happier", "happiest",
    "bigger", "biggest", "freer",
    # exception lists (noun, verb, adj, adv), duplicated keys (the last line wins)
    "geese", "mice", "children", "oxen", "feet", "teeth", "people", "data", "criteria", "phenomena",
    "ran", "went", "gone", "was", "were", "been", "is", "are", "had", "did", "done", "saw", "seen",
    "better", "best", "worse", "worst", "farther", "further", "hardest", "elder", "eldest",
    "involucra", "aurar", "diastemata", "sudatoria", "offer", "offers", "bests", "forgotten",
    # plain words and their synonyms in METEOR's examples
    "dog", "cat", "run", "walk", "good", "well", "big", "large", "small", "house", "home", "car",
    "automobile", "happy", "glad", "quickly", "fast", "say", "tell", "make", "get", "take", "set",
    "be", "have", "do", "a", "an", "the", "of", "in", "on", "at", "it", "i", "we", "us", "he", "me",
    # case
    "Dog", "DOGS", "GeEsE", "Paris", "PARIS", "paris", "USA", "U.S.", "us", "Mars", "March", "MAY",
    "God", "Bill", "Jack", "Apple", "apple",
    # spaces, underscores, hyphens, apostrophes, dots
    "ice cream", "ice_cream", "ice-cream", "icecream", "new_york", "New York", "New_York", "new-york",
    "mother-in-law", "mothers-in-law", "o'clock", "rock'n'roll", "a.m.", "p.m.", "e.g.", "t-shirt",
    "t-shirts", "well-being", "x-ray", "x-rays", "_", "__", "-", "'", ".", " dog", "dog ", "dog  cat",
    "beaux_arts", "after_all", "a_la_carte",
    # not in WordNet
    "xyzzy", "qwerty", "blorfed", "unfoundable", "gooses", "geeses", "runned",
    # Porter stems
    "happi", "gener", "gener", "argu", "generous", "gener", "famili", "studi", "abl", "alloc",
    "caus", "connect", "relat", "cri", "fli", "citi", "ladi", "hope", "hop", "walk", "befor",
    "anoth", "avail", "beauti", "compani", "countri", "differ", "easi", "ever", "exampl", "includ",
    "increas", "organ", "peopl", "possibl", "provid", "realli", "sinc", "someth", "thi", "veri",
    # numerals
    "0", "1", "2", "10", "1000", "1st", "2nd", "1900s", "twenties", "ii", "XIV", "xiv", "3d", "9/11",
    "½", "١٢", "²",
    # non-ASCII and other Unicode
    "café", "naïve", "résumé", "Ångström", "straße", "STRASSE", "日本", "👍", "\u212aey", "\u212aeys",
    "İstanbul", "ΣΊΣΥΦΟΣ", "ﬁne", "ﬂy", "Ǆ", "\u00a0dog", "dog\u3000", "\u0130",
    # control characters, the empty string, bare suffixes
    "", " ", "\t", "dog\tcat", "dog\ncat", "dog\r", "\\", "s", "es", "ies", "ses", "men", "ing", "ed",
    "er", "est", "ves",
]


def synonyms(wn, word):
    return sorted(set(lemma.name() for synset in wn.synsets(word) for lemma in synset.lemmas()
                      if lemma.name().find("_") < 0))


def escape(word):
    return word.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def sample(rng):
    from nltk.stem.porter import PorterStemmer

    lemmas, exceptions = [], []
    for suffix in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(nltk_wordnet_root.DEBIAN_DIR, f"index.{suffix}"), encoding="utf8") as f:
            lemmas += [line.split()[0] for line in f if not line.startswith(" ")]
        with open(os.path.join(nltk_wordnet_root.DEBIAN_DIR, f"{suffix}.exc"), encoding="utf8") as f:
            exceptions += [t for line in f for t in line.split()]
    lemmas, exceptions = sorted(set(lemmas)), sorted(set(exceptions))
    stem = PorterStemmer().stem
    alphabet = list("abcdefghijklmnopqrstuvwxyz") * 3 + list("ABCDEZ_-' .019") + ["é", "ß", "İ", "\u212a", "ﬁ"]
    endings = ["s", "es", "ies", "ves", "xes", "zes", "ches", "shes", "men", "ed", "ing", "er", "est"]
    while True:
        k = rng.random()
        lemma = rng.choice(lemmas)
        if k < 0.3:
            yield lemma
        elif k < 0.45:
            yield rng.choice(exceptions)
        elif k < 0.65:
            yield rng.choice([lemma[:-1], lemma]) + rng.choice(endings)
        elif k < 0.75:
            yield stem(lemma)
        elif k < 0.82:
            yield rng.choice([lemma.upper(), lemma.title(), lemma.replace("_", " "), lemma.replace("_", "-")])
        else:
            yield "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10)))


def main():
    wn = nltk_wordnet_root.reader()
    import nltk

    rng = random.Random(SEED)
    words, seen = [], set()
    for word in CURATED:
        if word not in seen:
            seen.add(word)
            words.append(word)
    for word in sample(rng):
        if len(words) >= LINES:
            break
        if word not in seen:
            seen.add(word)
            words.append(word)
    lines = [f"# NLTK {nltk.__version__} WordNet {wn.get_version()} (Debian wordnet-base): METEOR's synonyms; "
             f"written by wordnet_nltk.py, seed {SEED}\n"]
    lines += [f"{escape(w)}\t{' '.join(synonyms(wn, w))}\n" for w in words]
    with open(OUT, "w", encoding="utf8", newline="\n") as f:
        f.writelines(lines)
    size = sum(len(line.encode()) for line in lines)
    print(f"{OUT}: {len(words)} words, {sum(1 for l in lines[1:] if not l.endswith(chr(9) + chr(10)))} with "
          f"synonyms, {size} bytes")
    assert len(lines) <= 3000 and size < 400_000


if __name__ == "__main__":
    main()
