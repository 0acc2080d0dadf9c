#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""html-check.py PAGE [--text TEXT]...: checks that an rt-report page is inert and self-contained:
one <script> (ours, the table sorter), no event-handler attribute, no link or source that leaves
the page's folder, no element outside the HTML/SVG vocabulary gnuplot and rt-report write; every
TEXT given must appear in the page's text as it was (escaped in the markup, read back whole)."""
import html.parser
import re
import sys

ALLOWED = set("""html head meta title style body header h1 h2 h3 dl dt dd p span nav a section ol ul li
strong code br details summary figure figcaption table thead tbody tr th td script
svg g defs desc circle path rect use text tspan polygon polyline line clippath image ellipse filter feflood
fecomposite""".split())
LOCAL = re.compile(r"^(#[A-Za-z0-9_.:-]+|[A-Za-z0-9_.-]+\.(tsv|gp|csv))$")
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


class Checker(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self.scripts, self.text, self.in_script = [], 0, [], False
        self.svgs = 0

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED:
            self.problems.append("element <%s>" % tag)
        if tag == "script":
            self.scripts += 1
            self.in_script = True
            if any(k == "src" for k, _ in attrs):
                self.problems.append("a script with src")
        if tag == "svg":
            self.svgs += 1
        if tag == "image":
            self.problems.append("an <image> in an SVG")
        for k, v in attrs:
            v = v or ""
            if k.startswith("on"):
                self.problems.append("attribute %s on <%s>" % (k, tag))
            if k in ("href", "xlink:href", "src", "action", "formaction", "poster", "data"):
                if not LOCAL.match(v):
                    self.problems.append("%s=%r on <%s>" % (k, v, tag))
            if k.startswith("xmlns") and v not in NAMESPACES:
                self.problems.append("namespace %r" % v)
            if k == "style" and re.search(r"url\((?!#)", v):
                self.problems.append("style with url() on <%s>" % tag)
            if k == "http-equiv" and v.lower() != "refresh":
                self.problems.append("http-equiv %r" % v)

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = False

    def handle_data(self, data):
        if not self.in_script:
            self.text.append(data)


def main():
    args = sys.argv[1:]
    page = args.pop(0)
    texts = []
    while args:
        flag = args.pop(0)
        if flag != "--text" or not args:
            sys.exit("usage: html-check.py PAGE [--text TEXT]...")
        texts.append(args.pop(0))
    raw = open(page, encoding="utf-8").read()
    c = Checker()
    c.feed(raw)
    c.close()
    if c.scripts != 1:
        c.problems.append("%d <script> elements, expected rt-report's one" % c.scripts)
    if re.search(r"@import|url\(\s*['\"]?(https?:|//)", raw):
        c.problems.append("a style that fetches something")
    whole = "".join(c.text)
    for t in texts:
        if t not in whole:
            c.problems.append("the text %r is not in the page as it was" % t)
    for p in c.problems[:20]:
        print("html-check: %s: %s" % (page, p))
    sys.exit(1 if c.problems else 0)


main()
