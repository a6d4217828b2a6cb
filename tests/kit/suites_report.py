#!/usr/bin/env python3
"""Kit test (Kit.SuitesReportTheirOutcomes): a rung's suites program is the judge, and says what
became of each test it ran in its results (--lab_junit, lab/test_results.hpp) and in its exit status,
which ./lab check, ./lab run, ./lab test and ctest take as they are. On the CPU backend:

  passed, skipped   the reference of 07: a small case and a launcher test pass; a GPU-only case and
                    the speed test are skipped by the kit, each with its reason after "lab: skipped: "
  skipped alone     a run whose every test the kit skips exits 77 (ctest's SKIP_RETURN_CODE)
  unfinished        the untouched exercise of 03 fails with its to-do list (the outcome "unfinished",
                    not a sentence to match), and its stub, run anyway (LAB_IGNORE_TODOS=1), "failed"
  failed            a planted mistake fails its case: exit status 1
  left out          --lab_sample leaves out the larger cases not in its sample (lab::cpu_sample), said so, and no
                    small case
  ctest             --lab_ctest_file declares exactly the tests the program registers, each run alone
  a bad option      exits 2

  suites_report.py TEST_07 EXERCISE_03 MUTANT_NO_PADDING_AT_ALL WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

test_07, exercise_03, mutant, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
problems = []


def run(name, program, *args, env=None):
    """The exit status and {test: (outcome, status, text)} of one run."""
    junit = os.path.join(work, name + ".xml")
    done = subprocess.run([program, "--gtest_color=no", f"--lab_junit={junit}", *args], env=dict(os.environ, **(env or {})),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    with open(os.path.join(work, name + ".log"), "w") as log:
        log.write(done.stdout)
    if not os.path.exists(junit):
        problems.append(f"{name}: no results written (exit status {done.returncode})")
        return done.returncode, {}
    cases = {c.get("name"): (c.get("outcome"), c.get("status"), c.findtext("system-out") or "")
             for c in ET.parse(junit).getroot().iter("testcase")}
    return done.returncode, cases


def expect(what, condition):
    if not condition:
        problems.append(what)


status, cases = run("mixed", test_07, "--gtest_filter=*Sum.MatchesReference/int_n1856_b256:*RejectsBlockSize/b100:"
                                      "*n2147483653*:*/Speed.*")
expect(f"mixed: exit status {status}, not 0", status == 0)
outcomes = {name.split(".", 1)[1]: c[0] for name, c in cases.items()}
expect(f"mixed: {outcomes}", outcomes.get("MatchesReference/int_n1856_b256") == "passed"
       and outcomes.get("RejectsBlockSize/b100") == "passed")
skipped = [c for c in cases.values() if c[0] == "skipped"]
expect(f"mixed: the GPU-only case and the speed test not skipped: {outcomes}", len(skipped) == 2)
expect(f"mixed: a skip not said as the kit's: {skipped}",
       all(c[1] == "notrun" and c[2].startswith("lab: skipped: ") for c in skipped))
expect(f"mixed: no reason for the GPU-only case: {skipped}", any("this case runs on a GPU only" in c[2] for c in skipped))
expect(f"mixed: no reason for the speed test: {skipped}", any("speed is measured on a GPU only" in c[2] for c in skipped))

status, cases = run("skipped", test_07, "--gtest_filter=*n2147483653*")
expect(f"skipped alone: exit status {status}, not 77", status == 77 and cases and all(c[0] == "skipped" for c in cases.values()))

status, cases = run("unfinished", exercise_03, "--gtest_filter=*Sum.MatchesReference/int_n33_b64")
case = next(iter(cases.values()), ("", "", ""))
expect(f"unfinished: exit status {status}, {case[:2]}", status == 1 and case[0] == "unfinished" and case[1] == "fail")
expect(f"unfinished: no to-do list: {case[2][:300]}", "TODO(03-" in case[2])
status, cases = run("stub", exercise_03, "--gtest_filter=*Sum.MatchesReference/int_n33_b64", env={"LAB_IGNORE_TODOS": "1"})
expect(f"stub: exit status {status}, {list(cases.values())[:1]}", status == 1 and [c[0] for c in cases.values()] == ["failed"])

status, cases = run("failed", mutant, "--gtest_filter=*Sum.MatchesReference/int_n257_b256")
expect(f"failed: exit status {status}, {cases}", status == 1 and [c[0] for c in cases.values()] == ["failed"])

status, cases = run("sample", test_07, "--lab_sample=0x5eed", "--gtest_filter=*Sum.MatchesReference/*")
left = {n: c for n, c in cases.items() if c[0] == "left_out"}
expect(f"sample: exit status {status}", status == 0)
expect("sample: nothing left out", bool(left))
expect("sample: a left-out case not said so",
       all(c[1] == "notrun" and re.match(r"lab: left out: a sample: .*seed 0x0*5eed", c[2]) for c in left.values()))
small = re.compile(r"_n(\d+)_b")
expect("sample: a small case left out",
       all(int(small.search(n).group(1)) > (1 << 17) for n in left if small.search(n)))
expect("sample: every larger case left out", any(c[0] == "passed" and small.search(n) and int(small.search(n).group(1)) > (1 << 17)
                                                for n, c in cases.items()))

ctest_file = os.path.join(work, "tests.cmake")
subprocess.run([test_07, f"--lab_ctest_file={ctest_file}"], check=True)
declared = re.findall(r"^add_test\(\[==\[(.*?)\]==\] \[==\[(.*?)\]==\] \[==\[--gtest_filter=(.*?)\]==\]", open(ctest_file).read(), re.M)
listing = subprocess.run([test_07, "--gtest_list_tests"], stdout=subprocess.PIPE, text=True, check=True).stdout
registered, suite = [], ""
for line in listing.splitlines():
    if not line.startswith(" "):
        suite = line.strip()
    else:
        registered.append(suite + line.strip().split("  #")[0])
expect(f"ctest: {len(declared)} tests declared, {len(registered)} registered, each one alone as ctest runs it",
       [d[0] for d in declared] == registered and all(d[0] == d[2] and os.path.samefile(d[1], test_07) for d in declared)
       and open(ctest_file).read().count("--lab_ctest)") == len(declared))

bad = subprocess.run([test_07, "--lab_no_such_option=1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
expect(f"a bad option: exit status {bad.returncode}: {bad.stderr}", bad.returncode == 2 and "unknown option" in bad.stderr)

for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print("the suites programs say what became of each test, in their results and their exit status")
