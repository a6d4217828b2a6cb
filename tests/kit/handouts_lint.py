#!/usr/bin/env python3
"""The handouts as lessons, checked on their text (issue 63).

    handouts_lint.py lessons KIT_ROOT    Kit.HandoutsAreLessons
    handouts_lint.py dates KIT_ROOT      Kit.NoDatesInHandoutsOrReadmes

lessons: every rung of rungs.json has handouts/NN_name.md, within its word limit (1,300; rung 12,
which introduces four kernels, 2,000), with the lesson's six parts as `##` sections in this
order, each once: the change; why it should be faster (or no slower); what the kit measured; the
common mistakes; check your understanding (three numbered questions, at least one answered by
running `./lab explain`); the estimated time (a number of minutes or hours). overview.md and
checking.md within 1,300 words. A word is a whitespace-separated token holding a letter or a digit,
outside HTML comments (the generator's markers), tables and generated sections included.

dates: no date (2026-11-29, "November 2026", "29 November 2026", "Nov. 29, 2026") in a handout
(handouts/**/*.md, but for the lab notebook handouts/benchmark/, where a measurement keeps its date)
or in any README.md of the kit. A year alone ("Harris, 2007") is a citation, not a date.
Each failure names the file and the line."""
import json
import pathlib
import re
import sys

SECTIONS = [r"The change", r"Why it should be (faster|no slower)", r"What the kit measured", r"Common mistakes",
            r"Check your understanding", r"Estimated time"]
WORD_LIMIT, FOUR_KERNELS_LIMIT, PAGE_LIMIT = 1300, 2000, 1300
FOUR_KERNELS = "12_real_kernels"
SKIPPED = {".git", ".deps", ".whl", ".lab", "build", "Testing", "__pycache__", "node_modules"}

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
SHORT = "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
YEAR = r"(?:19|20)\d{2}"
DATE = re.compile("|".join([
    rf"\b{YEAR}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b",          # 2026-11-29
    rf"\b(?:{MONTHS}|(?:{SHORT})\.?)\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?{YEAR}\b",  # November 2026, Nov. 29, 2026
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{MONTHS}|{SHORT})\.?,?\s+{YEAR}\b",  # 29 November 2026
]))


def words(text):
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    return sum(1 for token in text.split() if re.search(r"[A-Za-z0-9]", token))


def sections(text):
    """The `##` headings outside fenced code, in order."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            found.append(line[3:].strip())
    return found


def section_body(text, title_pattern):
    match = re.search(rf"^## {title_pattern}\s*$(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    return match.group(1) if match else ""


def check_lesson(path, limit):
    text = path.read_text(encoding="utf-8")
    problems = []
    count = words(text)
    if count > limit:
        problems.append(f"{count} words, over its limit of {limit}")
    headings = sections(text)
    order = []
    for pattern in SECTIONS:
        hits = [i for i, h in enumerate(headings) if re.fullmatch(pattern, h)]
        if len(hits) != 1:
            problems.append(f"needs one section '## {pattern}', has {len(hits)}")
        else:
            order.append(hits[0])
    if len(order) == len(SECTIONS) and order != sorted(order):
        problems.append("its sections are out of order: " + " / ".join(headings[i] for i in sorted(order)) +
                        "; the order is " + " / ".join(SECTIONS))
    questions = section_body(text, "Check your understanding")
    numbered = re.findall(r"^\d+\.\s", questions, flags=re.M)
    if len(numbered) != 3:
        problems.append(f"'Check your understanding' holds {len(numbered)} numbered questions, not 3")
    if "./lab explain" not in questions:
        problems.append("no question of 'Check your understanding' is answered with ./lab explain")
    if not re.search(r"\b\d+\s*(minutes|hours?)\b", section_body(text, "Estimated time")):
        problems.append("'Estimated time' gives no number of minutes or hours")
    return problems


def lessons(root):
    rungs = [r["id"] for r in json.loads((root / "rungs.json").read_text())["rungs"]]
    failures = []
    for rung in rungs:
        path = root / "handouts" / f"{rung}.md"
        if not path.exists():
            failures.append(f"handouts/{rung}.md: missing")
            continue
        limit = FOUR_KERNELS_LIMIT if rung == FOUR_KERNELS else WORD_LIMIT
        failures += [f"handouts/{rung}.md: {p}" for p in check_lesson(path, limit)]
    for page in ("overview.md", "checking.md"):
        count = words((root / "handouts" / page).read_text(encoding="utf-8"))
        if count > PAGE_LIMIT:
            failures.append(f"handouts/{page}: {count} words, over its limit of {PAGE_LIMIT}")
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    if not failures:
        print(f"handouts: {len(rungs)} lessons in six parts within their word limits, overview and checking too")
    return 1 if failures else 0


def dated_files(root):
    for path in sorted(root.rglob("*.md")):
        parts = path.relative_to(root).parts
        if any(p in SKIPPED or p.startswith("build") for p in parts[:-1]):
            continue
        if path.name == "README.md" or (parts[0] == "handouts" and parts[1:2] != ("benchmark",)):
            yield path


def dates(root):
    failures, checked = [], 0
    for path in dated_files(root):
        checked += 1
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in DATE.finditer(line):
                failures.append(f"{path.relative_to(root)}:{number}: a date, '{match.group(0)}'")
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    if failures:
        print(f"{len(failures)} dates in handouts and READMEs: a measurement's date and machine belong in "
              "handouts/benchmark/<gpu>/notes.md or in a commit message", file=sys.stderr)
    else:
        print(f"no date in {checked} handouts and READMEs")
    return 1 if failures else 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("lessons", "dates"):
        print("usage: handouts_lint.py lessons|dates KIT_ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[2]).resolve()
    return lessons(root) if sys.argv[1] == "lessons" else dates(root)


if __name__ == "__main__":
    sys.exit(main())
