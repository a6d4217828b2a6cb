#!/usr/bin/env python3
"""Kit.HandoutsInBrowser: the handouts' HTML, as ./lab handouts wrote it, opened in headless
Chromium: every page of handouts/ was rendered, and on each, every image the Markdown shows (each
![...](...) and <img>) is in the page and drawn (loaded, with a width), so that a figure that is
missing, empty or not an image fails here with the page and the image's text.

    handouts_browser_test.py KIT_ROOT HTML_DIR WORK

HTML_DIR is what `./lab handouts HTML_DIR` wrote (Kit.Handouts writes it first: the fixture
handouts_html). Exits 77 (skipped) with the reason when no Chromium is installed.
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys

SKIP = 77
IMAGE = re.compile(r"!\[[^\n]*?\]\([^)\s]+\)|<img\b", re.I)

# Loads each page in a frame of its own, one after another, and writes what it found to #result.
HARNESS = r"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<pre id="result">running</pre>
<script>
const PAGES = %s;
function load(url) {
  const frame = document.createElement('iframe');
  frame.width = 1200; frame.height = 900;
  document.body.appendChild(frame);
  return new Promise(done => { frame.onload = () => done(frame); frame.src = url; });
}
async function main() {
  const out = {};
  for (const page of PAGES) {
    const frame = await load(page);
    const doc = frame.contentDocument;
    const images = Array.from(doc.images);
    await Promise.all(images.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
    out[page] = images.map(i => ({alt: i.alt, src: (i.getAttribute('src') || '').slice(0, 40),
                                  complete: i.complete, width: i.naturalWidth, height: i.naturalHeight}));
    frame.remove();
  }
  document.getElementById('result').textContent = JSON.stringify(out);
}
main().catch(e => { document.getElementById('result').textContent = 'ERROR ' + e; });
</script></body></html>
"""


def fail(message):
    print("FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    print("skipped: no Chromium to open the handouts in (Debian: apt-get install chromium)")
    sys.exit(SKIP)


def main():
    if len(sys.argv) != 4:
        print("usage: handouts_browser_test.py KIT_ROOT HTML_DIR WORK", file=sys.stderr)
        return 2
    kit, html, work = (pathlib.Path(a).resolve() for a in sys.argv[1:])
    chromium = browser()
    source = kit / "handouts"
    expected = {}
    for md in sorted(source.rglob("*.md")):
        page = md.relative_to(source).with_suffix(".html")
        if not (html / page).is_file():
            fail(f"handouts/{md.relative_to(source)} has no page in {html}: run ./lab handouts")
        text = re.sub(r"```.*?```", "", md.read_text(encoding="utf-8"), flags=re.S)
        expected[page.as_posix()] = len(IMAGE.findall(text))
    work.mkdir(parents=True, exist_ok=True)
    harness = html / "browser-harness.html"
    harness.write_text(HARNESS % json.dumps(sorted(expected)), encoding="utf-8")
    try:
        done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                               f"--user-data-dir={work / 'profile'}", "--virtual-time-budget=60000", "--dump-dom",
                               harness.as_uri()], capture_output=True, text=True, timeout=300)
    finally:
        harness.unlink()
    if done.returncode != 0:
        fail(f"chromium exited with {done.returncode}: {done.stderr[-2000:]}")
    match = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, flags=re.S)
    if not match or not match.group(1).startswith("{"):
        fail("the harness reported nothing: " + (match.group(1)[:500] if match else done.stdout[-1000:]))
    seen = json.loads(match.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
                      .replace("&quot;", '"'))
    failures, drawn = [], 0
    for page, count in expected.items():
        images = seen.get(page, [])
        if len(images) != count:
            failures.append(f"{page}: the Markdown shows {count} images, the page has {len(images)}")
        for image in images:
            if not image["complete"] or image["width"] == 0 or image["height"] == 0:
                failures.append(f"{page}: the image '{image['alt']}' ({image['src']}...) is not drawn")
            else:
                drawn += 1
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    if failures:
        return 1
    print(f"handouts in Chromium: {len(expected)} pages, {drawn} images, every one drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
