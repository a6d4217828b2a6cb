"""Case verdicts of both judges, keyed alike, for the tests that hold them to the same verdict
(grader/corpus/judges_agree.py, tests/kit/judges_agree.sh): the suites' from a suites program's JUnit file,
the grader's from a grade.json rung."""
import re
import xml.etree.ElementTree as ET


def key(op, case):  # "LayerNorm" and "layer_norm" alike
    return re.sub(r"[^a-z0-9]", "", op.lower()) + "/" + case


# The checker's words for a case given up after earlier ones were stopped at a limit
# (judge::not_run_after_stops), as the suites print them.
GIVEN_UP = re.compile(r": not run: \d+ earlier cases were stopped at ")


def suites(junit):
    """{key: passed, failed, skipped or not run} of each kernel case in a suites program's JUnit file
    (--lab_junit). A case failed without running (given up after earlier cases were stopped at the
    time limit, which depends on the order the cases ran in) is "not run", as in grader()."""
    verdicts = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        m = re.match(r"Ex\d\d/([A-Za-z]+)\.MatchesReference/(.+)$", case.get("name"))
        if m:
            status = {"run": "passed", "fail": "failed"}.get(case.get("status"), "skipped")
            if status == "failed" and GIVEN_UP.search("".join(case.itertext())):
                status = "not run"
            verdicts[key(m.group(1), m.group(2))] = status
    return verdicts


def grader(rung):
    """{key: status} of each visible case of a grade.json rung. A case failed without running (no
    "seconds": given up after earlier cases were stopped at the time limit, which depends on the order
    the cases ran in) is "not run", no verdict on the code."""
    return {key(c["op"], c["name"]): c["status"] if "seconds" in c or c["status"] != "failed" else "not run"
            for c in rung.get("cases", []) if not c["hidden"]}


def judged(status):
    return status in ("passed", "failed")
