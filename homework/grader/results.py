"""The grader's results and the formats it writes them in: a report per student, JUnit XML (one
suite per exercise, the attributes of the common JUnit schema only), Gradescope's results.json,
a summary.json and the gradebook CSV. Python 3 standard library only."""

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

# Characters XML 1.0 cannot hold: everything a program printed must lose them.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text, limit=8000):
    text = NOT_XML.sub("?", text)
    if len(text) > limit:
        text = text[:limit // 2] + "\n[...]\n" + text[-limit // 2:]
    return text


class TestResult:
    """One run of an exercise. status: "pass", "fail" or "error" (not graded: no usable GPU, or
    the grading machine failed, never the student's code)."""

    def __init__(self, name, label, status, message="", details="", seconds=0.0):
        self.name, self.label, self.status = name, label, status
        self.message, self.details, self.seconds = message, details, seconds

    def to_json(self):
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data):
        result = cls(data["name"], data["label"], data["status"])
        result.__dict__.update(data)
        return result


class ExerciseResult:
    def __init__(self, name, points, tests, note=""):
        self.name, self.max_points, self.tests, self.note = name, points, tests, note
        self.zero = False  # a rule took every point (a rejected file, the time budget)

    @property
    def graded(self):
        return not any(t.status == "error" for t in self.tests)

    @property
    def points(self):
        if self.zero or not self.tests or not self.graded:
            return 0.0
        passed = sum(1 for t in self.tests if t.status == "pass")
        return self.max_points * passed / len(self.tests)

    def test_points(self, test):
        share = self.max_points / len(self.tests) if self.tests else 0.0
        return share if test.status == "pass" and not self.zero and self.graded else 0.0


class StudentResult:
    def __init__(self, name, folder):
        self.name, self.folder = name, folder
        self.files = []  # (path in the tree, what happened to it)
        self.exercises = []
        self.isolation = ""  # empty when fully isolated
        self.not_graded = ""  # the reason, when no test could run

    @property
    def points(self):
        return sum(e.points for e in self.exercises)

    @property
    def max_points(self):
        return sum(e.max_points for e in self.exercises)

    def verdict(self):
        if self.not_graded:
            return "not graded: " + self.not_graded
        verdict = "full points" if self.points >= self.max_points - 1e-9 else "points lost"
        return verdict + ("; NOT FULLY ISOLATED" if self.isolation else "")


def fmt(points):
    return ("%.3f" % points).rstrip("0").rstrip(".") if points else "0"


def report(student):
    lines = ["student: %s (%s)" % (student.name, student.folder)]
    if student.not_graded:
        lines.append("NOT GRADED: %s" % student.not_graded)
    if student.isolation:
        lines.append(student.isolation)
    lines.append("files:")
    lines += ["  %s: %s" % (rel, what) for rel, what in student.files]
    lines.append("exercises:")
    for e in student.exercises:
        lines.append("  %s: %s/%s points%s" % (e.name, fmt(e.points), fmt(e.max_points),
                                               " (%s)" % e.note if e.note else ""))
        for t in e.tests:
            head = {"pass": "PASS", "fail": "FAIL", "error": "NOT GRADED"}[t.status]
            lines.append("    %-10s %s [%s]%s" % (head, t.name, t.label,
                                                  ": " + t.message if t.message else ""))
            if t.status != "pass" and t.details:
                lines += ["        " + line for line in t.details.rstrip().splitlines()[:40]]
    lines.append("total: %s/%s points; %s" % (fmt(student.points), fmt(student.max_points),
                                              student.verdict()))
    return "\n".join(lines) + "\n"


def junit(student):
    """JUnit XML: a `testsuites` root, a `testsuite` per exercise, a `testcase` per run; a
    failed run has a `failure`, a run that could not be graded an `error`. Only the attributes of
    the common schema (Jenkins' junit-10.xsd): tests, failures, errors, skipped (suites), time."""
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    total_time = 0.0
    for e in student.exercises:
        suite = ET.SubElement(root, "testsuite")
        counts = {"tests": len(e.tests), "failures": 0, "errors": 0}
        suite_time = 0.0
        for t in e.tests:
            case = ET.SubElement(suite, "testcase", name=t.name, classname=e.name,
                                 time="%.3f" % t.seconds)
            suite_time += t.seconds
            status = t.status
            message = t.message
            if status == "pass" and e.zero:
                status, message = "fail", e.note
            if status == "fail":
                counts["failures"] += 1
                node = ET.SubElement(case, "failure", message=clean(message, 1000), type="FAIL")
                node.text = clean(t.details or message)
            elif status == "error":
                counts["errors"] += 1
                node = ET.SubElement(case, "error", message=clean(message, 1000),
                                     type="NOT GRADED")
                node.text = clean(t.details or message)
        suite.set("name", e.name)
        for key in ("tests", "failures", "errors"):
            suite.set(key, str(counts[key]))
            totals[key] += counts[key]
        suite.set("skipped", "0")
        suite.set("time", "%.3f" % suite_time)
        total_time += suite_time
    root.set("name", student.name)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(totals[key]))
    root.set("time", "%.3f" % total_time)
    out = io.BytesIO()
    ET.ElementTree(root).write(out, encoding="UTF-8", xml_declaration=True)
    return out.getvalue().decode("utf-8") + "\n"


def gradescope(student):
    """Gradescope's results.json: a test per run, with its share of its exercise's points; the
    homework runs `visible`, the hidden and timed ones `after_due_date`."""
    tests = []
    for e in student.exercises:
        for t in e.tests:
            output = t.message if t.status == "pass" else (t.details or t.message)
            if e.zero and e.note:
                output = e.note + ("\n" + output if output else "")
            tests.append({
                "name": "%s: %s" % (e.name, t.name),
                "score": round(e.test_points(t), 6),
                "max_score": round(e.max_points / len(e.tests), 6),
                "status": "passed" if e.test_points(t) > 0 else "failed",
                "output": clean(output),
                "visibility": "visible" if t.label == "homework" else "after_due_date",
            })
    summary = ["%s: %s/%s" % (e.name, fmt(e.points), fmt(e.max_points)) for e in student.exercises]
    summary += ["%s: %s" % (rel, what) for rel, what in student.files]
    if student.isolation:
        summary.append(student.isolation)
    return {"score": round(student.points, 6), "output": clean("\n".join(summary)),
            "stdout_visibility": "hidden", "tests": tests}


def summary_json(student):
    return {
        "student": student.name,
        "folder": student.folder,
        "total": student.points,
        "max": student.max_points,
        "verdict": student.verdict(),
        "isolation": student.isolation,
        "not_graded": student.not_graded,
        "files": [{"path": rel, "verdict": what} for rel, what in student.files],
        "exercises": {e.name: {"points": e.points, "max": e.max_points, "note": e.note,
                               "tests": [t.to_json() for t in e.tests]}
                      for e in student.exercises},
    }


def gradebook(students, exercise_names):
    """The CSV: a row per student, the points of every exercise, the total, the most there is
    to get, and the verdict."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student"] + list(exercise_names) + ["total", "max", "verdict"])
    for s in students:
        points = {e.name: e for e in s.exercises}
        row = [s.name]
        for name in exercise_names:
            e = points.get(name)
            row.append("" if e is None or s.not_graded else fmt(e.points))
        row += ["" if s.not_graded else fmt(s.points), fmt(s.max_points), s.verdict()]
        writer.writerow(row)
    return out.getvalue()


def write_json(path, data):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
