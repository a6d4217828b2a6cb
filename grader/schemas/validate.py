#!/usr/bin/env python3
"""Checks a lab-grade report folder against the grader's schemas (grader/schemas/).

    validate.py SCHEMAS REPORT_DIR [REPORT_DIR ...]

JSON reports against their JSON Schemas (Debian's python3-jsonschema), Autolab's last line,
the JUnit file as XML, and the gradebook as one CSV row under its header. Exit 0 when all hold;
else 1, naming each report and what is wrong with it.
"""
import csv
import json
import sys
import xml.etree.ElementTree as ElementTree

import jsonschema


def main(schemas, report):
    problems = []

    def check(name, document, schema):
        validator = jsonschema.Draft202012Validator(json.load(open(f"{schemas}/{schema}")))
        for error in validator.iter_errors(document):
            problems.append(f"{name}: {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}")

    check("results.json", json.load(open(f"{report}/results.json")), "gradescope.schema.json")
    check("prairielearn.json", json.load(open(f"{report}/prairielearn.json")), "prairielearn.schema.json")
    check("grade.json", json.load(open(f"{report}/grade.json")), "grade.schema.json")
    check("instructor/grade.json", json.load(open(f"{report}/instructor/grade.json")), "grade.schema.json")
    lines = open(f"{report}/autolab.txt").read().splitlines()
    check("autolab.txt (last line)", json.loads(lines[-1]), "autolab.schema.json")
    root = ElementTree.parse(f"{report}/junit.xml").getroot()
    if root.tag != "testsuites" or not root.findall("testsuite"):
        problems.append("junit.xml: not <testsuites> with <testsuite> elements")
    rows = list(csv.reader(open(f"{report}/gradebook.csv")))
    if len(rows) != 2 or len(rows[0]) != len(rows[1]):
        problems.append("gradebook.csv: not one row under a header of the same width")
    for problem in problems:
        print(problem)
    print(f"{report}: {'reports match their schemas' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(max(main(sys.argv[1], report) for report in sys.argv[2:]))
