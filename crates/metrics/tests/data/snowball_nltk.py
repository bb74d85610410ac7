"""Writes snowball_nltk.tsv, the stems NLTK 3.10.4's `SnowballStemmer("german")` and
`SnowballStemmer("french")` give a sample of words, for tests/snowball_nltk.rs to compare
`snowball::snowball_stem` with:

    target/metrics-venv/bin/python crates/metrics/tests/data/snowball_nltk.py > crates/metrics/tests/data/snowball_nltk.tsv

The sample (seeded, so the file is reproducible from the same corpus): words showing the
algorithms' rules and NLTK's quirks; every suffix of every NLTK suffix list after stems of several
lengths (so the suffix falls inside and outside R1, R2 and RV), lower-cased and in other cases;
then, from the tokens of Multi30k's train.de and train.fr (split on whitespace, and on punctuation
too, as written and lower-cased) and from synthetic words (stems with suffixes stacked as the steps
peel them), up to PER_ARC words reaching each pair of consecutive lines NLTK's stem code runs;
then more corpus tokens, case variants and random strings with accents, ß, digits, apostrophes and
hyphens. Words hold no tab, line feed, carriage return or NUL.

Format: a first line starting with "#", then one line per word: "de" or "fr", a tab, the word, a
tab, the stem.
"""
import random
import re
import sys

from nltk import __version__
from nltk.stem import SnowballStemmer
from nltk.stem.snowball import FrenchStemmer, GermanStemmer, _StandardStemmer

SEED = 20250317
PER_ARC = 8
LINES = 5800
CORPUS = "/work/shared/data/multi30k/train.{}"
LANGS = {"de": "german", "fr": "french"}

DE_SUFFIXES = [
    ("step1", GermanStemmer._GermanStemmer__step1_suffixes),
    ("step2", GermanStemmer._GermanStemmer__step2_suffixes),
    ("step3", GermanStemmer._GermanStemmer__step3_suffixes),
]
FR_SUFFIXES = [
    ("step1", FrenchStemmer._FrenchStemmer__step1_suffixes),
    ("step2a", FrenchStemmer._FrenchStemmer__step2a_suffixes),
    ("step2b", FrenchStemmer._FrenchStemmer__step2b_suffixes),
    ("step4", FrenchStemmer._FrenchStemmer__step4_suffixes),
]

CURATED = {
    "de": [
        # the empty string, one letter, R1 pushed to the fourth letter
        "", "a", "e", "s", "ab", "abe", "aber", "abern", "ober", "eben", "ist", "uns", "alles",
        # step 1, with "niss" and the "s" rule
        "Autobahnen", "Kenntnisse", "Ergebnissen", "Zeugnisses", "Erlebnis", "nisse", "niss", "Hauses",
        "Mädchens", "Jungen", "Frauen", "Männer", "Kindern", "Kindes", "größtem", "Autos", "Opas", "Babys",
        # step 2, "st" after a letter in "bdfghklmnt" in words of six letters or more
        "wichtigste", "liebst", "hast", "bist", "erst", "ernst", "feinste", "trinkst", "kleinsten", "wärmst",
        "ältest", "gehst", "sagtest",
        # step 3 and what it looks for before the suffix
        "Öffentlichkeit", "Heiterkeit", "Möglichkeiten", "freundlich", "Freundlichkeit", "Gesundheit",
        "Ehrlichkeit", "Bildung", "Beleidigung", "Reinigung", "Verteidigung", "lesend", "lächelnd", "zeigend",
        "schwierig", "Ewigkeit", "Heiligkeit", "Mathematik", "Physik", "Musik", "lustig", "ledig", "neblig",
        "Zeitung", "kinderlich", "herrlich", "Kindheit", "Dunkelheit", "Sicherheit", "Hoffnung", "ängstlich",
        "Traurigkeit", "kindisch", "tierisch", "Feigheit", "ewigend", "bewegung", "Predigt", "Predigtendung",
        # u and y between vowels, umlauts, ß
        "bauen", "Bayern", "Mayonnaise", "Häuser", "Müller", "schön", "Straße", "STRASSE", "Fußball", "GROẞ",
        "Gruß", "Grüße", "Maßen", "äußerst", "auyo", "uy", "yy", "treuer", "Bauer", "Mauern",
        # case, hyphens, apostrophes, digits, other scripts
        "l'homme", "T-Shirt", "T-Shirts", "E-Gitarre", "20er", "1990er", "3-jährigen", "U-Bahn", "Hochzeitsfeier",
        "Mc'Donalds", "İstanbul", "ΣΟΦΟΣ", "Москва", "日本語", "naïve", "café", "Ångström", "ﬁnden", "\u212aind",
        "e\u0301s", "ge-", "-en", "'s", "...", "-", " ", "\u00a0Hauses",
    ],
    "fr": [
        # the empty string, short words, RV after "par", "col" and "tap" or two vowels
        "", "a", "y", "é", "s", "es", "ées", "eu", "aie", "parles", "colles", "tapes", "oiseau", "aimes",
        # step 1, rule by rule
        "continuellement", "généralement", "vivement", "heureusement", "rapidement", "activement", "notablement",
        "pratiquement", "premièrement", "dernièrement", "positivement", "constamment", "évidemment",
        "fréquemment", "couramment", "gaiement", "vraiment", "absolument", "joliment", "accroissement",
        "grandissement", "agrandissements", "créatrice", "créatrices", "indicatrice", "indicateur",
        "communication", "communications", "idéologie", "biologies", "conclusion", "révolution", "révolutions",
        "exigence", "différences", "compatibilité", "possibilité", "électricité", "authenticité", "activité",
        "naïveté", "beauté", "productivité", "communicatif", "communicative", "sportif", "sportifs", "vives",
        "chevaux", "journaux", "travaux", "eaux", "beaux", "châteaux", "heureux", "heureuse", "heureuses",
        "chanteuse", "danseuses", "joyeuse", "élégance", "romantique", "critiques", "socialisme",
        "capitalismes", "table", "capables", "artiste", "touristes", "identification", "amplificatrice",
        # quirks: "ment" after RV's start, stale RV after "emment", "ic" always in R2 after "atrice"
        "bamentament", "baissentissemment", "amentement", "ioissemment", "rapidementment", "icatrice",
        "classificatrice", "pacificatrices", "bonicative", "fenicatifs",
        # step 2a and 2b
        "finissaient", "finissions", "grandissant", "grandissantes", "réussir", "partirent", "finira",
        "dormirais", "finîmes", "finîtes", "finît", "fini", "finie", "finies", "finis", "finit", "choisi",
        "parlerions", "parlèrent", "parlerai", "parleraient", "chantions", "mangions", "marchassions",
        "parlassent", "parlâmes", "parlâtes", "parlât", "parlant", "parlante", "parlantes", "parlants", "parlais",
        "parlait", "parlaient", "parlai", "parlas", "parla", "mangea", "mangeait", "mangeant", "parlé", "parlée",
        "parlées", "parlés", "parler", "parlez", "parliez", "oublierions",
        # step 4
        "nation", "nations", "passion", "question", "occasion", "explosion", "attention", "fermière",
        "premier", "dernière", "ouvrier", "guë", "aiguë", "ambiguë", "ciguë", "Noël", "maïs", "bras", "gris",
        "repos", "tissus", "succès", "stress", "pays", "fils", "chiens", "Noëls", "aiguës", "bières", "ièrions",
        # steps 5 and 6
        "ancienne", "bonne", "nette", "belle", "pareille", "vieille", "élève", "célèbre", "événement", "mère",
        "frère", "pièce", "réglé", "complètement", "ést", "ét", "èz", "rèx",
        # qu, y, u and i between vowels
        "qu", "quand", "quoi", "québécois", "aquarelle", "joyeux", "yeux", "payer", "crayon", "voyage", "ayant",
        "essayer", "fuir", "ouïe", "oui", "ouie", "aïeul", "liaison", "coopération", "paraïe", "aiia", "aya",
        "yoyo", "quyes", "ç", "ça", "garçon", "reçu", "reçus", "façade", "leçons",
        # case, apostrophes, hyphens, digits, other scripts
        "l'homme", "L'Homme", "aujourd'hui", "qu'il", "jusqu'à", "c'est-à-dire", "porte-monnaie",
        "arc-en-ciel", "t-shirt", "T-shirts", "français", "Français", "FRANÇAISES", "CAFÉ", "Œuvre", "œufs",
        "sœur", "ÉCOLE", "Ça", "İ", "22", "1er", "3ème", "XIXe", "Σίσυφος", "ΣΟΦΟΣ", "Москва", "日本語",
        "e\u0301té", "ﬁnissions", "-", "'", "...", " ", "\u00a0parlais",
    ],
}

STEMS = {
    "de": ["b", "ha", "kind", "frag", "zeit", "bild", "spiel", "arbeit", "wander", "lehrer", "freund",
           "mensch", "ordnung", "schönheit", "gefährlich", "außergewöhnlich", "ewig", "kenntn", "erleb"],
    "fr": ["d", "pl", "ra", "aim", "chant", "parl", "col", "tap", "oi", "développ", "administr", "organis",
           "réalis", "act", "natur", "prat", "sens", "fin", "grand", "abs", "heur", "ic", "iv", "at", "abil",
           "communic", "product", "agré", "cré", "rapid", "ferm", "bouch"],
}
# What a suffix may follow: the letters each rule looks for before it.
BEFORE = {
    "de": ["", "", "", "ig", "lich", "er", "en", "e", "eig", "niss", "isch", "ung", "end", "keit", "heit", "s"],
    "fr": ["", "", "", "iv", "at", "ic", "abil", "eus", "abl", "iqu", "ièr", "ier", "iss", "ativ", "icat",
           "ivat", "gu", "s", "t", "qu", "y", "ay", "oy", "uy", "ç", "e", "é", "è", "a", "i", "u", "emm", "amm"],
}
TAILS = {
    "fr": ["s", "es", "ions", "ion", "ière", "ier", "ë", "guë", "enn", "onn", "ett", "ell", "eill", "enne",
           "ette", "elle", "eille"],
}
CASES = [str.lower, str.lower, str.lower, str.upper, str.capitalize, str.title]
AFFIXES = ["l'", "d'", "qu'", "-", "1", "ge-", "20", "'", "\u2019"]
ALPHABET = list("abcdefghijklmnopqrstuvwxyz") * 3 + list("aeiouy") * 4 + list("äöüßẞâàëéêèïîôûùçœæ") * 2 + \
    list("AEIOUYÄÖÜÉÈÇQS'’-.0123456789_") + ["İ", "Σ", "σ", "ς", "\u0307", "\u0301", "ﬁ", "\u212a", "Å", "ǅ", "ж", "中"]

TRACED = {
    f.__code__
    for f in (GermanStemmer.stem, FrenchStemmer.stem, FrenchStemmer._FrenchStemmer__rv_french,
              _StandardStemmer._r1r2_standard)
}


def arcs(stemmer, lang, word):
    """The (from line, to line) steps NLTK's stem code takes on `word`."""
    seen, last = set(), {}

    def local(frame, event, arg):
        if event == "line":
            seen.add((lang, frame.f_code.co_name, last.get(id(frame)), frame.f_lineno))
            last[id(frame)] = frame.f_lineno
        return local

    sys.settrace(lambda frame, event, arg: local if frame.f_code in TRACED else None)
    try:
        stemmer.stem(word)
    finally:
        sys.settrace(None)
    return seen


def corpus_tokens(lang):
    tokens = set()
    with open(CORPUS.format(lang), encoding="utf8") as f:
        for line in f:
            for token in line.split() + re.findall(r"\w+", line) + re.split(r"[\s\-'’.,;:!?()\"«»]+", line):
                tokens.update((token, token.lower()))
    tokens.discard("")
    return sorted(tokens)


def suffix_words(rng, lang):
    """Every suffix of every list after stems of several lengths, in several cases."""
    words = []
    for _, suffixes in DE_SUFFIXES if lang == "de" else FR_SUFFIXES:
        for suffix in suffixes:
            suffix = suffix.lower()
            for stem in rng.sample(STEMS[lang], 4):
                words.append(rng.choice(CASES)(stem + suffix))
            words.append(rng.choice(STEMS[lang]) + rng.choice(BEFORE[lang]) + suffix)
    return words


def synthetic(rng, lang, stems):
    """A stem and suffixes as the steps peel them: what a rule looks for, then a suffix per step."""
    lists = [s for _, s in (DE_SUFFIXES if lang == "de" else FR_SUFFIXES)]
    if rng.random() < 0.8:
        word = rng.choice(stems)
    else:
        word = "".join(rng.choice("aeiouyäöüâàëéêèïîôûùbcdfgklmnpqrstvxzß") for _ in range(rng.randint(0, 6)))
    if lang == "fr" and rng.random() < 0.1:
        word = rng.choice(["par", "col", "tap", "ae", "oi", "ea"]) + word
    word += rng.choice(BEFORE[lang])
    if lang == "de":
        for suffixes in reversed(lists):
            if rng.random() < 0.6:
                word += rng.choice(suffixes).lower()
    else:
        word += rng.choice(("",) * 6 + lists[0]).lower()
        word += rng.choice(("",) * 4 + lists[1] + lists[2] + tuple(TAILS["fr"])).lower()
    r = rng.random()
    if r < 0.25:
        word = rng.choice(CASES)(word)
    elif r < 0.3:
        word = rng.choice(AFFIXES) + word
    elif r < 0.33 and lang == "de":
        word = word.replace("ss", "ß")
    return word


def random_word(rng):
    every = [s for _, t in DE_SUFFIXES + FR_SUFFIXES for s in t]
    word = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 9)))
    return word + "".join(rng.choice(every) for _ in range(rng.randint(0, 2)))


def main():
    rng = random.Random(SEED)
    stemmers = {lang: SnowballStemmer(name) for lang, name in LANGS.items()}
    rows, seen = [], set()

    def add(lang, word):
        if (lang, word) not in seen and not any(c in word for c in "\t\n\r\x00"):
            seen.add((lang, word))
            rows.append((lang, word))

    for lang in LANGS:
        for word in CURATED[lang]:
            add(lang, word)
    for lang in LANGS:
        for word in suffix_words(rng, lang):
            add(lang, word)

    tokens = {lang: corpus_tokens(lang) for lang in LANGS}
    counts = {}
    for lang in LANGS:
        stems = sorted({stemmers[lang].stem(t.lower()) for t in tokens[lang] if t.isalpha()})
        pool = rng.sample(tokens[lang], len(tokens[lang]))
        pool += [synthetic(rng, lang, stems) for _ in range(20000)] + [random_word(rng) for _ in range(5000)]
        for word in [w for l, w in rows if l == lang] + pool:
            keys = arcs(stemmers[lang], lang, word)
            if any(counts.get(k, 0) < PER_ARC for k in keys):
                add(lang, word)
                for k in keys:
                    counts[k] = counts.get(k, 0) + 1
    reached = len(counts)
    covered = len(rows)

    for lang in LANGS:
        for word in rng.sample(tokens[lang], 900):
            add(lang, word)
        for word in rng.sample(tokens[lang], 150):
            add(lang, rng.choice([word.upper(), word.title(), word.lower(), rng.choice(AFFIXES) + word]))
    while len(rows) < LINES:
        add(rng.choice(list(LANGS)), random_word(rng))

    out = sys.stdout
    out.reconfigure(newline="\n")
    out.write(f"# NLTK {__version__} SnowballStemmer(language).stem(word): de|fr, tab, word, tab, stem; "
              f"by snowball_nltk.py, seed {SEED}\n")
    for lang, word in rows:
        out.write(f"{lang}\t{word}\t{stemmers[lang].stem(word)}\n")
    print(f"{len(rows)} words; {covered} up to the coverage pass, reaching {reached} line pairs", file=sys.stderr)


if __name__ == "__main__":
    main()
