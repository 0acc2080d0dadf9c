#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""json-compare.py: does ACTUAL hold every key and value of EXPECTED (numbers within 1e-6)?
Extra keys in ACTUAL are allowed, as the issue's JSON contracts say; lists must match in length."""
import json
import math
import sys


def close(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    tol = 1e-6 * max(1.0, abs(a), abs(b))
    return math.isclose(a, b, rel_tol=0, abs_tol=tol)


def compare(exp, act, path, errors):
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            errors.append(f"{path}: expected an object, got {act!r:.80}")
            return
        for key, value in exp.items():
            if key not in act:
                errors.append(f"{path}.{key}: missing")
            else:
                compare(value, act[key], f"{path}.{key}", errors)
    elif isinstance(exp, list):
        if not isinstance(act, list) or len(act) != len(exp):
            errors.append(f"{path}: expected a list of {len(exp)}, got {act!r:.120}")
            return
        for i, (e, a) in enumerate(zip(exp, act)):
            compare(e, a, f"{path}[{i}]", errors)
    elif isinstance(exp, (int, float)) and not isinstance(exp, bool):
        if not isinstance(act, (int, float)) or isinstance(act, bool) or not close(exp, act):
            errors.append(f"{path}: expected {exp!r}, got {act!r}")
    elif exp != act:
        errors.append(f"{path}: expected {exp!r}, got {act!r}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: json-compare.py EXPECTED.json ACTUAL.json")
    with open(sys.argv[1]) as f:
        expected = json.load(f)
    with open(sys.argv[2]) as f:
        text = f.read()
    try:
        actual = json.loads(text)
    except json.JSONDecodeError as e:
        sys.exit(f"{sys.argv[2]}: not one JSON document: {e}")
    errors = []
    compare(expected, actual, "$", errors)
    for line in errors[:20]:
        print(line)
    if len(errors) > 20:
        print(f"... {len(errors) - 20} more differences")
    sys.exit(1 if errors else 0)


main()
