#!/usr/bin/env python3
"""Kit test (Kit.Catches.*): a planted mistake (tests/mutants.json) is caught by its rung's suites.

The mistake's suites program (its runner holds the mistaken kernel) runs the cases FILTER selects;
some must fail, and what they say must match EXPECT (a regular expression), which a student would
need to understand the mistake. Exit 0 when it is caught; 1 when every selected case passed (the
suites cannot tell the mistake from a right answer) or the messages never say EXPECT; 77 when the
kit skipped every selected case here (a GPU-only case on the CPU backend, say). TOOL "racecheck": the
mistake is one of a race, which compute-sanitizer's racecheck tests must report (FILTER selects
them); otherwise the racecheck tests are left out.

  catches.py PROGRAM FILTER EXPECT NAME MISTAKE [TOOL]
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def main():
    program, pattern, expect, name, mistake = sys.argv[1:6]
    tool = sys.argv[6] if len(sys.argv) > 6 else ""
    if tool != "racecheck":
        pattern += (":" if "-" in pattern else "-") + "*/Racecheck.*"
    with tempfile.TemporaryDirectory() as scratch:
        junit = os.path.join(scratch, "results.xml")
        ran = subprocess.run([program, f"--gtest_filter={pattern}", "--gtest_color=no", f"--lab_junit={junit}"],
                             env=dict(os.environ, TMPDIR=scratch), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace")
        if not os.path.exists(junit):
            print(f"FAILED: {program} wrote no results (exit status {ran.returncode}):\n{ran.stdout[-3000:]}")
            return 1
        cases = list(ET.parse(junit).getroot().iter("testcase"))
    if not cases:
        print(f"FAILED: the filter {pattern} selects none of the rung's tests")
        return 1
    outcomes = [c.get("outcome") for c in cases]
    said = [c.findtext("system-out") or "" for c in cases if c.get("outcome") in ("failed", "unfinished")]
    if not said and all(o == "skipped" for o in outcomes):
        print(f"skipped: every case that would catch {name} was skipped here: {cases[0].findtext('system-out')}")
        return 77
    if not said:
        print(f"FAILED: the suite did not catch the planted mistake {name}: {mistake}. Every selected case ({pattern}) "
              "passed, so the suite cannot tell this mistake from a right answer.")
        return 1
    if not re.search(expect, "\n".join(said)):
        print(f"FAILED: the suite failed the planted mistake {name} ({mistake}), but its messages never say "
              f"'{expect}', which a student would need to understand it.\n" + "\n".join(said)[:6000])
        return 1
    print(f"caught {name} ({len(said)} of {len(cases)} cases failed): {mistake}\n{said[0][:3000]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
