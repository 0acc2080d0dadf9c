#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""wide-insn-check.py: fails when machine code that a plain x86-64 processor may run uses an
instruction it may lack (AVX, AVX2, AVX-512, BMI, LZCNT, PCLMUL).

  wide-insn-check.py BINARY...

The parser is built once plain and once per wide kernel (src/json-line.cpp); a binary must run
on any x86-64, so the wide instructions may appear only where the kernels' code alone leads,
reached only after the processor was found to have them: functions local to a kernel's object
(which nothing else can call), and the kernels' own functions, whose names carry the kernel's
name (rt_json_haswell::..., simdjson::icelake::...). A global or weak function of any other
name holding one (an inline function of a shared header whose copy from a kernel build won the
link) is reported, and so is a static constructor holding one (it runs at start-up, on any
processor); the exit status is then 1. Reads `objdump -d` and `nm`.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

KERNELS = ("haswell", "icelake")
# mnemonics beyond x86-64's baseline that the kernels' flags allow (VEX/EVEX ones start with v)
EXTRA = {"tzcnt", "lzcnt", "blsr", "blsi", "blsmsk", "andn", "bextr", "bzhi", "pdep", "pext",
         "shlx", "shrx", "sarx", "rorx", "mulx", "pclmulqdq", "kmovq", "kmovd", "kmovw", "kmovb"}
WIDE_REGISTER = re.compile(r"%[yz]mm\d|%k[0-7]\b")
FUNCTION = re.compile(r"^([0-9a-f]+) <(.*)>:$")


def local_functions(binary):
    """addresses of the functions local to one object (nm's t), but the static constructors"""
    out = subprocess.run(["nm", "--defined-only", binary], check=True, capture_output=True,
                         text=True).stdout
    local = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "t" and not parts[2].startswith("_GLOBAL__sub_I"):
            local.add(int(parts[0], 16))
    return local


def wide_functions(binary):
    """{function name: set of wide mnemonics} of the functions any processor may run"""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", binary],
                          check=True, capture_output=True, text=True).stdout
    local = local_functions(binary)
    found, current = {}, None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = m.group(2)
            if any(k in current for k in KERNELS) or int(m.group(1), 16) in local:
                current = None   # the kernels' own, or reached only from their object
            continue
        parts = line.split("\t")
        if current is None or len(parts) < 2:
            continue
        insn = parts[1].strip()
        mnemonic = insn.split()[0] if insn else ""
        if mnemonic.startswith("v") or mnemonic in EXTRA or WIDE_REGISTER.search(insn):
            found.setdefault(current, set()).add(mnemonic)
    return found


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bad = 0
    # the binaries read side by side (objdump of one takes a third of a second), reported in order
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        found = list(pool.map(wide_functions, sys.argv[1:]))
    for binary, functions in zip(sys.argv[1:], found):
        for name, mnemonics in sorted(functions.items()):
            print(f"{binary}: {name} uses {', '.join(sorted(mnemonics))} outside the wide kernels")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
