#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# gen-docs.py: the man pages and the bash completion, made at build time from what the built
# commands say about themselves (--help, --summary-line), so that a new command needs no edit here.
#
#   gen-docs.py --out DIR --version V --date YYYY-MM-DD --events EVENTS_FILE
#               --page7 rolltrace.7.in --completion completion.bash.in NAME=PATH...
#
# Writes DIR/man1/NAME.1 (and .1.gz) for every command, DIR/man7/rolltrace.7 from its template (the list of
# commands filled in), and DIR/completion/rolltrace with a symlink per command beside it.
import argparse
import gzip
import os
import re
import subprocess
import sys

ENV = dict(os.environ, LC_ALL="C.UTF-8", NO_COLOR="1")


def run(path, *args):
    out = subprocess.run([path, *args], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=True)
    return out.stdout.decode("utf-8", "replace")


# ---- reading a GOption --help ----

OPTION_RE = re.compile(r"^\s+((?:-\w, )?--[\w-]+(?:=\S+)?)\s{2,}(.*)$")


class Help:
    """A command's --help, in blocks: usage, summary, option groups, sections, paragraphs."""

    def __init__(self, name, text, summary_line):
        self.name = name
        self.summary_line = summary_line
        self.usage = []            # "rt-cdf [OPTION...] EXP"
        self.summary = []          # paragraphs before the options
        self.options = []          # (spec "-s, --steps=SPEC", description)
        self.paragraphs = []       # paragraphs after the options
        self.sections = []         # (title, [lines]) headed blocks after the options: Examples:, Tables...
        self.examples = []
        self.exit_status = None
        blocks, block = [], []
        for line in text.replace("\u2026", "...").splitlines():
            if line.strip() == "":
                if block:
                    blocks.append(block)
                block = []
            else:
                block.append(line.rstrip())
        if block:
            blocks.append(block)
        seen_options = False
        for b in blocks:
            head = b[0]
            if head == "Usage:":
                self.usage = [l.strip().replace("[OPTION?]", "[OPTION...]") for l in b[1:]]
            elif head.endswith("Options:") and not head.startswith(" "):
                seen_options = True
                for l in b[1:]:
                    m = OPTION_RE.match(l)
                    if m:
                        self.options.append((m.group(1), m.group(2)))
                    elif self.options:   # a description continued on the next line
                        spec, desc = self.options[-1]
                        self.options[-1] = (spec, desc + " " + l.strip())
            elif head.startswith("Example:") or head.startswith("Examples:"):
                rest = head.split(":", 1)[1].strip()
                self.examples += ([rest] if rest else []) + [l.strip() for l in b[1:]]
            elif head.startswith("Exit status"):
                self.exit_status = re.sub(r"^Exit status:?\s*", "", " ".join(l.strip() for l in b))
            elif self.heading(b):
                k = self.heading(b)
                self.sections.append((" ".join(l.strip() for l in b[:k])[:-1], b[k:]))
            elif not seen_options:
                self.summary.append(b)
            else:
                self.paragraphs.append(b)

    @staticmethod
    def heading(block):
        """How many lines head an indented list: unindented ones ending with ':' ("Examples:",
        "Tables (...), by column:" on one line or more), or 0."""
        k = next((i for i, l in enumerate(block) if l.startswith(" ")), 0)
        return k if k > 0 and not block[0].startswith(" ") and block[k - 1].endswith(":") else 0

    def option_args(self):
        """{"--steps": "SPEC", "-s": "SPEC", "--json": None, ...}"""
        args = {}
        for spec, _ in self.options:
            names, _, arg = spec.partition("=")
            for n in names.split(", "):
                args[n] = arg or None
        return args

    def positional(self):
        """The metavariables after the options in the usage line: ["EXP"], ["EXP..."]"""
        if not self.usage:
            return []
        words = self.usage[0].split()[1:]
        return [w for w in words if not w.startswith("[")]


# ---- roff ----

def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def line(text):
    """One line of text, safe from being read as a request."""
    text = esc(text)
    return "\\&" + text if text[:1] in (".", "'") else text


def para(lines):
    return "\n".join(line(l.strip()) for l in lines)


def bold_option(spec):
    names, _, arg = spec.partition("=")
    parts = ["\\fB%s\\fR" % esc(n) for n in names.split(", ")]
    out = ", ".join(parts)
    return out + ("=\\fI%s\\fR" % esc(arg) if arg else "")


def preformatted(lines):
    return ".PP\n.RS 4\n.nf\n" + "\n".join(line(l) for l in lines) + "\n.fi\n.RE"


def section(title, lines):
    """A headed block: `  name: text` lines with `    key   meaning` lines under them (the tables)
    or `  word   text` lines (the front's commands) become tagged paragraphs; anything else
    keeps its lines."""
    out = [".SH %s" % esc(title.upper())]
    column = re.compile(r"^    (\S+)\s+(.*)$")       # a table's column: name, meaning
    tagged = re.compile(r"^  (\S+)\s{2,}(.*)$")      # the front's commands: name, what it does
    sub = re.compile(r"^  (\S[^:]*): (.*)$")          # a table: name: what a row is

    def kind(l):
        if l.startswith("    "):
            return "tag", column.match(l)
        return ("tag", tagged.match(l)) if tagged.match(l) else ("sub", sub.match(l))

    parts = [kind(l) for l in lines]
    if all(m for _, m in parts):
        for k, m in parts:
            if k == "sub":
                out.append(".SS %s\n%s" % (esc(m.group(1)), line(m.group(2))))
            else:
                out.append(".TP\n.B %s\n%s" % (esc(m.group(1)), line(m.group(2))))
    else:
        out.append(preformatted([l[2:] if l.startswith("  ") else l for l in lines]))
    return "\n".join(out)


DEFAULT_EXIT = ("0: done. 1: the experiment folder is missing, empty, unreadable or has no step_N "
                "folder, or the trace lacks what the analysis needs (with --json the document is "
                "still printed). 2: a usage error.")


def man_page(h, version, date, commands):
    name = h.name
    out = ['.\\" Generated at build time from "%s --help" by packaging/gen-docs.py: do not edit.' % name,
           '.TH %s 1 "%s" "rolltrace %s" "rolltrace"' % (esc(name.upper()), date, version),
           # names, options and paths must not be hyphenated nor stretched across the line
           ".nh", ".ad l",
           ".SH NAME", "%s \\- %s" % (esc(name), esc(h.summary_line)), ".SH SYNOPSIS"]
    for u in h.usage:
        words = u.split()
        rest = " ".join("\\fI%s\\fR" % esc(w) if not w.startswith("[") else esc(w) for w in words[1:])
        out += [".B %s" % esc(words[0]), rest, ".br"]
    out.append(".SH DESCRIPTION")
    out.append("\n.PP\n".join(para(b) for b in h.summary + h.paragraphs))
    if h.options:
        out.append(".SH OPTIONS")
        for spec, desc in h.options:
            out += [".TP", bold_option(spec), line(desc)]
    for title, lines in h.sections:
        if title.startswith("Tables"):
            # the command's own heading says what its tables are (TSV files, JSON arrays...)
            out.append(section("Table columns and JSON keys", lines).replace(
                ".SH TABLE COLUMNS AND JSON KEYS",
                ".SH TABLE COLUMNS AND JSON KEYS\n" + line(title + ".")))
        else:
            out.append(section(title, lines))
    if h.examples:
        out += [".SH EXAMPLES", preformatted(h.examples)]
    out += [".SH EXIT STATUS", line(h.exit_status or DEFAULT_EXIT)]
    if "--cache-dir" in h.option_args():
        out += [".SH ENVIRONMENT", ".TP", ".B XDG_CACHE_HOME",
                "The binary cache of the loaded tables is kept in \\fI$XDG_CACHE_HOME/rolltrace\\fR "
                "(\\fI~/.cache/rolltrace\\fR when unset), unless \\fB\\-\\-cache\\-dir\\fR or "
                "\\fB\\-\\-no\\-cache\\fR says otherwise."]
    others = [c for c in commands if c != name]
    refs = ["\\fBrolltrace\\fR(7)"] + ["\\fB%s\\fR(1)" % esc(c) for c in others]
    out += [".SH SEE ALSO", ",\n".join(refs)]
    return "\n".join(out) + "\n"


def page7(template, helps, version, date):
    items = []
    for h in helps:
        items += [".TP", "\\fB%s\\fR(1)" % esc(h.name), line(h.summary_line)]
    text = open(template, encoding="utf-8").read()
    return (text.replace("@VERSION@", version).replace("@DATE@", date)
            .replace("@COMMANDS@", "\n".join(items)))


# ---- bash completion ----

def shell_words(words):
    return " ".join(w for w in words if re.fullmatch(r"[\w.,:|=/+-]+", w))


def completion(template, helps, events):
    cases = []
    for h in helps:
        args = h.option_args()
        flags = [o for o, a in args.items() if a is None]
        valued = ["%s=%s" % (o, a) for o, a in args.items() if a is not None]
        cases.append("    %s) opts=%s valued=%s positional=%s ;;" % (
            h.name, "'%s'" % shell_words(flags), "'%s'" % shell_words(valued),
            "'%s'" % shell_words(h.positional())))
    text = open(template, encoding="utf-8").read()
    names = [h.name for h in helps if h.name != "rolltrace"]
    return (text.replace("@COMMANDS@", shell_words(names))
            .replace("@EVENTS@", shell_words(events))
            .replace("@CASES@", "\n".join(cases)))


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_page(path, text):
    """PATH, and PATH.gz as Debian installs pages (gzip -9n: no name, no time)."""
    write(path, text)
    tmp = path + ".gz.tmp"
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as f:
            f.write(text.encode("utf-8"))
    os.replace(tmp, path + ".gz")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--events", required=True, help="a program that prints the known event names")
    ap.add_argument("--page7", required=True)
    ap.add_argument("--completion", required=True)
    ap.add_argument("commands", nargs="+", help="NAME=PATH")
    a = ap.parse_args()
    helps = []
    for spec in a.commands:
        name, _, path = spec.partition("=")
        text = run(path, "--help")
        try:
            line = run(path, "--summary-line").strip()
        except subprocess.CalledProcessError:
            line = ""
        h = Help(name, text, line)
        if not h.summary_line:   # a command without the hidden option: its summary's first sentence
            first = " ".join(l.strip() for l in (h.summary[0] if h.summary else [name]))
            h.summary_line = re.split(r"(?<=[^.])[.:;] ", first)[0].rstrip(".")
        helps.append(h)
    events = run(a.events).split()
    for d in ("man1", "man7", "completion"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    names = [h.name for h in helps]
    for h in helps:
        write_page(os.path.join(a.out, "man1", h.name + ".1"), man_page(h, a.version, a.date, names))
    analyzers = [h for h in helps if h.name != "rolltrace"]
    write_page(os.path.join(a.out, "man7", "rolltrace.7"), page7(a.page7, analyzers, a.version, a.date))
    comp_dir = os.path.join(a.out, "completion")
    write(os.path.join(comp_dir, "rolltrace"), completion(a.completion, helps, events))
    # bash-completion loads completions/NAME for the command NAME: one script, a link per command
    for n in names:
        link = os.path.join(comp_dir, n)
        if n != "rolltrace" and not os.path.islink(link):
            if os.path.exists(link):
                os.remove(link)
            os.symlink("rolltrace", link)
    return 0


if __name__ == "__main__":
    sys.exit(main())
