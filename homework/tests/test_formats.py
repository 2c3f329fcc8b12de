#!/usr/bin/env python3
"""The grader's output formats on synthetic results (grader/results.py), without a GPU (label
homework_scheme): JUnit valid against the common schema with the counts right (a failed run a
failure, a run not graded an error, an exercise that a rule zeroed all failures), characters XML
cannot hold removed from what programs printed; Gradescope's results.json with each test's share
of its exercise's points, visible or after the due date; the gradebook CSV, names quoted;
points shared by the tests, partial and zeroed."""

import csv
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "grader"))
sys.path.insert(0, HERE)
import junit_schema  # noqa: E402
import results  # noqa: E402
from results import ExerciseResult, StudentResult, TestResult  # noqa: E402
from checks import check, finish, run  # noqa: E402

def student(name):
    s = StudentResult(name, "/submissions/" + name)
    s.files = [("ch/a.cu", "taken from a.cu")]
    s.exercises = [
        ExerciseResult("a", 3.0, [
            TestResult("ch/a", "homework", "pass", "", "", 0.5),
            TestResult("ch/a/n_1", "hidden", "fail", "FAIL a: first mismatch at index 0",
                       "FAIL a: first mismatch at index 0\x00\x1b[31m", 1.25),
            TestResult("ch/a/timed", "timed", "pass", "a 0.1 ms (budget 0.5)", "", 2.0)]),
        ExerciseResult("b", 1.0, [TestResult("ch/b", "homework", "pass", "", "", 1.0),
                                  TestResult("ch/b/timed", "timed", "fail", "over its budget")],
                       note="over its budget")]
    s.exercises[1].zero = True
    return s


def main():
    s = student("alice, the first")
    check(abs(s.exercises[0].points - 2.0) < 1e-12, "points: 2 of 3 tests pass: 2 of 3 points")
    check(s.exercises[1].points == 0.0, "points: an exercise a rule zeroed has none")
    check(abs(s.points - 2.0) < 1e-12 and s.max_points == 4.0, "points: total 2 of 4")
    xml = results.junit(s)
    check(not junit_schema.validate(xml), "junit: valid (%s)" % junit_schema.validate(xml))
    check(junit_schema.counts(xml) == {"tests": 5, "failures": 3, "errors": 0},
          "junit: 5 tests, 3 failures (one, and the zeroed exercise's two)")
    check("\x00" not in xml and "\x1b" not in xml, "junit: no character XML cannot hold")
    gs = results.gradescope(s)
    check(abs(gs["score"] - 2.0) < 1e-9, "gradescope: score 2")
    check([t["visibility"] for t in gs["tests"]] ==
          ["visible", "after_due_date", "after_due_date", "visible", "after_due_date"],
          "gradescope: homework runs visible, the others after the due date")
    check([round(t["max_score"], 4) for t in gs["tests"]] == [1.0, 1.0, 1.0, 0.5, 0.5] and
          [round(t["score"], 4) for t in gs["tests"]] == [1.0, 0.0, 1.0, 0.0, 0.0],
          "gradescope: each test's share of its exercise's points")
    json.dumps(gs)  # serialisable

    lost = StudentResult("bob", "/submissions/bob")
    lost.not_graded = "no usable GPU (SKIP: no CUDA device)"
    lost.exercises = [ExerciseResult("a", 3.0, [TestResult("ch/a", "homework", "error",
                                                           "not graded")])]
    xml = results.junit(lost)
    check(not junit_schema.validate(xml) and
          junit_schema.counts(xml) == {"tests": 1, "failures": 0, "errors": 1},
          "junit: a run not graded is an error, not a failure")
    check(lost.points == 0 and lost.verdict().startswith("not graded"), "not graded verdict")

    text = results.gradebook([s, lost], ["a", "b"])
    rows = list(csv.reader(io.StringIO(text)))
    check(rows[0] == ["student", "a", "b", "total", "max", "verdict"], "csv: header")
    check(rows[1] == ["alice, the first", "2", "0", "2", "4", "points lost"], "csv: %s" % rows[1])
    check(rows[2][:5] == ["bob", "", "", "", "3"] and rows[2][5].startswith("not graded: "),
          "csv: a submission not graded has no points, only the reason: %s" % rows[2])
    report = results.report(s)
    check("first mismatch at index 0" in report and "over its budget" in report,
          "report: the first mismatch and the rule that zeroed an exercise")
    return finish("formats")


if __name__ == "__main__":
    run(main)
