#!/usr/bin/env python3
"""Checks gcg against other projects' grammar test cases (a manual check,
not part of `meson test`: the corpora live outside the repository).

  corpus_check.py --bin BUILD_DIR [--refmatch PATH] CASES.jsonl...

Each line of a CASES file is a JSON object with `grammar` (GBNF), optional
`root`, `valid_grammar`, and strings: `accept` (complete sentences),
`reject` (not complete), `valid_prefixes` (prefixes), `invalid_prefixes`
and `invalid_prefixes_bytes_hex` (rejected before the end). Cases with
`features` (XGrammar-only syntax) or token references are skipped.

Every grammar goes through `gcgc compile`, every string through
`gcg match`. With --refmatch (tests/tools/refmatch.c, built by hand) each
string also goes through the reference Earley recognizer, which tells an
engine bug (engine and reference differ) from a difference in semantics
(engine and reference agree, the corpus says otherwise).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace").strip(), \
        p.stderr.decode("utf-8", "replace").strip()


def case_strings(case):
    """(bytes, wanted) pairs; wanted is 'complete', 'not-complete',
    'prefix-or-complete' or 'reject'."""
    out = []
    for s in case.get("accept") or []:
        out.append((s.encode("utf-8"), "complete"))
    for s in case.get("reject") or []:
        out.append((s.encode("utf-8"), "not-complete"))
    for s in case.get("valid_prefixes") or []:
        out.append((s.encode("utf-8"), "prefix-or-complete"))
    for s in case.get("invalid_prefixes") or []:
        out.append((s.encode("utf-8"), "reject"))
    for h in case.get("invalid_prefixes_bytes_hex") or []:
        out.append((bytes.fromhex(h), "reject"))
    return out


def satisfies(answer, wanted):
    if wanted == "complete":
        return answer == "complete"
    if wanted == "not-complete":
        return answer != "complete"
    if wanted == "prefix-or-complete":
        return answer in ("complete", "prefix")
    return answer.startswith("reject")


def skip_reason(case):
    if case.get("features"):
        return "features: " + ",".join(case["features"])
    if case.get("accept_tokens") or case.get("reject_tokens") or "<[" in case.get("grammar", ""):
        return "token references"
    if "grammar" not in case:
        return "no grammar"
    return None


class Checker:
    def __init__(self, args, tmp):
        self.gcgc = os.path.join(args.bin, "compiler", "gcgc")
        self.gcg = os.path.join(args.bin, "runtime", "gcg")
        self.refmatch = args.refmatch
        self.tmp = tmp
        self.count = collections.Counter()
        self.notes = []

    def compile(self, case):
        g = os.path.join(self.tmp, "g.gbnf")
        art = os.path.join(self.tmp, "g.gcg")
        with open(g, "w", encoding="utf-8") as f:
            f.write(case["grammar"])
        cmd = [self.gcgc, "compile", g, "-o", art]
        if case.get("root"):
            cmd += ["--root", case["root"]]
        rc, _, err = run(cmd)
        return rc == 0, err.splitlines()[0] if err else "", g, art

    def reference(self, case, g, text_file):
        if not self.refmatch:
            return None
        cmd = [self.refmatch, g] + (["-r", case["root"]] if case.get("root") else [])
        rc, out, err = run(cmd + ["-f", text_file])
        return out if rc == 0 else "refused: " + err.splitlines()[0] if err else "refused"

    def check_strings(self, name, case, g, art):
        for text, wanted in case_strings(case):
            t = os.path.join(self.tmp, "t.txt")
            with open(t, "wb") as f:
                f.write(text)
            _, out, _ = run([self.gcg, "match", art, t])
            ref = self.reference(case, g, t)
            self.count["strings"] += 1
            ok = satisfies(out, wanted)
            self.count["strings agree" if ok else "strings disagree"] += 1
            if ref is not None and ref != out:
                self.count["engine differs from reference"] += 1
            if not ok or (ref is not None and ref != out):
                self.notes.append("%s: %r wanted %s, engine %s%s" % (
                    name, text, wanted, out, "" if ref is None else ", reference " + ref))

    def check_case(self, name, case):
        why = skip_reason(case)
        if why:
            self.count["skipped (%s)" % why.split(":")[0]] += 1
            return
        self.count["cases"] += 1
        ok, err, g, art = self.compile(case)
        valid = case.get("valid_grammar")
        if not ok:
            if valid is False:
                self.count["grammar refused, as the source expects"] += 1
            else:
                self.count["grammar refused, the source accepts it"] += 1
                self.notes.append("%s: refused: %s" % (name, err))
            return
        if valid is False:
            self.count["grammar compiled, the source refuses it"] += 1
            self.notes.append("%s: compiled, the source refuses it (%s)" % (
                name, case.get("reason") or case.get("raised_by") or case.get("error_match") or "?"))
        self.check_strings(name, case, g, art)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="meson build directory with gcgc and gcg")
    ap.add_argument("--refmatch", help="reference recognizer binary (tests/tools/refmatch.c)")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.files:
            ck = Checker(args, tmp)
            with open(path, encoding="utf-8") as f:
                for i, line in enumerate(f):
                    case = json.loads(line)
                    ck.check_case("%s#%d %s" % (os.path.basename(path), i + 1, case.get("name", "")), case)
            print("== %s" % path)
            for k, v in sorted(ck.count.items()):
                print("  %-45s %d" % (k, v))
            for n in ck.notes:
                print("  - " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
