#!/usr/bin/env python3
"""wide-insn-check.py: fails when machine code outside the JSON parser's wide kernels uses an
instruction that a plain x86-64 processor may lack (AVX, AVX2, AVX-512, BMI, LZCNT, PCLMUL).

  wide-insn-check.py BINARY...

The parser is built once plain and once per wide kernel (src/json-line.cpp); a binary must run
on any x86-64, so the wide instructions may appear only in the kernels' own functions, whose
names carry the kernel's name (rt_json_haswell::..., simdjson::icelake::...), reached only after
the processor was found to have them. A function of any other name holding one (an inline
function of a shared header whose copy from a kernel build won the link, say) is reported,
with the instructions found, and the exit status is 1. Reads `objdump -d`.
"""
import re
import subprocess
import sys

KERNELS = ("haswell", "icelake")
# mnemonics beyond x86-64's baseline that the kernels' flags allow (VEX/EVEX ones start with v)
EXTRA = {"tzcnt", "lzcnt", "blsr", "blsi", "blsmsk", "andn", "bextr", "bzhi", "pdep", "pext",
         "shlx", "shrx", "sarx", "rorx", "mulx", "pclmulqdq", "kmovq", "kmovd", "kmovw", "kmovb"}
WIDE_REGISTER = re.compile(r"%[yz]mm\d|%k[0-7]\b")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.*)>:$")


def wide_functions(binary):
    """{function name: set of wide mnemonics} of the functions outside the kernels."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", binary],
                          check=True, capture_output=True, text=True).stdout
    found, current = {}, None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = m.group(1)
            continue
        parts = line.split("\t")
        if current is None or len(parts) < 2 or any(k in current for k in KERNELS):
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
    for binary in sys.argv[1:]:
        for name, mnemonics in sorted(wide_functions(binary).items()):
            print(f"{binary}: {name} uses {', '.join(sorted(mnemonics))} outside the wide kernels")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
