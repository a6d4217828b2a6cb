#!/usr/bin/env python3
"""Kit.Grader.ReportPageInBrowser: a grading's report.html, the page a student gets, opened in
headless Chromium as the student would open it, and a screenshot of it taken.

    report_page_browser_test.py REPORT_DIR WORK [--expect TEXT ...]

Fails when the page, as the browser renders it:
  - shows Markdown rather than rendering it: a line of its text that starts as a Markdown heading
    (#), table row (|) or list item (- , * ), a rule of a Markdown table (|---|), ** or a backtick,
    or a <pre> that holds such a summary;
  - lacks the total as its heading, the table of rungs, or a table of parts and groups for each rung
    it lists, or a failing case's likely cause and replay line where a case failed;
  - writes to the console, or links anywhere but within itself;
  - lacks any --expect TEXT (the corpus's mistake_03_loop_stops_early: its likely cause).
The screenshot (WORK/report.png) is kept for a person to look at; a near-empty one fails.
Exits 77 (skipped) with the reason when no Chromium is installed.
"""
import argparse
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

SKIP = 77

HARNESS = r"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="result"></pre>
<script>
const frame = document.createElement('iframe');
frame.width = 1200;
frame.height = 900;
frame.onload = () => {
  try {
    const doc = frame.contentDocument;
    const text = doc.body.innerText;
    const pres = Array.from(doc.querySelectorAll('pre')).map(p => p.textContent);
    const rungs = Array.from(doc.querySelectorAll('section.rung')).map(s => ({
      id: s.id, parts: s.querySelectorAll('table.parts tr.part').length, groups: s.querySelectorAll('table.parts tr.group').length,
      failures: Array.from(s.querySelectorAll('ol.failures li')).map(li => li.innerText)}));
    document.getElementById('result').textContent = JSON.stringify({
      title: doc.title, h1: doc.querySelector('h1') ? doc.querySelector('h1').innerText : '', text: text, pres: pres,
      overview_rows: doc.querySelectorAll('table.overview tbody tr').length, rungs: rungs,
      links: Array.from(doc.querySelectorAll('[href],[src]')).map(e => e.getAttribute('href') || e.getAttribute('src'))});
  } catch (e) {
    document.getElementById('result').textContent = JSON.stringify({error: String(e && e.stack || e)});
  }
};
frame.src = %(page)s;
document.body.appendChild(frame);
</script></body></html>
"""

MARKDOWN_LINE = re.compile(r"^\s*(#{1,6} |\|.*\||[-*] |```)")


def fail(message):
    print("FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    print("skipped: no Chromium to open the report in (Debian: apt-get install chromium)")
    sys.exit(SKIP)


def run(browser, *args):
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", *args],
                          capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        fail(f"chromium exited with {done.returncode}: {done.stderr[-2000:]}")
    return done


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("--expect", action="append", default=[])
    args = parser.parse_args()
    browser = chromium()
    page = (args.report / "report.html").resolve()
    if not page.exists():
        fail(f"no report.html in {args.report}")
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    harness = args.work / "harness.html"
    harness.write_text(HARNESS % {"page": json.dumps(page.as_uri())})
    done = run(browser, "--dump-dom", harness.as_uri())
    found = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, re.S)
    if not found or not found.group(1):
        fail("the harness wrote nothing; the DOM: " + done.stdout[-2000:])
    seen = json.loads(html.unescape(found.group(1)))
    if "error" in seen:
        fail("the harness stopped: " + seen["error"])
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line and "report.html" in line]
    if console:
        fail("the page wrote to the console:\n  " + "\n  ".join(console))

    markdown = [line for line in seen["text"].splitlines() if MARKDOWN_LINE.match(line) or "|---" in line]
    markdown += [f"(inline) {m}" for m in re.findall(r".{0,30}(?:\*\*|`).{0,30}", seen["text"])]
    for pre in seen["pres"]:
        if re.search(r"^## |^\| Rung", pre, re.M):
            markdown.append("(a <pre> holds the Markdown summary) " + pre[:80])
    if markdown:
        fail("the page shows Markdown as text:\n  " + "\n  ".join(markdown[:10]))
    if not re.fullmatch(r"\d+\.\d\d / \d+\.\d\d points", seen["h1"].strip()):
        fail(f"the page's heading is {seen['h1']!r}, not its total")
    if seen["overview_rows"] == 0:
        fail("the page has no table of rungs")
    failures = 0
    for rung in seen["rungs"]:
        if rung["parts"] == 0 and "did not build" not in seen["text"] and "refused" not in seen["text"]:
            fail(f"{rung['id']} has no table of parts")
        for item in rung["failures"]:
            failures += 1
            if "Likely cause:" not in item or "./lab replay " not in item:
                fail(f"a failing case of {rung['id']} lacks its likely cause or replay line:\n{item}")
    for link in seen["links"]:
        if not link.startswith("#"):
            fail(f"the page links outside itself: {link}")
    for text in args.expect:
        if text not in seen["text"]:
            fail(f"the page does not say {text!r}")

    shot = args.work / "report.png"
    run(browser, "--window-size=1200,2400", "--hide-scrollbars", f"--screenshot={shot}", page.as_uri())
    if not shot.exists() or shot.stat().st_size < 20_000:
        fail(f"the screenshot {shot} is missing or near empty")
    print(f"{page}: {seen['h1']}; {seen['overview_rows']} rungs in its table, {len(seen['rungs'])} sections, "
          f"{failures} failing cases shown with their likely cause and replay line, no Markdown; screenshot: {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
