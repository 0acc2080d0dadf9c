#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""browser-check.py PAGE OUT_PREFIX [--width W] [--shot ID]...: opens PAGE in headless Chromium through the DevTools
protocol (over a pipe: no port, no package), and writes OUT_PREFIX.dom.html (the DOM once loaded),
OUT_PREFIX.png (a screenshot of the whole page) and OUT_PREFIX.json: the sections, the findings,
the size of every inline SVG, every URL the page asked for and every console error. Exits 2 when
the browser cannot be driven; the test reads the JSON. Each --shot ID also writes OUT_PREFIX-ID.png,
the element of that id alone (at most 1600 pixels of it): the pictures of the documentation."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

page, prefix = os.path.abspath(sys.argv[1]), sys.argv[2]
width = int(sys.argv[sys.argv.index("--width") + 1]) if "--width" in sys.argv else 1200
shots = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--shot"]
browser = next((shutil.which(b) for b in ("chromium", "chromium-headless-shell", "chromium-browser")
                if shutil.which(b)), None)
if browser is None:
    sys.exit("browser-check: no chromium found (make deps installs it)")

profile = tempfile.mkdtemp(prefix="rt-chromium-")
to_browser_r, to_browser_w = os.pipe()
from_browser_r, from_browser_w = os.pipe()
# the browser reads commands on fd 3 and writes answers on fd 4 (kept open by pass_fds)
def child_fds():
    os.dup2(to_browser_r, 3)
    os.dup2(from_browser_w, 4)
proc = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--no-default-browser-check", "--disable-extensions", "--mute-audio",
                         "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=child_fds,
                        pass_fds=(3, 4))
os.close(to_browser_r)
os.close(from_browser_w)
reader = os.fdopen(from_browser_r, "rb")
writer = os.fdopen(to_browser_w, "wb")
deadline = time.time() + 45
next_id = [0]
events = []
buffered = b""


def receive():
    global buffered
    while b"\0" not in buffered:
        if time.time() > deadline:
            raise TimeoutError("the browser did not answer in time")
        chunk = os.read(reader.fileno(), 1 << 16)
        if not chunk:
            raise EOFError("the browser closed the pipe")
        buffered += chunk
    msg, buffered = buffered.split(b"\0", 1)
    return json.loads(msg)


def send(method, params=None, session=None):
    next_id[0] += 1
    msg = {"id": next_id[0], "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    writer.write(json.dumps(msg).encode() + b"\0")
    writer.flush()
    while True:
        m = receive()
        if m.get("id") == next_id[0]:
            if "error" in m:
                raise RuntimeError("%s: %s" % (method, m["error"]))
            return m.get("result", {})
        events.append(m)


def wait_event(name):
    for i, m in enumerate(events):
        if m.get("method") == name:
            return events.pop(i)
    while True:
        m = receive()
        if m.get("method") == name:
            return m
        events.append(m)


try:
    target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Network", "Log"):
        send(domain + ".enable", session=s)
    send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1,
                                                "mobile": False}, session=s)
    send("Page.navigate", {"url": "file://" + page}, session=s)
    wait_event("Page.loadEventFired")
    probe = """(() => {
      const r = e => { const b = e.getBoundingClientRect(); return [Math.round(b.width), Math.round(b.height)]; };
      return {
        sections: [...document.querySelectorAll('section')].map(e => e.id),
        findings: [...document.querySelectorAll('li.finding')].map(e => e.id.replace(/^finding-/, '')),
        svgs: [...document.querySelectorAll('svg')].filter(e => !e.parentElement.closest('svg'))
                .map(e => ({plot: e.parentElement.id, size: r(e)})),
        refresh: !!document.querySelector('meta[http-equiv=refresh]'),
        height: Math.ceil(document.documentElement.scrollHeight),
        title: document.title };
    })()"""
    info = send("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=s)["result"]["value"]
    dom = send("Runtime.evaluate", {"expression": "document.documentElement.outerHTML", "returnByValue": True},
               session=s)["result"]["value"]
    shot = send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                           "clip": {"x": 0, "y": 0, "width": width,
                                                    "height": min(info["height"], 16000), "scale": 1}},
                session=s)
    for element in shots:
        box = send("Runtime.evaluate", {"expression": "(() => { const b = document.getElementById(%s)"
                                        ".getBoundingClientRect(); return [b.left + scrollX, b.top + scrollY, b.width,"
                                        " b.height]; })()" % json.dumps(element), "returnByValue": True},
                   session=s)["result"]["value"]
        part = send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                               "clip": {"x": 0, "y": box[1] - 8, "width": width,
                                                        "height": min(box[3] + 16, 1600), "scale": 1}},
                    session=s)
        with open("%s-%s.png" % (prefix, element), "wb") as f:
            f.write(base64.b64decode(part["data"]))
    # what the page asked for, and what the console said, once everything settled
    time.sleep(0.3)
    send("Runtime.evaluate", {"expression": "1"}, session=s)
    info["requests"] = [m["params"]["request"]["url"] for m in events
                        if m.get("method") == "Network.requestWillBeSent"]
    errors = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.exceptionThrown":
            errors.append(p["exceptionDetails"].get("text", "exception"))
        elif m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m.get("method") == "Log.entryAdded" and p["entry"]["level"] == "error":
            errors.append(p["entry"].get("text", ""))
    info["console_errors"] = errors
    with open(prefix + ".dom.html", "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n" + dom)
    with open(prefix + ".png", "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    with open(prefix + ".json", "w") as f:
        json.dump(info, f, indent=1)
    try:
        send("Browser.close")
    except (EOFError, RuntimeError):
        pass
except (TimeoutError, EOFError, RuntimeError, KeyError) as e:
    print("browser-check: %s" % e, file=sys.stderr)
    proc.kill()
    sys.exit(2)
finally:
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    shutil.rmtree(profile, ignore_errors=True)
