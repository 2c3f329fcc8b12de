#!/usr/bin/env python3
"""The export of every exercise of the build, checked without a GPU (label homework_scheme):

    python3 homework/tests/test_export.py --source <repository> --manifest
        <build>/homework_exercises.json --work <folder>
        [--build --generator Ninja --arch 90 --cuda-compiler ... --cxx-compiler ...]

Without --build: the student tree holds no mark and no STUB line, and for every region not the
line that only its solution has; the regions in host code are exactly the block counts of 10_13
and 10_15; the worked examples, graded in the tree with the rules of the parts and each
exercise's forbidden names, come back byte for byte; every wrong version (homework/wrong/) is
taken, and differs; every adversarial submission (homework/adversarial/) that the rules must
refuse is refused, and the others (which a GPU must fail) are taken; every exercise has its
homework runs, hidden runs, a seeded run and a timed run, and no homework run is a hidden one;
the GitHub Classroom workflow runs each exercise's homework tests with its points, and grades
nothing; every part is fenced; the chapters' READMEs and the glossary come with the exercises;
`grade.py --rules` passes the tree as handed out.
With --build: the tree configures and builds on its own (one architecture), its host tests pass,
and the exercises its own build registers are the same, run for run, as the repository's.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "grader"))
sys.path.insert(0, HERE)
import grade  # noqa: E402
import hwtext  # noqa: E402
import variants  # noqa: E402
from checks import check, finish, run  # noqa: E402

def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--generator", default="Ninja")
    parser.add_argument("--arch")
    parser.add_argument("--cuda-compiler")
    parser.add_argument("--cxx-compiler")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tree = os.path.join(work, "tree")
    only_file = os.path.join(work, "solution_lines.json")
    done = subprocess.run([sys.executable, os.path.join(args.source, "homework", "export.py"),
                           "--manifest", args.manifest, "--dest", tree, "--chapters", "",
                           "--programs", "", "--solution-lines", only_file])
    if done.returncode != 0:
        print("FAILED: homework_export")
        return 1
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    if args.build:
        return build(args, tree, manifest)

    # No mark anywhere a student reads code or text (the grader's own sources name the marks).
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != "grader"]
        for name in files:
            path = os.path.join(root, name)
            if name.endswith((".cu", ".cuh", ".h", ".hpp", ".cpp", ".md", ".txt", ".py", ".yml")):
                marks = [line for line in read(path).splitlines()
                         if "SOLUTION" in line or re.match(r"^[ \t]*// STUB:", line)]
                check(not marks, "%s: no mark left (%s)" % (os.path.relpath(path, tree), marks))
    # Per region, the line only its solution has.
    with open(only_file, encoding="utf-8") as f:
        only = json.load(f)
    for rel, regions in sorted(only.items()):
        shown = {hwtext.strip(line) for line in hwtext.split_lines(read(os.path.join(tree, rel)))}
        for r in regions:
            where = "%s:%d" % (rel, r["line"])
            check(r["only"] != "", "%s: a line of the region appears nowhere else" % where)
            check(r["only"] not in shown, "%s: the student version leaves `%s` out"
                  % (where, r["only"]))

    with open(os.path.join(tree, "grader", "regions.json"), encoding="utf-8") as f:
        regions = json.load(f)["files"]
    host = sorted("%s:%d" % (rel, k + 1) for rel, rs in regions.items()
                  for k, r in enumerate(rs) if r["kind"] == "host")
    check(host == ["ch10_reduction/10_13_segmented_sum.cu:2",
                   "ch10_reduction/10_15_coarsened_sum.cu:2"],
          "the regions in host code are the block counts of 10_13 and 10_15: %s" % host)

    exercises = manifest["exercises"]

    def forbid(rel):
        return sorted({n for e in exercises if rel in e["files"] for n in e["forbid"]})

    def splice(rel, text):
        return grade.splice(read(os.path.join(tree, rel)), regions[rel], text, True, forbid(rel))

    for rel in sorted(regions):
        solution = read(os.path.join(args.source, rel))
        text, problem = splice(rel, solution)
        check(problem is None and text == solution,
              "%s: the worked example, graded in the tree, comes back as it is (%s)"
              % (rel, problem))

    for folder, expect_all in (("wrong", "taken"), ("adversarial", None)):
        base = os.path.join(args.source, "homework", folder)
        for chapter in sorted(os.listdir(base)):
            for name in sorted(os.listdir(os.path.join(base, chapter))):
                variant = read(os.path.join(base, chapter, name))
                header, _, _ = variants.parse(variant)
                rel = header["file"]
                if rel not in regions:
                    continue
                solution = read(os.path.join(args.source, rel))
                submitted = variants.make(solution, variant)
                text, problem = splice(rel, submitted)
                expect = expect_all or ("rejected" if header.get("expect") == "rejected"
                                        else "taken")
                if expect == "taken":
                    check(problem is None and text != solution,
                          "%s/%s: taken, and not the worked example (%s)" % (folder, name,
                                                                              problem))
                else:
                    check(text is None, "%s/%s (means %s): refused: %s" % (
                        folder, name, header.get("means"), problem))

    # The runs: each exercise's homework runs, hidden ones, a seeded one, a timed one.
    for e in exercises:
        labels = [r["label"] for r in e["runs"]]
        homework = [r["args"] for r in e["runs"] if r["label"] == "homework"]
        hidden = [r["args"] + ["--seed"] * r["seeded"] for r in e["runs"]
                  if r["label"] != "homework"]
        check(labels.count("timed") == 1 and "hidden" in labels and homework and
              sum(r["seeded"] for r in e["runs"]) == 1,
              "%s: homework, hidden, seeded and timed runs (%s)" % (e["name"], labels))
        check(not any(args in hidden or "--seed" in args for args in homework),
              "%s: no homework run runs a hidden run's arguments" % e["name"])
        check(e["points"] > 0 and e["timeout"] > 0 and e["time_factor"] >= 1,
              "%s: points, time limit and budget" % e["name"])
    workflow = read(os.path.join(tree, ".github", "workflows", "classroom.yml"))
    for e in exercises:
        check("-L homework -R '^%s/%s(/|$)'" % (e["chapter"], e["name"]) in workflow and
              "max-score: %g\n" % e["points"] in workflow,
              "the Classroom workflow runs %s's homework tests for %g points"
              % (e["name"], e["points"]))
    check("runs-on: [self-hosted, gpu]" in workflow, "the workflow runs on a self-hosted GPU "
                                                      "runner")
    # The workflow is the student's to edit: it grades nothing, and says so.
    prose = re.sub(r"\n#\s*", " ", workflow)  # the comment's lines, unwrapped
    check("grade.py" not in workflow.split("name: Autograding", 1)[1] and
          "It proves nothing against a student" in prose and "never run it as root" in prose,
          "the Classroom workflow runs no grader, says what its score proves, and wants no root")
    # Each part is fenced; each chapter's lesson and the glossary come with the exercises.
    for rel in regions:
        text = read(os.path.join(tree, rel))
        check(text.count(hwtext.FENCE_BEGIN) == text.count(hwtext.FENCE_END) ==
              len(regions[rel]), "%s: every part between its two fences" % rel)
    for chapter in {e["chapter"] for e in exercises}:
        check(os.path.exists(os.path.join(tree, chapter, "README.md")),
              "the tree carries %s's README" % chapter)
    check(os.path.exists(os.path.join(tree, "GLOSSARY.md")), "the tree carries the glossary")
    # A lesson page a chapter's README links beside it (RESULTS.md, EXERCISES.md) comes with it.
    for chapter in {e["chapter"] for e in exercises}:
        readme = read(os.path.join(args.source, chapter, "README.md"))
        for page in set(re.findall(r"\]\(([A-Z_]+\.md)[#)]", readme)) - {"COPYING_KERNELS.md"}:
            check(os.path.exists(os.path.join(tree, chapter, page)),
                  "the tree carries %s/%s, which its README links" % (chapter, page))
    # The grading seed is drawn when grading: the tree's manifest gives the student's own.
    done = subprocess.run([sys.executable, os.path.join(tree, "grader", "grade.py"), "--rules",
                           tree], stdout=subprocess.PIPE, encoding="utf-8")
    check(done.returncode == 0 and "FAIL" not in done.stdout,
          "grade.py --rules: the tree as handed out keeps the rules (%s)" % done.stdout[-300:])
    readme = read(os.path.join(tree, "README.md"))
    for e in exercises:
        check("| `%s` |" % e["name"] in readme, "the student README lists %s" % e["name"])
    return finish("export")


def build(args, tree, manifest):
    build_dir = os.path.join(os.path.abspath(args.work), "build")
    configure = ["cmake", "-S", tree, "-B", build_dir, "-G", args.generator,
                 "-DCMAKE_BUILD_TYPE=Release"]
    for option, value in (("CMAKE_CUDA_ARCHITECTURES", args.arch),
                          ("CMAKE_CUDA_COMPILER", args.cuda_compiler),
                          ("CMAKE_CXX_COMPILER", args.cxx_compiler)):
        if value:
            configure.append("-D%s=%s" % (option, value))
    if subprocess.run(configure).returncode != 0 or \
            subprocess.run(["cmake", "--build", build_dir, "-j", "2"]).returncode != 0:
        print("FAILED: the student tree does not configure or build")
        return 1
    done = subprocess.run(["ctest", "--test-dir", build_dir, "-L", "host", "--output-on-failure"])
    check(done.returncode == 0, "the student tree's host tests pass")
    with open(os.path.join(build_dir, "homework_exercises.json"), encoding="utf-8") as f:
        own = json.load(f)
    mine = {e["name"]: e for e in own["exercises"]}
    for e in manifest["exercises"]:
        theirs = mine.get(e["name"])
        check(theirs is not None, "%s: an exercise of the student tree's build" % e["name"])
        if theirs is None:
            continue
        for key in ("runs", "points", "timeout", "time_factor", "forbid", "files",
                    "source"):
            check(theirs[key] == e[key], "%s: the student tree registers the same %s"
                  % (e["name"], key))
    done = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                          stdout=subprocess.PIPE, encoding="utf-8", errors="replace")
    names = {t["name"] for t in json.loads(done.stdout)["tests"]}
    for e in manifest["exercises"]:
        for r in e["runs"]:
            check(r["test"] in names, "%s: a CTest test of the student tree" % r["test"])
    return finish("export")


if __name__ == "__main__":
    run(main)
