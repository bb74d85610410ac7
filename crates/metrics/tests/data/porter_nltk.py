"""Writes porter_nltk.tsv, the stems NLTK 3.10.4's `PorterStemmer().stem(word)` gives a sample of
words, for tests/porter_nltk.rs to compare `porter::porter_stem` with:

    target/metrics-venv/bin/python crates/metrics/tests/data/porter_nltk.py > crates/metrics/tests/data/porter_nltk.tsv

The sample (seeded, so the file is reproducible): the irregular forms and the paper's examples,
NLTK's extensions and quirks, case, digits, punctuation, non-ASCII; then, from WordNet 3.0's lemmas
(/usr/share/wordnet) and those lemmas with a suffix added, up to PER_RULE words reaching each rule
of each step, both where the rule changes the word and where its condition fails; then more lemmas,
case variants and random strings. Words hold no tab, line feed, carriage
return or NUL.

Format: a first line starting with "#", then one line per word: the word, a tab, the stem.
"""
import random
import sys

from nltk import __version__
from nltk.stem.porter import PorterStemmer

SEED = 20240611
PER_RULE = 8
LINES = 5500

CURATED = [
    # the irregular forms, any case
    "sky", "skies", "dying", "lying", "tying", "news", "innings", "inning", "outings", "outing", "cannings",
    "canning", "howe", "proceed", "exceed", "succeed", "SKIES", "Dying", "NEWS", "Proceeded", "exceeds",
    # the paper's examples, step by step
    "caresses", "ponies", "ties", "caress", "cats", "feed", "agreed", "plastered", "bled", "motoring", "sing",
    "conflated", "troubled", "sized", "hopping", "tanned", "falling", "hissing", "fizzed", "failing", "filing",
    "happy", "relational", "conditional", "rational", "valenci", "hesitanci", "digitizer", "conformabli",
    "radicalli", "differentli", "vileli", "analogousli", "vietnamization", "predication", "operator",
    "feudalism", "decisiveness", "hopefulness", "callousness", "formaliti", "sensitiviti", "sensibiliti",
    "triplicate", "formative", "formalize", "electriciti", "electrical", "hopeful", "goodness", "revival",
    "allowance", "inference", "airliner", "gyroscopic", "adjustable", "defensible", "irritant", "replacement",
    "adjustment", "dependent", "adoption", "homologou", "communism", "activate", "angulariti", "homologous",
    "effective", "bowdlerize", "probate", "rate", "cease", "controll", "roll", "generalization", "oscillators",
    # NLTK's extensions: ies/ied in four letters, y after a consonant, alli first, fulli, logi, 2-letter cvc
    "dies", "lies", "flies", "died", "tied", "spied", "ied", "ies", "enjoy", "enjoyment", "spy", "fly", "try",
    "by", "toy", "say", "generally", "rationally", "conditionally", "hopefully", "geology", "theology",
    "archaeology", "analogy", "apology", "ably", "bly", "aly", "aed", "oxing", "awing", "axed", "iting", "ated",
    # quirks: the literal "*d" suffix, runs of y, measures around y
    "ba*ded", "ba*ding", "a*ded", "*ded", "*d", "yyy", "yyyy", "yyyyyyyyyyyyyyyyyyyyyyyyy", "yyyyed",
    "syzygy", "ayyy", "yay", "yeyed", "boyyed", "preyyyying",
    # short words: at most two characters, counted before lower-casing
    "a", "I", "is", "as", "IS", "Ax", "ed", "s", "ss", "ll", "ye", "ys", "\u0130", "\u0130S", "\u0130ss", "\u0130ed",
    # case
    "Running", "RUNNING", "CARESSES", "McDonald's", "iPhones", "NATIONALLY", "Hopefulness",
    # digits, hyphens, apostrophes, other punctuation
    "1990s", "2nd", "11s", "a11ed", "3d", "x-rays", "mother-in-law", "well-being", "o'clock", "can't", "it's",
    "dogs'", "rock'n'roll", "e.g.", "U.S.", "a.m.", "...", "--", "ice_cream", "new_york", "ice cream", " dogs",
    # non-ASCII letters are consonants
    "café", "cafés", "naïve", "naïvely", "résumés", "décédé", "über", "übers", "Straße", "straßes", "fußball",
    "Ångström", "ΣΊΣΥΦΟΣ", "λόγος", "Москва", "книги", "日本語", "中文s", "ﬁnes", "ﬂying", "\u212aeys",
    "éed", "éing", "aéd", "aßed", "ßing", "fé", "feé", "ationé", "\u00e9ies", "e\u0301ies",
    # the empty string, other spaces and controls
    "", " ", "\x7fies", "\u00a0dogs", "\u2028ies",
]

STEP1A = ["sses", "ies", "ss", "s"]
STEP2 = ["ational", "tional", "enci", "anci", "izer", "bli", "alli", "entli", "eli", "ousli", "ization", "ation",
         "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "fulli", "logi"]
STEP3 = ["icate", "ative", "alize", "iciti", "ical", "ful", "ness"]
STEP4 = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
         "iti", "ous", "ive", "ize"]
ENDINGS = ["s", "es", "ies", "ed", "ied", "eed", "ing", "ly", "y", "ness", "ful", "fully", "ation", "ization",
           "ally", "logy", "ement", "ment", "er", "ers", "ion", "ous", "ive", "ize", "able", "ible", "e", "ll", "ism",
           "ational", "ical", "icity", "ivity", "bility", "iveness", "ousness", "alism", "ator", "izer", "ency"]


def matched(word, suffixes):
    return next((s for s in suffixes if word.endswith(s)), None)


def after_1b(p, stem):
    """Which of the tidying rules after "ed"/"ing" applies to `stem`."""
    if matched(stem, ["at", "bl", "iz"]):
        return stem[-2:]
    if p._ends_double_consonant(stem):
        return "double-" + ("lsz" if stem[-1] in "lsz" else "other")
    if stem.endswith("*d"):
        return "*d"
    return "cvc" if p._measure(stem) == 1 and p._ends_cvc(stem) else "none"


def rules(p, word):
    """The rules `word` meets on its way through the steps: (step, rule, whether the word changed)."""
    w = word.lower()
    if w in p.pool or len(word) <= 2:
        return [("pool", w, True) if w in p.pool else ("short", "", True)]
    keys = []
    steps = [("1a", p._step1a, STEP1A), ("1b", p._step1b, ["ied", "eed", "ed", "ing"]), ("1c", p._step1c, ["y"]),
             ("2", p._step2, STEP2), ("3", p._step3, STEP3), ("4", p._step4, STEP4), ("5a", p._step5a, ["e"]),
             ("5b", p._step5b, ["ll"])]
    for name, step, suffixes in steps:
        out = step(w)
        rule = matched(w, suffixes)
        if name == "1a" and rule == "ies" and len(w) == 4 or name == "1b" and rule == "ied" and len(w) == 4:
            rule += "-4"
        if name == "1b" and rule in ("ed", "ing") and out != w:
            rule += "+" + after_1b(p, w[: -len(rule)])
        if rule:
            keys.append((name, rule, out != w))
        w = out
    return keys


def candidates(rng):
    lemmas = set()
    for pos in ("noun", "verb", "adj", "adv"):
        with open(f"/usr/share/wordnet/index.{pos}", encoding="utf8") as f:
            lemmas.update(line.split()[0] for line in f if not line.startswith(" "))
    lemmas = sorted(lemmas)
    words = lemmas + [rng.choice([w, w[:-1]]) + rng.choice(ENDINGS) for w in lemmas]
    rng.shuffle(words)
    return lemmas, words


def random_word(rng):
    alphabet = list("abcdefghijklmnopqrstuvwxyz") * 2 + list("aeiouyylsz") * 2 + list("AEIOUYBCLS-'._019*") + \
        list("éüßΣσκαЖжя中\u0307\u0130")
    ending = rng.choice(["", "", "s", "ies", "ied", "eed", "ed", "ing", "y", "alli", "logi", "e", "ll", "ation"])
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) + ending


def main():
    p = PorterStemmer()
    rng = random.Random(SEED)
    words, seen = [], set()

    def add(word):
        if word not in seen and not any(c in word for c in "\t\n\r\x00"):
            seen.add(word)
            words.append(word)

    for word in CURATED:
        add(word)
    lemmas, pool = candidates(rng)
    counts = {}
    for word in pool:
        keys = rules(p, word)
        if any(counts.get(k, 0) < PER_RULE for k in keys):
            add(word)
            for k in keys:
                counts[k] = counts.get(k, 0) + 1
    for word in rng.sample(lemmas, 1500):
        add(word)
    for word in rng.sample(lemmas, 300):
        add(rng.choice([word.upper(), word.title(), word[:1].upper() + word[1:]]))
    while len(words) < LINES:
        add(random_word(rng))

    out = sys.stdout
    out.reconfigure(newline="\n")
    out.write(f"# NLTK {__version__} PorterStemmer().stem(word): word, tab, stem; by porter_nltk.py, seed {SEED}\n")
    for word in words:
        out.write(f"{word}\t{p.stem(word)}\n")
    reached = sorted(k for k in counts if k[0] not in ("pool", "short"))
    print(f"{len(words)} words; {len(reached)} (step, rule, changed) cases reached", file=sys.stderr)


if __name__ == "__main__":
    main()
