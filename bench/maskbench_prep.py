#!/usr/bin/env python3
"""maskbench_prep.py — MaskBench files to one JSON line each, instances
serialized as MaskBench does: json.dumps(data, ensure_ascii=False), that is
", " and ": " separators and Python's repr of floats.

Usage: maskbench_prep.py DIR > jobs.jsonl
Each line: {"file": NAME, "schema": TEXT, "tests": [{"valid": B, "text": T}, ...]}
A file that is not valid JSON of that shape gets "error" instead of tests.
"""
import json
import os
import sys


def main():
    d = sys.argv[1]
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        row = {"file": name}
        try:
            with open(os.path.join(d, name), encoding="utf-8") as f:
                doc = json.load(f)
            row["schema"] = json.dumps(doc["schema"], ensure_ascii=False)
            row["tests"] = [{"valid": bool(t["valid"]), "text": json.dumps(t["data"], ensure_ascii=False)}
                            for t in doc["tests"]]
        except (ValueError, KeyError, TypeError) as e:
            row["error"] = f"not a MaskBench file: {e}"
        print(json.dumps(row, ensure_ascii=True))


if __name__ == "__main__":
    main()
