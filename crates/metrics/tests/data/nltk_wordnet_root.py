"""An NLTK data root holding Debian's WordNet 3.0, so that NLTK 3.10.4's WordNetCorpusReader (and so
nltk.translate.meteor_score) reads exactly the files `WordNet::from_dir` reads.

    import nltk_wordnet_root
    wn = nltk_wordnet_root.reader()          # builds the root if needed; checks version 3.0

Debian's `wordnet-base` (apt-get install wordnet-base) installs the database in /usr/share/wordnet.
NLTK wants it under <data root>/corpora/wordnet/, as real files (it refuses links leading out of its
data root), plus a `lexnames` file Debian lacks: its 45 lines are written below, from the WordNet
3.0 lexnames(5WN) manual page (the lex_filenum field of every data.* line is checked against them).
`build_root()` copies the files (only those missing or changed, each through a temporary file and a
rename, so parallel test processes may call it at once) and returns the data root.
"""
import os
import shutil
import sys

DEBIAN_DIR = "/usr/share/wordnet"
DEFAULT_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../target/nltk_data"))

# The files WordNetCorpusReader._FILES lists, lexnames aside.
COPIED = ["cntlist.rev", "index.sense", "index.adj", "index.adv", "index.noun", "index.verb",
          "data.adj", "data.adv", "data.noun", "data.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc"]

# lexnames(5WN), WordNet 3.0: file number, lexicographer file name, syntactic category
# (1 noun, 2 verb, 3 adjective, 4 adverb).
LEXNAMES = [
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
    "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
    "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
    "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change",
    "verb.cognition", "verb.communication", "verb.competition", "verb.consumption", "verb.contact",
    "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social",
    "verb.stative", "verb.weather", "adj.ppl",
]
CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
LEXNAMES_TEXT = "".join(f"{i:02d}\t{name}\t{CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))
assert len(LEXNAMES) == 45


def _write_if_changed(path, data):
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        pass
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def check_lexnames(debian_dir=DEBIAN_DIR):
    """Every synset's lex_filenum must name a lexicographer file of its own category."""
    for suffix in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(debian_dir, f"data.{suffix}"), encoding="utf8") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                fields = line.split(maxsplit=3)
                name = LEXNAMES[int(fields[1])]
                if name.split(".")[0] != suffix:
                    raise AssertionError(f"data.{suffix}: synset {fields[0]} has lex_filenum {fields[1]} ({name})")


def build_root(root=DEFAULT_ROOT, debian_dir=DEBIAN_DIR):
    """Builds (idempotently) root/corpora/wordnet from debian_dir; returns root."""
    missing = [n for n in COPIED if not os.path.isfile(os.path.join(debian_dir, n))]
    if missing:
        sys.exit(f"{debian_dir}: missing {', '.join(missing)}: apt-get install wordnet-base (WordNet 3.0)")
    target = os.path.join(root, "corpora", "wordnet")
    os.makedirs(target, exist_ok=True)
    for name in COPIED:
        src, dst = os.path.join(debian_dir, name), os.path.join(target, name)
        s = os.stat(src)
        if os.path.islink(dst):
            os.remove(dst)
        if os.path.isfile(dst):
            d = os.stat(dst)
            if d.st_size == s.st_size and int(d.st_mtime) == int(s.st_mtime):
                continue
        tmp = f"{dst}.tmp{os.getpid()}"
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    _write_if_changed(os.path.join(target, "lexnames"), LEXNAMES_TEXT.encode())
    return root


def reader(root=DEFAULT_ROOT, debian_dir=DEBIAN_DIR):
    """nltk.corpus.wordnet (the reader meteor_score uses by default), reading the root built here."""
    import nltk
    import nltk.data

    root = build_root(root, debian_dir)
    if root not in nltk.data.path:
        nltk.data.path.insert(0, root)
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    expected = os.path.join(root, "corpora", "wordnet")
    if os.path.realpath(str(wordnet.root)) != os.path.realpath(expected):
        raise AssertionError(f"NLTK reads WordNet from {wordnet.root}, not {expected}")
    if wordnet.get_version() != "3.0":
        raise AssertionError(f"WordNet version {wordnet.get_version()!r}, expected '3.0'")
    return wordnet


if __name__ == "__main__":
    check_lexnames()
    wn = reader()
    print(f"{wn.root}: WordNet {wn.get_version()}, NLTK {__import__('nltk').__version__}")
