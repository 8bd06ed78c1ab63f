#!/usr/bin/env python3
"""maskbench_prep.py — MaskBench files to one JSON line each, instances
serialized as MaskBench does: json.dumps(data, ensure_ascii=False), that is
", " and ": " separators and Python's repr of floats.

Usage: maskbench_prep.py DIR > jobs.jsonl
Each line: {"file": NAME, "schema": TEXT, "tests": [{"valid": B, "text": T[, "ordered": T2]}, ...]}
where T2, for a valid instance, is the same data with object keys in schema
order when that differs: gcg accepts properties in schema order only, and the
report counts a valid instance accepted only that way separately.
A file that is not valid JSON of that shape gets "error" instead of tests.
"""
import json
import re
import os
import sys


def resolve(root, s, depth=0):
    """Follows a local $ref (JSON pointer) to its target."""
    while isinstance(s, dict) and isinstance(s.get("$ref"), str) and s["$ref"].startswith("#/") and depth < 50:
        cur = root
        for tok in s["$ref"][2:].split("/"):
            tok = tok.replace("~1", "/").replace("~0", "~")
            cur = cur.get(tok) if isinstance(cur, dict) else None
        if cur is None:
            break
        s, depth = cur, depth + 1
    return s


def prop_schemas(root, s, out, depth=0, keys=None):
    """Property name -> subschema, in schema order, through $ref and combinators.
    With the instance's keys, an anyOf/oneOf contributes its first branch
    whose properties hold them all (the branch the instance follows, whose
    order the grammar asks for); without one, every branch."""
    s = resolve(root, s)
    if not isinstance(s, dict) or depth > 20:
        return out
    for k, v in (s.get("properties") or {}).items():
        out.setdefault(k, v)
    for b in s.get("allOf") or []:
        prop_schemas(root, b, out, depth + 1, keys)
    for kw in ("anyOf", "oneOf"):
        branches = s.get(kw) or []
        chosen = None
        for b in branches if keys is not None else []:
            if set(keys) <= set(prop_schemas(root, b, dict(out), depth + 1, keys)):
                chosen = b
                break
        for b in [chosen] if chosen is not None else branches:
            prop_schemas(root, b, out, depth + 1, keys)
    return out


def pattern_schema(root, s, key, extra, depth=0):
    """The subschema of an additional key: the first patternProperties entry
    whose pattern matches it, here or through combinators (Python's re reads
    these patterns as ECMAScript does), else additionalProperties."""
    s = resolve(root, s)
    if not isinstance(s, dict) or depth > 20:
        return extra if isinstance(extra, dict) else {}
    for pat, sub in (s.get("patternProperties") or {}).items():
        try:
            if re.search(pat, key) and isinstance(sub, dict):
                return sub
        except re.error:
            pass
    for kw in ("allOf", "anyOf", "oneOf"):
        for b in s.get(kw) or []:
            found = pattern_schema(root, b, key, None, depth + 1)
            if found:
                return found
    return extra if isinstance(extra, dict) else {}


def schema_order(root, s, data):
    """data with object keys in the order the schema lists them (others after),
    the order in which gcg's grammars accept properties."""
    s = resolve(root, s)
    if isinstance(data, dict):
        props = prop_schemas(root, s, {}, 0, list(data))
        keys = [k for k in props if k in data] + [k for k in data if k not in props]
        extra = s.get("additionalProperties") if isinstance(s, dict) else None
        return {k: schema_order(root, props.get(k, pattern_schema(root, s, k, extra)), data[k]) for k in keys}
    if isinstance(data, list) and isinstance(s, dict):
        pre = s.get("prefixItems") or (s.get("items") if isinstance(s.get("items"), list) else [])
        rest = s.get("items") if isinstance(s.get("items"), dict) else {}
        return [schema_order(root, pre[i] if i < len(pre) else rest, x) for i, x in enumerate(data)]
    return data


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
            row["tests"] = []
            for t in doc["tests"]:
                row["tests"].append({"valid": bool(t["valid"]), "text": json.dumps(t["data"], ensure_ascii=False)})
                if t["valid"]:
                    try:
                        o = json.dumps(schema_order(doc["schema"], doc["schema"], t["data"]), ensure_ascii=False)
                    except (RecursionError, TypeError, AttributeError):
                        o = None
                    if o and o != row["tests"][-1]["text"]:
                        row["tests"][-1]["ordered"] = o
        except (ValueError, KeyError, TypeError) as e:
            row["error"] = f"not a MaskBench file: {e}"
        print(json.dumps(row, ensure_ascii=True))


if __name__ == "__main__":
    main()
