#!/usr/bin/env python3
"""Kit test (Kit.JudgesAgree.Corpus): the two judges give the kit's corpus the same case verdicts.

For every corpus submission that a Kit.Grader.Corpus test graded (its report/grade.json), each
rung whose visible cases the grader judged is judged again the student's way: the file goes into
the suites (the build tree's judged_NN, built as ./lab check builds an edited file) run on the whole
rung, with LAB_CASES_SEED set to the grading's seed so that the suites draw the inputs
the grading drew. Every case that both judged must have the same verdict.

Left out, and said so: the entries that test the grader's sandbox ("integrity": "off", or "needs"
a limit): they attack the machine they run on, which the sandbox stops and ./lab check, running
a student's own code on their own machine, does not try to; and an entry for another backend
("backends"), which no Kit.Grader.Corpus test graded here. A rung the grader refused (its
screen, its integrity checks) ran no case there, so there is nothing to compare.

usage: judges_agree.py BUILD_TREE BACKEND KIT WORK GRADINGS...
  GRADINGS: folders holding the corpus's gradings (BUILD/grading/corpus of each grading tree).
  JUDGES_AGREE_ENTRIES="a b ...": these corpus entries only, each of which must have been graded
  (.ci/gpu agree: a few on a GPU, where the whole corpus takes longer than a device command may).
"""
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # (no __pycache__ in the kit's corpus folder)
import verdicts  # noqa: E402 (beside this file)

# Differences known and accounted for: the entry, and why its verdicts may differ, either way; each
# judge must still fail it somewhere.
KNOWN = {
    "cheat_caches_results": "it hands back an earlier launch's result when a launch has the same input address and "
                            "size, so whether a case gets a stale answer depends on what ran before it in the same "
                            "process: the grader's runner runs every visible case and the hidden ones, the suites their "
                            "own order (and on the CPU backend a sample). Each judge fails cases the other passes (on "
                            "the CPU backend the grader more, on an H200 the suites 3 to 5 more); both fail the submission.",
}

build, backend, kit, work, *gradings = sys.argv[1:]
os.makedirs(work, exist_ok=True)
summary = open(os.path.join(work, "summary.txt"), "w")  # what it prints, kept (.ci/gpu copies it)


corpus = os.path.join(kit, "grader", "corpus")


def say(line):
    print(line, flush=True)
    summary.write(line + "\n")


judged = verdicts.judged


def suites_verdicts(rung, source, seed, out):
    """The suites' verdict of each kernel case of `source` (rung `rung`): {key: status}, or the
    build's error when the file does not build."""
    target = f"judged_{rung}"
    place = os.path.join(build, "tests", "judged", f"{rung}.cu")
    with open(source, "rb") as f:
        wanted = f.read()
    have = open(place, "rb").read() if os.path.exists(place) else None
    if have != wanted:
        with open(place, "wb") as f:
            f.write(wanted)
    built = subprocess.run(["cmake", "--build", build, "--target", target], capture_output=True, text=True)
    if built.returncode != 0:
        return None, built.stdout[-3000:] + built.stderr[-2000:]
    exe = os.path.join(build, "bin", target)
    junit = os.path.join(out, f"{rung}.xml")
    env = dict(os.environ, LAB_CASES_SEED=seed, LAB_CASE_SECONDS="48", TMPDIR=out)
    command = [exe, "--gtest_color=no", f"--lab_junit={junit}"]
    if backend == "cpu":
        command += [f"--lab_sample={seed}"]  # the small cases and a sample of the larger (lab::cpu_sample), as ./lab run
    with open(os.path.join(out, f"{rung}.log"), "w") as log:
        subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    if not os.path.exists(junit):
        return None, f"{target} wrote no results ({os.path.join(out, rung + '.log')})"
    return verdicts.suites(junit), ""


entries = sorted(e for e in os.listdir(corpus) if os.path.isfile(os.path.join(corpus, e, "expect.json")))
chosen = os.environ.get("JUDGES_AGREE_ENTRIES", "").split()
for name in chosen:
    if name not in entries:
        sys.exit(f"judges_agree: JUDGES_AGREE_ENTRIES names {name}, which is not a corpus entry")
if chosen:
    entries = sorted(chosen)
left_out, ungraded, differ_total, problems = [], [], 0, []
compared_entries, compared_rungs, both_total, failed_total = 0, 0, 0, 0
for name in entries:
    expect = json.load(open(os.path.join(corpus, name, "expect.json")))
    # An entry for one backend only ("backends") is graded on that backend only.
    if expect.get("integrity") == "off" or expect.get("needs") or backend not in expect.get("backends", [backend]):
        left_out.append(name)
        continue
    grading = next((os.path.join(g, name) for g in gradings if os.path.isfile(os.path.join(g, name, "report", "grade.json"))), None)
    if grading is None:
        ungraded.append(name)
        continue
    grade = json.load(open(os.path.join(grading, "report", "grade.json")))
    seed = grade["seed"]
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    compared_entries += 1
    for r in grade["rungs"]:
        graded = verdicts.grader(r)
        if not any(judged(v) for v in graded.values()):
            continue  # not submitted, refused, or not built: no case ran
        source = os.path.join(grading, "submission", "exercises", f"{r['id']}.cu")
        suites, why = suites_verdicts(r["id"], source, seed, out)
        if suites is None:
            problems.append(f"{name} {r['id']}: the grader ran its cases, the suites could not: {why}")
            continue
        both = sorted(k for k in suites.keys() & graded.keys() if judged(suites[k]) and judged(graded[k]))
        differ = [k for k in both if suites[k] != graded[k]]
        failed = sum(1 for k in both if graded[k] == "failed")
        if name in KNOWN:
            # Either judge may fail a case the other passes; each must fail some.
            by_grader = sum(1 for k in differ if graded[k] == "failed")
            if differ:
                say(f"  {by_grader} failed by the grader alone and {len(differ) - by_grader} by the suites alone, "
                    f"as known: {KNOWN[name]}")
            differ = []
            for judge, seen in (("the suites", suites), ("the grader", graded)):
                if not any(seen[k] == "failed" for k in both):
                    problems.append(f"{name} {r['id']}: {judge} failed none of its cases")
        compared_rungs += 1
        both_total += len(both)
        failed_total += failed
        differ_total += len(differ)
        say(f"{name:52} {r['id']:20} {len(both):4} judged by both, {failed:4} failed, {len(differ)} differ")
        for k in differ[:10]:
            say(f"  DIFFERS {k}: the suites say {suites[k]}, the grader {graded[k]} "
                f"(seed {seed}; the suites' output: {os.path.join(out, r['id'] + '.log')})")
        if not both:
            problems.append(f"{name} {r['id']}: no case judged by both (the suites: {len(suites)}, the grader: {len(graded)})")

say(f"\n{compared_entries} corpus submissions, {compared_rungs} rungs: {both_total} cases judged by both judges, "
    f"{failed_total} of them failed, {differ_total} with different verdicts")
if left_out:
    say(f"left out (they test the grader's sandbox; ./lab check does not confine a student's own code): {', '.join(left_out)}")
for p in problems:
    say("PROBLEM: " + p)
if ungraded:
    say(f"FAIL: {len(ungraded)} corpus submissions have no grading to compare with (run the Kit.Grader.Corpus "
        f"tests first): {', '.join(ungraded)}")
# The comparison must have had something to find: most of the corpus, and failures among its cases.
# (Of chosen entries, each compared, and some of their cases failed.)
if differ_total or problems or ungraded or compared_entries < (len(chosen) - len(left_out) if chosen else 40) or \
        failed_total < (1 if chosen else 100):
    sys.exit(1)
say("the suites and the grader give every case they both judged the same verdict")
