"""Differential test: `wgslate bleu` against sacreBLEU 2.6.0 itself on seeded random corpora.

    python diff.py --wgslate PATH [--cases N] [--first I] [--seed S] [--jobs J] [--report FILE]

Each case writes its references and systems to a temporary folder and runs the same command line
through sacreBLEU's own `main()` (in a forked child, so every case starts clean) and through
`wgslate bleu`. Both must succeed with the same bytes on stdout, or both must refuse the input.
Half the cases spell the command line another way (spellings.py: abbreviations, `--opt=value`,
`-w3`, `-bq`, files after `--`, stray words); some add `-e` with the files in that encoding, `-l`,
`-d` or `-j`. Where sacreBLEU itself crashes (an uncaught exception), wgslate must still give a result or a
one-line error, never a panic; those cases are counted and listed apart.
Prints one line per difference and closes with "N passed, N failed".
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import traceback

import corpora
import spellings
import sacrebleu.sacrebleu as sacrebleu_cli

CRASH = 99  # exit code of a sacreBLEU run that raised


def write_files(folder, case, encoding="utf-8"):
    names = []
    for k, ref in enumerate(case["refs"]):
        names.append(f"ref{k}.txt")
        with open(os.path.join(folder, names[-1]), "w", encoding=encoding, newline="") as f:
            f.write("".join(line + "\n" for line in ref))
    systems = []
    # Some systems' file names are not ASCII: the table's JSON escapes them as Python's json.dumps does.
    prefix = ["sys", "système", "Ωsys", "sys😀"][case["index"] % 4]
    for k, system in enumerate(case["systems"]):
        systems.append(f"{prefix}{k}.txt")
        with open(os.path.join(folder, systems[-1]), "w", encoding=encoding, newline="") as f:
            f.write("".join(line + "\n" for line in system))
    if case["stdin"]:
        return names, None, os.path.join(folder, systems[0])
    return names, systems, None


def run_sacrebleu(folder, argv, env, stdin_path):
    """sacreBLEU's CLI in a forked child: (exit code, stdout, stderr)."""
    out, err = os.path.join(folder, "sb.out"), os.path.join(folder, "sb.err")
    pid = os.fork()
    if pid == 0:
        code = CRASH
        try:
            os.chdir(folder)
            os.environ.update(env)
            fd_in = os.open(stdin_path or os.devnull, os.O_RDONLY)
            os.dup2(fd_in, 0)
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            # A pool worker's sys.stdin is not descriptor 0; sacreBLEU reopens whatever sys.stdin names.
            sys.stdin = open(0, closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            sys.argv = ["sacrebleu", *argv]
            sacrebleu_cli.main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc(file=sys.stderr)
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    with open(out, "rb") as f, open(err, "rb") as g:
        return code, f.read(), g.read()


def run_wgslate(binary, folder, argv, env, stdin_path):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SACREBLEU")} | env
    with open(stdin_path or os.devnull, "rb") as stdin:
        p = subprocess.run([binary, "bleu", *argv], cwd=folder, env=full_env, stdin=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def check(job):
    binary, seed, index = job
    case = corpora.make_case(seed, index)
    # Half the cases spell their command line another way argparse allows (or refuses); some are
    # written in another encoding that `-e` names, when their text fits it.
    spelling = random.Random(f"{seed}:{index}:spelling")
    encoding, codec = spellings.encoding(case, spelling)
    with tempfile.TemporaryDirectory(prefix="wgslate-diff-") as folder:
        refs, systems, stdin_path = write_files(folder, case, codec)
        argv = [*refs] + (["-i", *systems] if systems else []) + case["args"] + ["-q", "-nc"] + encoding
        argv += spellings.extra_options(spelling, len(case["systems"]))
        if spelling.random() < 0.5:
            argv = spellings.respell(argv, spelling)
        sb = run_sacrebleu(folder, argv, case["env"], stdin_path)
        ours = run_wgslate(binary, folder, argv, case["env"], stdin_path)
    if b"panicked" in ours[2] or ours[0] not in (0, 1, 2):
        return "panic", case, argv, sb, ours
    if sb[0] == CRASH:
        # A negative smoothing value's undefined log: refused here too (it was once printed as NaN).
        if b"math domain error" in sb[2] and ours[0] == 0:
            return "differ", case, argv, sb, ours
        return "sacrebleu-crash", case, argv, sb, ours
    if case["env"].get("SACREBLEU_SEED", "").lower() == "none":
        sb, ours = unseeded(sb), unseeded(ours)
    if sb[0] == 0 and ours[0] == 0 and sb[1] == ours[1]:
        return "same", case, argv, sb, ours
    if sb[0] != 0 and ours[0] != 0:
        return "both-refused", case, argv, sb, ours
    return "differ", case, argv, sb, ours


def unseeded(result):
    """A run whose bootstrap drew fresh entropy, with the drawn numbers masked."""
    code, out, err = result
    out = re.sub(rb"\(\xce\xbc = [0-9.]+ \xc2\xb1 [0-9.]+\)", b"(mu = x)", out)
    out = re.sub(rb'"confidence_(mean|var)": [0-9.e+-]+', b'"confidence_\\1": x', out)
    out = re.sub(rb'"confidence": "[^"]*"', b'"confidence": x', out)
    return code, out, err


def describe(kind, case, argv, sb, ours):
    env = " ".join(f"{k}={v}" for k, v in case["env"].items())
    text = f"{kind}: case {case['index']}: {env} sacrebleu {' '.join(argv)}{' < stdin' if case['stdin'] else ''}\n"
    text += f"  refs {json.dumps(case['refs'], ensure_ascii=False)[:400]}\n"
    text += f"  systems {json.dumps(case['systems'], ensure_ascii=False)[:400]}\n"
    text += f"  sacrebleu exit {sb[0]}: {sb[1].decode(errors='replace')[:600]!r} {sb[2].decode(errors='replace')[-300:]!r}\n"
    text += f"  wgslate   exit {ours[0]}: {ours[1].decode(errors='replace')[:600]!r} {ours[2].decode(errors='replace')[-300:]!r}"
    return text


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--wgslate", required=True)
    p.add_argument("--cases", type=int, default=500)
    p.add_argument("--first", type=int, default=0, help="index of the first case (to split a long run)")
    p.add_argument("--seed", default="1")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--report", help="JSON file with the counts and the sacreBLEU crashes")
    a = p.parse_args()
    counts = {"same": 0, "both-refused": 0, "sacrebleu-crash": 0, "differ": 0, "panic": 0}
    crashes = []
    jobs = [(a.wgslate, a.seed, i) for i in range(a.first, a.first + a.cases)]
    with multiprocessing.Pool(a.jobs) as pool:
        for done, (kind, case, argv, sb, ours) in enumerate(pool.imap_unordered(check, jobs, chunksize=4), 1):
            counts[kind] += 1
            if done % 5000 == 0:
                print(f"{done} cases: " + ", ".join(f"{k} {v}" for k, v in counts.items()), file=sys.stderr, flush=True)
            if kind in ("differ", "panic"):
                print(describe(kind, case, argv, sb, ours), flush=True)
            elif kind == "sacrebleu-crash":
                crashes.append({"case": case["index"], "argv": argv, "sacrebleu": sb[2].decode(errors="replace")[-400:],
                                "wgslate_exit": ours[0], "wgslate": (ours[1] + ours[2]).decode(errors="replace")[:300]})
    if a.report:
        with open(a.report, "w") as f:
            json.dump({"seed": a.seed, "first": a.first, "cases": a.cases, "counts": counts, "sacrebleu_crashes": crashes}, f, indent=1)
    print(f"seed {a.seed}, cases {a.first}..{a.first + a.cases - 1}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    failed = counts["differ"] + counts["panic"]
    # Most cases must be scored by both: a generator that only made refused input would prove nothing.
    if counts["same"] < 0.8 * a.cases:
        print(f"only {counts['same']} of {a.cases} cases were scored by both", file=sys.stderr)
        failed = max(failed, 1)
    print(f"differential: {a.cases - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
