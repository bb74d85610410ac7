"""Other ways to spell one sacreBLEU command line, as argparse allows them (and some it refuses).

A command line (reference files, then options) is rewritten with: long options abbreviated to a
prefix (sometimes one that is ambiguous), short and long names swapped, `--option=value`,
a one-letter option with its value joined (`-w3`), one-letter flags chained (`-bq`), the reference
files moved to the end (after `--`, or not), unknown options and stray words. The expected result
is whatever sacreBLEU itself does with the new line: diff.py runs both.
"""
import random
import re

# The options the case generator uses: (short, long, how many values: 0, 1, "*" or "+").
OPTIONS = [
    ("-m", "--metrics", "+"), ("-tok", "--tokenize", 1), ("-lc", "--lowercase", 0),
    ("-s", "--smooth-method", 1), ("-sv", "--smooth-value", 1), ("-cc", "--chrf-char-order", 1),
    ("-cw", "--chrf-word-order", 1), (None, "--chrf-beta", 1), (None, "--chrf-whitespace", 0),
    (None, "--chrf-lowercase", 0), (None, "--chrf-eps-smoothing", 0), (None, "--ter-normalized", 0),
    (None, "--ter-no-punct", 0), (None, "--ter-asian-support", 0), (None, "--ter-case-sensitive", 0),
    ("-ci", "--confidence", 0), ("-cin", "--confidence-n", 1), ("-pbs", "--paired-bs", 0),
    ("-pbsn", "--paired-bs-n", 1), ("-sl", "--sentence-level", 0), ("-w", "--width", 1),
    ("-f", "--format", 1), ("-b", "--score-only", 0), ("-sh", "--short", 0), ("-i", "--input", "*"),
    ("-q", "--quiet", 0), ("-nc", "--no-color", 0), ("-e", "--encoding", 1), ("-l", "--language-pair", 1),
    ("-d", "--detail", 0), ("-j", "--paired-jobs", 1),
]

# Python codec names for the encodings wgslate reads, spelled as codecs.lookup accepts them.
ENCODINGS = {
    "utf-8": ["utf-8", "UTF8", "utf_8", "U8", "utf", "UTF 8", "cp65001"],
    "utf-8-sig": ["utf-8-sig", "UTF_8_SIG", "utf 8 sig"],
    "latin-1": ["latin-1", "ISO-8859-1", "latin1", "l1", "iso8859_1", "cp819", "Latin"],
    "ascii": ["ascii", "US-ASCII", "646", "us"],
}


def encoding(case, r: random.Random):
    """(`-e` words, Python codec to write the files with): most cases plain UTF-8 without `-e`."""
    if r.random() >= 0.12:
        return [], "utf-8"
    text = "".join(line for part in case["refs"] + case["systems"] for line in part)
    fits = [c for c in ENCODINGS if c.startswith("utf") or all(ord(ch) < (128 if c == "ascii" else 256) for ch in text)]
    codec = r.choice(fits)
    return ["-e", r.choice(ENCODINGS[codec])], codec


def extra_options(r: random.Random, n_systems):
    """Options that change little or nothing for local files: a language pair, --detail, --paired-jobs."""
    words = []
    if r.random() < 0.06:
        words += ["-l", r.choice(["en-de", "de-en", "en-zh", "fr-zh", "en-fr"])]
    if r.random() < 0.03:
        words.append("-d")
    if n_systems > 1 and r.random() < 0.05:
        words += ["-j", r.choice(["0", "1", "2"])]
    return words
BY_NAME = {name: o for o in OPTIONS for name in o[:2] if name}


def groups(argv):
    """The leading reference files, and each option with its values."""
    k = 0
    while k < len(argv) and argv[k] not in BY_NAME:
        k += 1
    refs, rest = argv[:k], []
    while k < len(argv):
        option, k = BY_NAME[argv[k]], k + 1
        values = []
        while k < len(argv) and argv[k] not in BY_NAME:
            values.append(argv[k])
            k += 1
        rest.append((option, values))
    return refs, rest


OTHER_DIGITS = ["٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "０１２３４５６７８９"]  # Python's int() and float() read them


def spell(r: random.Random, option, values):
    """One option and its values as a list of words."""
    short, long, _ = option
    if r.random() < 0.08:
        digits = str.maketrans("0123456789", r.choice(OTHER_DIGITS))
        values = [v.translate(digits) if re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", v) else v for v in values]
    name = long if short is None or r.random() < 0.5 else short
    if name == long and r.random() < 0.5:
        # A prefix; a short one may match several options (then both must refuse).
        name = long[: r.randint(3 if r.random() < 0.2 else (3 + len(long)) // 2, len(long))]
    if len(values) == 1 and r.random() < 0.3:
        if name.startswith("--") or r.random() < 0.5:
            return [f"{name}={values[0]}"]
        if len(name) == 2:
            return [name + values[0]]
    return [name, *values]


def respell(argv, r: random.Random):
    refs, rest = groups(argv)
    words = []
    pending_letter = None  # a one-letter flag waiting for another to chain with (`-b` + `-q` → `-bq`)
    for option, values in rest:
        short = option[0]
        if option[2] == 0 and short and len(short) == 2 and r.random() < 0.5:
            if pending_letter:
                words[pending_letter] += short[1]
                pending_letter = None
            else:
                words.append(short)
                pending_letter = len(words) - 1
            continue
        pending_letter = None
        words += spell(r, option, values)
    roll = r.random()
    if roll < 0.15:
        words = words + ["--", *refs]
    elif roll < 0.18:
        words = words + refs  # after an option taking several values, they join its values
    elif roll < 0.2:
        words = refs[:1] + words + refs[1:] + ["extra.txt"]
    else:
        words = refs + words
    if r.random() < 0.03:
        words.insert(r.randint(0, len(words)), r.choice(["--no-such-flag", "-zz", "--", "-7", "-"]))
    return words
