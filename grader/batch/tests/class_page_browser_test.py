#!/usr/bin/env python3
"""Kit.Grader.ClassPageInBrowser: the class summary page that grade-all wrote, opened in headless
Chromium as an instructor would open it from the output folder.

    class_page_browser_test.py LAB_GRADE OUT WORK

OUT is a class grade-all graded (Kit.Grader.GradeAll's). Checks, in the browser:
  - no console message from the class page or a student's report (an error, a blocked resource);
  - with JavaScript off (a frame sandboxed without scripts): every student is listed and the
    filter by rung and state works (it is CSS); each choice shows exactly the students that the
    grade.json files give that state, as many as its label says;
  - with JavaScript on: a click on each sortable heading sorts the rows by that column, both ways,
    and an address #sort=total-desc opens sorted;
  - every plot is drawn (the score histogram's bars, the speed plot's dots where speed was timed);
  - every link and image of the page, of the similarity page and of a student's report resolves
    to a file inside OUT, and the similarity page says that it is no verdict.
Then a class of 1,000 students, made by copying OUT's gradings and written by `lab-grade
class-report`: its page stays under 5 MB and the browser loads it in under 2 s (the fastest of three loads).
Exits 77 (skipped) with the reason when no Chromium is installed.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

SKIP = 77


def fail(message):
    print("FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    print("skipped: no Chromium to open the class page in (Debian: apt-get install chromium; "
          "./lab selftest installs it when run as root)")
    sys.exit(SKIP)


def run_browser(chromium, url, *extra):
    """The DOM after the page's scripts ran, and the console lines of pages under file://."""
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000", *extra, "--dump-dom", url]
    done = subprocess.run(args, capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        fail(f"chromium exited with {done.returncode}: {done.stderr[-2000:]}")
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, console


# The harness: the class page in two frames, one with its scripts blocked (the sandbox without
# allow-scripts), one with them; this page's own script drives both and writes what it saw.
HARNESS = r"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<pre id="result"></pre>
<script>
const PAGE = %(page)s, REPORT = %(report)s;
// A new frame for each page: scripts = false blocks the page's scripts (a sandbox without allow-scripts).
function load(scripts, url) {
  const frame = document.createElement('iframe');
  frame.width = 1200;
  frame.height = 800;
  if (!scripts) frame.setAttribute('sandbox', 'allow-same-origin');
  document.body.appendChild(frame);
  return new Promise(done => {
    const started = performance.now();
    frame.onload = () => done({doc: frame.contentDocument, ms: performance.now() - started});
    frame.src = url;
  });
}
function rowsOf(doc) { return Array.from(doc.querySelectorAll('#students-table tbody tr')); }
function described(row) {
  const states = {};
  for (const a of row.attributes) if (/^data-r\d\d$/.test(a.name)) states[a.name.slice(6)] = a.value;
  return {id: row.cells[0].textContent, graded: row.dataset.graded, states: states};
}
async function main() {
  const out = {};
  let {doc} = await load(false, PAGE);
  const shown = () => rowsOf(doc).filter(r => doc.defaultView.getComputedStyle(r).display !== 'none')
                                 .map(r => r.cells[0].textContent);
  out.rows = rowsOf(doc).map(described);
  out.everyone = shown();
  out.filters = [];
  for (const radio of doc.querySelectorAll('input[name=show]')) {
    radio.click();
    out.filters.push({id: radio.id, checked: radio.checked, label: radio.parentElement.textContent.trim(), shown: shown()});
  }
  out.svgs = Array.from(doc.querySelectorAll('svg')).map(svg => ({
    width: svg.getBoundingClientRect().width,
    bars: Array.from(svg.querySelectorAll('rect, circle')).filter(r => r.getBBox().height > 0).length}));
  const links = d => Array.from(d.querySelectorAll('[href],[src]')).map(e => e.getAttribute('href') || e.getAttribute('src'));
  out.links = links(doc);
  ({doc} = await load(true, PAGE));
  const table = doc.getElementById('students-table');
  const column = key => Array.from(table.tHead.rows[0].cells).findIndex(h => h.dataset.key === key);
  const values = key => rowsOf(doc).map(r => {
    const cell = r.cells[column(key)];
    return cell.hasAttribute('data-v') ? cell.getAttribute('data-v') : cell.textContent;
  });
  out.sorts = {};
  for (const head of table.tHead.rows[0].cells) {
    if (!head.dataset.sort) continue;
    head.click();
    const up = {values: values(head.dataset.key), aria: head.getAttribute('aria-sort'), hash: doc.defaultView.location.hash};
    head.click();
    const down = {values: values(head.dataset.key), aria: head.getAttribute('aria-sort')};
    out.sorts[head.dataset.key] = {kind: head.dataset.sort, up: up, down: down};
  }
  ({doc} = await load(true, PAGE + '#sort=total-desc'));
  out.opened_sorted = rowsOf(doc).map(r => r.cells[column('total')].getAttribute('data-v'));
  ({doc} = await load(true, new URL('similarity.html', PAGE).href));
  out.similarity_links = links(doc);
  out.similarity_text = doc.body.textContent;
  if (REPORT) {
    ({doc} = await load(true, REPORT));
    out.report_links = links(doc);
    out.report_title = doc.title;
  }
  document.getElementById('result').textContent = JSON.stringify(out);
}
main().catch(e => { document.getElementById('result').textContent = JSON.stringify({error: String(e && e.stack || e)}); });
</script></body></html>
"""

# The large page loaded three times, each in a new frame: the fastest load is the page's time (the
# others may include a busy machine's pauses).
TIMING = r"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="result"></pre>
<script>
function load(url) {
  const frame = document.createElement('iframe');
  frame.width = 1200;
  frame.height = 800;
  document.body.appendChild(frame);
  return new Promise(done => {
    const started = performance.now();
    frame.onload = () => done({ms: performance.now() - started, rows: frame.contentDocument.querySelectorAll('#students-table tbody tr').length});
    frame.src = url;
  });
}
(async () => {
  const loads = [];
  for (let i = 0; i < 3; i++) loads.push(await load(%(page)s));
  document.getElementById('result').textContent = JSON.stringify({
    ms: Math.min(...loads.map(l => l.ms)), all_ms: loads.map(l => Math.round(l.ms)), rows: loads[0].rows});
})().catch(e => { document.getElementById('result').textContent = JSON.stringify({error: String(e)}); });
</script></body></html>
"""


def result_of(dom):
    found = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    if not found or not found.group(1):
        fail("the harness wrote no result; the DOM: " + dom[-3000:])
    result = json.loads(html.unescape(found.group(1)))
    if "error" in result:
        fail("the harness stopped: " + result["error"])
    return result


def expected_state(rung):
    """A rung's state from its grade.json entry, as the page should give it (gradebook.cpp state_of)."""
    if not rung["submitted"]:
        return "missing"
    if rung["unrun"]:
        return "unrun"
    statuses = [c["status"] for c in rung["cases"]]
    correct = rung["built"] and "failed" not in statuses and "passed" in statuses
    return "correct" if correct else "failed"


def check_links(base, links, out, what):
    checked = 0
    for link in links:
        target = urllib.parse.urlsplit(link)
        if target.scheme or link.startswith("#"):
            if target.scheme not in ("", "file"):
                fail(f"{what} links outside the output folder: {link}")
            continue
        path = (base / urllib.parse.unquote(target.path)).resolve()
        if not path.is_relative_to(out.resolve()):
            fail(f"{what} links outside the output folder: {link}")
        if not path.exists():
            fail(f"{what}'s link {link} does not resolve ({path} is missing)")
        checked += 1
    return checked


def page_console(console, out):
    """Console lines from the class's pages (not the harness's own, nor the sandbox's notice that it
    blocked the scripted frame's scripts, which is the point of that frame)."""
    mine = []
    for line in console:
        if "because the document's frame is sandboxed" in line:
            continue
        if str(out.resolve()) in urllib.parse.unquote(line) or "class-summary" in line or "report.html" in line:
            mine.append(line)
    return mine


def check_class_page(chromium, out, work):
    page = out / "class-summary.html"
    states = json.loads((out / "class.json").read_text())["students"]
    ids = [s["id"] for s in states]
    grades = {}
    for s in ids:
        g = out / "students" / s / "instructor" / "grade.json"
        if g.exists():
            grades[s] = json.loads(g.read_text())
    report = next((out / "students" / s / "report.html" for s in ids if (out / "students" / s / "report.html").exists()), None)
    harness = work / "harness.html"
    harness.write_text(HARNESS % {"page": json.dumps(page.resolve().as_uri()),
                                  "report": json.dumps(report.resolve().as_uri() if report else "")})
    dom, console = run_browser(chromium, harness.resolve().as_uri())
    result = result_of(dom)
    noise = page_console(console, out)
    if noise:
        fail("the pages wrote to the console:\n  " + "\n  ".join(noise))

    rows = {r["id"]: r for r in result["rows"]}
    if sorted(rows) != sorted(ids):
        fail(f"the student table lists {sorted(rows)}, class.json {sorted(ids)}")
    if sorted(result["everyone"]) != sorted(ids):
        fail(f"with JavaScript off, 'everyone' shows {result['everyone']}")
    # Each row's states are the grade.json's: a page that said "correct" for a failed rung fails here.
    for s, g in grades.items():
        if rows[s]["graded"] != "yes":  # a grade.json that is out of date: the row says not graded
            continue
        want = {r["id"][:2]: expected_state(r) for r in g["rungs"]}
        if rows[s]["states"] != want:
            fail(f"{s}'s row gives {rows[s]['states']}, its grade.json {want}")
    filters = 0
    for f in result["filters"]:
        if not f["checked"]:
            fail(f"the filter {f['id']} could not be chosen")
        m = re.fullmatch(r"show-(\d\d)-(\w+)", f["id"])
        if m:
            want = sorted(s for s, r in rows.items() if r["states"].get(m.group(1)) == m.group(2))
            count = int(f["label"].split()[-1])
        elif f["id"] == "show-everyone":
            want, count = sorted(ids), len(ids)
        elif f["id"] == "show-ungraded":
            want = sorted(s for s, r in rows.items() if r["graded"] == "no")
            count = int(re.search(r"\((\d+)\)", f["label"]).group(1))
        else:
            fail(f"an unknown filter {f['id']}")
        if sorted(f["shown"]) != want:
            fail(f"the filter {f['id']} shows {sorted(f['shown'])}, not {want}")
        if count != len(want):
            fail(f"the filter {f['id']} says {count} students and shows {len(want)}")
        filters += 1
    if filters < 2 or not any(f["shown"] and len(f["shown"]) < len(ids) for f in result["filters"]):
        fail("no filter choice narrowed the table: the class has too little variety to test the filter")

    for key, s in result["sorts"].items():
        number = (lambda v: float(v)) if s["kind"] == "num" else (lambda v: v.lower())
        up, down = [number(v) for v in s["up"]["values"]], [number(v) for v in s["down"]["values"]]
        if up != sorted(up) or down != sorted(down, reverse=True) or len(up) != len(ids):
            fail(f"sorting by {key}: up {s['up']['values']}, down {s['down']['values']}")
        if s["up"]["aria"] != "ascending" or s["down"]["aria"] != "descending" or s["up"]["hash"] != f"#sort={key}-asc":
            fail(f"sorting by {key} did not mark the heading or the address: {s}")
    if not {"student", "total"} <= set(result["sorts"]):
        fail(f"the sortable columns are {sorted(result['sorts'])}")
    opened = [float(v) for v in result["opened_sorted"]]
    if opened != sorted(opened, reverse=True):
        fail(f"#sort=total-desc opened the table as {opened}")

    if not result["svgs"] or not all(svg["width"] > 0 and svg["bars"] > 0 for svg in result["svgs"]):
        fail(f"a plot is missing or empty: {result['svgs']}")
    links = check_links(page.parent, result["links"], out, "the class page")
    links += check_links(page.parent, result["similarity_links"], out, "the similarity page")
    if "never a verdict" not in result["similarity_text"]:
        fail("the similarity page does not say that it is no verdict")
    if report:
        links += check_links(report.parent, result["report_links"], out, "a student's report")
    if links < len(grades):
        fail(f"only {links} links were checked for {len(grades)} graded students")

    print(f"the class page: {len(ids)} students, {filters} filter choices, {len(result['sorts'])} sortable columns, "
          f"{links} links resolved, {len(result['svgs'])} plots; no console message")


def check_large_class(chromium, grade, out, work, size=1000):
    """A class of SIZE students, each a copy of one of OUT's gradings, through lab-grade class-report."""
    big = work / "large-class"
    shutil.rmtree(big, ignore_errors=True)
    (big / "students").mkdir(parents=True)
    state = json.loads((out / "class.json").read_text())
    graded = [s for s in state["students"] if (out / "students" / s["id"] / "batch.json").exists()]
    if not graded:
        fail("no graded student to copy")
    students = []
    for k in range(size):
        model = graded[k % len(graded)]
        sid = f"student-{k:04d}"
        shutil.copytree(out / "students" / model["id"], big / "students" / sid,
                        ignore=shutil.ignore_patterns("graded", "*.log"))
        students.append(dict(model, id=sid))
    state["students"] = students
    (big / "class.json").write_text(json.dumps(state))
    done = subprocess.run([grade, "class-report", str(big)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        fail(f"class-report on {size} students: {done.stdout}{done.stderr}")
    page = big / "class-summary.html"
    megabytes = page.stat().st_size / 1e6
    if megabytes >= 5:
        fail(f"the page of {size} students is {megabytes:.1f} MB (at most 5)")
    timing = work / "timing.html"
    timing.write_text(TIMING % {"page": json.dumps(page.resolve().as_uri())})
    started = time.monotonic()
    dom, console = run_browser(chromium, timing.resolve().as_uri())
    result = result_of(dom)
    if result["rows"] != size:
        fail(f"the page of {size} students lists {result['rows']}")
    if result["ms"] >= 2000:
        fail(f"the page of {size} students took {result['ms']:.0f} ms to load (at most 2000)")
    noise = page_console(console, big)
    if noise:
        fail("the large page wrote to the console:\n  " + "\n  ".join(noise))
    shutil.rmtree(big / "students", ignore_errors=True)  # 1,000 copies of gradings: a quarter of a GB
    print(f"a class of {size}: the page is {megabytes:.2f} MB and loaded in {result['ms']:.0f} ms (of {result['all_ms']} ms) "
          f"({time.monotonic() - started:.1f} s with the browser's start)")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    grade, out, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    chromium = browser()
    if not (out / "class-summary.html").exists():
        fail(f"{out} holds no class-summary.html (Kit.Grader.GradeAll writes it)")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    check_class_page(chromium, out, work)
    check_large_class(chromium, grade, out, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
