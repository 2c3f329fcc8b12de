#!/usr/bin/env bash
# The homework scheme on a GPU machine, from a clean tree:
#   1. export the student tree of every exercise (homework_export) and build it: every student
#      version must fail its `homework` tests by its verification (exit 1 with the program's FAIL
#      line; not a pass, a CUDA error, a crash or a timeout: junit_summary below);
#   2. grade a class of generated submissions with the tree's grader (grader/grade.py, with the
#      repository as --solution, so the time budgets are measured): the worked examples (every
#      exercise full points), the student stubs (no points, every test failed with its program's
#      FAIL line), every wrong version of homework/wrong/ (its exercise loses points, the others
#      keep theirs), and every adversarial submission of homework/adversarial/, means 1 to 4 of
#      issue 18 (its exercise gets no points, the others keep theirs; those the rules must refuse
#      are refused); each submission is the worked examples with one file replaced; the gradebook
#      must say all of that, and every JUnit file must be valid;
#   3. grade the adversarial parts in host code again with the region rules off: still no points
#      for those that leave early (the verdict comes from the tree's own program), and the process
#      one of them leaves running neither outlives its test nor rewrites the grading output
#      (where the grader is fully isolated: as root).
# Usage: bash homework/gpu_check_homework.sh [chapter ...]   (default: every chapter)
# Logs go to $OUT (default ./gpu-check-out); the summary is $OUT/homework.log, the gradebook
# $OUT/hw_gradebook.csv. HW_JOBS (default 4) submissions build at once, HW_GPU_JOBS (default 4)
# programs run at once; HW_TIMEOUT (default 60) caps each test (an adversarial kernel that never
# ends costs that much). HW_DEBUG=1 also builds the student tree in Debug and checks its stubs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
OUT=${OUT:-$root/gpu-check-out}
W=${HW_WORK:-$root/build-hw-gpu}
chapters=${*:-ch07_convolution ch10_reduction dynamic_parallelism atomics_appendix warp_aggregation}
log="$OUT/homework.log"
mkdir -p "$OUT"
rm -rf "$W"
mkdir -p "$W"
chmod 755 "$W"
: >"$log"
status=0
say() { echo "$*" | tee -a "$log"; }
fail() {
  say "FAILED: $*"
  status=1
}

say "homework check: $(date -u +'%Y-%m-%d %H:%M UTC'), chapters: $chapters"
if ! cmake -S . -B "$W/main" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCHAPTERS=${chapters// /;}" \
  "-DHOMEWORK_EXPORT_DIR=$W/student" >"$W/configure.log" 2>&1; then
  tail -20 "$W/configure.log" | tee -a "$log"
  fail "configure"
  exit 1
fi
cmake --build "$W/main" --target homework_export 2>&1 | tail -1 | tee -a "$log"
[ -f "$W/student/grader/grade.py" ] || { fail "homework_export"; exit 1; }

# Counts a JUnit file of CTest of student versions, where every test must fail its verification,
# which is precisely: ctest's "Exit Code" Failed with exit value 1 (common::kExitWrong), a line of
# the program's verification in its output (`FAIL <check>: ...` from common::check_close, or a
# program's own `FAIL ...:` line; not `FAIL: a CUDA device cannot be used`), and no `CUDA error at`
# line (common::cuda_check, which also exits 1). A pass, a skip, a timeout, a signal (crash,
# abort), another exit value, a CUDA error or an exit 1 without a FAIL line (require_device_bytes,
# for one) is reported by name. The exit values come from the Test.xml of `ctest -T Test` (JUnit
# has none), given as the third argument.
junit_summary() { # <junit> <what> <Test.xml>
  python3 - "$@" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
path, what = sys.argv[1:3]
exits = {}  # test name -> (ctest's Exit Code, Exit Value)
for test in ET.parse(sys.argv[3]).getroot().iter("Test"):
    name = test.findtext("Name")
    if name is None:  # the <TestList> entries
        continue
    values = {m.get("name"): m.findtext("Value") for m in test.iter("NamedMeasurement")}
    exits[name] = (values.get("Exit Code"), values.get("Exit Value"))
verdict = re.compile(r"^FAIL[ :](?!\s*a CUDA device cannot be used)", re.M)
cuda_error = re.compile(r"^CUDA error at .*$", re.M)
counts, bad = {"pass": 0, "fail": 0, "other": 0}, []
for case in ET.parse(path).getroot().iter("testcase"):
    name, state = case.get("name"), case.get("status")
    out = case.findtext("system-out") or ""
    code, value = exits.get(name, (None, None))
    if state == "run":
        counts["pass"] += 1
        bad.append(f"{name}: PASSED as a student version")
        continue
    if state != "fail":
        counts["other"] += 1
        bad.append(f"{name}: {state} (skipped: no GPU?)")
        continue
    error = cuda_error.search(out)
    if code is None:
        problem = "no exit status in Test.xml"
    elif code != "Failed":
        problem = f"{code} (a timeout or a signal, not a verdict)"
    elif value != "1":
        problem = f"exit value {value}, not 1"
    elif error:
        problem = f"a CUDA error, not its verification: {error.group(0)}"
    elif not verdict.search(out):
        problem = "exit 1 without a FAIL line from its verification"
    else:
        counts["fail"] += 1
        continue
    counts["other"] += 1
    bad.append(f"{name}: {problem}")
print(f"{what}: {sum(counts.values())} tests, {counts['pass']} passed, {counts['fail']} failed "
      f"their verification (exit 1, FAIL line), {counts['other']} failed otherwise, were "
      "skipped or timed out")
for line in bad:
    print("  " + line)
sys.exit(1 if bad or sum(counts.values()) == 0 else 0)
EOF
}
# The Test.xml that `ctest -T Test` wrote in a build folder.
test_xml() { # <build folder>
  echo "$1/Testing/$(head -1 "$1/Testing/TAG" 2>/dev/null)/Test.xml"
}
build_student() { # <build type> <folder>
  cmake -S "$W/student" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE="$1" && cmake --build "$2" -- -k 0
}
jobs=${HW_JOBS:-4}
gpu_jobs=${HW_GPU_JOBS:-4}
timeout=${HW_TIMEOUT:-60}
grade() { # <out folder> <grade.py arguments>...
  local out=$1
  shift
  python3 "$W/student/grader/grade.py" --out "$out" --work "$W/grading-work" --jobs "$jobs" \
    --gpu-jobs "$gpu_jobs" --timeout "$timeout" "$@"
}

# 1. The student tree's own tests: every stub fails with its FAIL line.
if build_student Release "$W/student-build" >"$W/student_build.log" 2>&1; then
  ctest --test-dir "$W/student-build" -T Test -L homework --timeout 120 -j 8 \
    --output-junit "$OUT/hw_student.xml" >"$OUT/hw_student.log" 2>&1
  junit_summary "$OUT/hw_student.xml" "student versions, label homework (each must fail)" \
    "$(test_xml "$W/student-build")" |
    tee -a "$log" || fail "a student version does not fail its homework test by its verification"
else
  fail "the student tree does not build (see $W/student_build.log)"
fi

# 2. The class: generated submissions, graded into one gradebook.
class="$W/class"
python3 - "$root" "$W/student" "$class" "$W/class.json" <<'EOF' | tee -a "$log"
import json, os, shutil, sys
root, tree, klass, expected_file = sys.argv[1:5]
sys.path.insert(0, os.path.join(root, "homework", "tests"))
import variants
with open(os.path.join(tree, "grader", "regions.json")) as f:
    marked = sorted(json.load(f)["files"])
os.makedirs(klass)
expected = {}
def submission(name, replace=None):
    folder = os.path.join(klass, name)
    os.makedirs(folder)
    for rel in marked:
        os.makedirs(os.path.join(folder, os.path.dirname(rel)), exist_ok=True)
        shutil.copy(os.path.join(root, rel), os.path.join(folder, rel))
    if replace:
        rel, text = replace
        with open(os.path.join(folder, rel), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return folder
submission("solutions")
expected["solutions"] = {"kind": "solutions"}
os.makedirs(os.path.join(klass, "stubs"))
expected["stubs"] = {"kind": "stubs"}
for kind in ("wrong", "adversarial"):
    base = os.path.join(root, "homework", kind)
    for chapter in sorted(os.listdir(base)):
        for name in sorted(os.listdir(os.path.join(base, chapter))):
            with open(os.path.join(base, chapter, name), encoding="utf-8") as f:
                variant = f.read()
            header, _, _ = variants.parse(variant)
            rel = header["file"]
            if rel not in marked:
                continue  # a chapter this check leaves out
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = variants.make(f.read(), variant)
            student = ("wrong-" if kind == "wrong" else "adv-") + name[:-len(".txt")]
            submission(student, (rel, text))
            expected[student] = {"kind": kind, "file": rel, "program": header["program"],
                                 "means": header.get("means"), "expect": header.get("expect")}
with open(expected_file, "w") as f:
    json.dump(expected, f, indent=1)
print("class: %d generated submissions (the worked examples, the stubs, %d wrong versions, %d "
      "adversarial)" % (len(expected), sum(e["kind"] == "wrong" for e in expected.values()),
                        sum(e["kind"] == "adversarial" for e in expected.values())))
EOF
grade "$OUT/hw_class" --class "$class" --solution "$root" >"$OUT/hw_class.log" 2>&1
grade_status=$?
say "grading the class: exit $grade_status (0 full points, 1 points lost, 3 not graded, 4 failed)"
grep -E "^(isolation|NOT GRADED|GRADING FAILED)" "$OUT/hw_class.log" | head -5 | tee -a "$log"
cp "$OUT/hw_class/gradebook.csv" "$OUT/hw_gradebook.csv" 2>/dev/null
if [ $grade_status -ne 1 ]; then
  fail "the class was not graded as a class with points lost (see hw_class.log)"
  tail -30 "$OUT/hw_class.log" | tee -a "$log"
fi
python3 - "$root" "$OUT/hw_class" "$W/class.json" "$W/main/homework_exercises.json" "$#" <<'EOF' |
import csv, json, os, sys
root, out, expected_file, manifest, chosen = sys.argv[1:6]
sys.path.insert(0, os.path.join(root, "homework", "tests"))
import junit_schema
with open(expected_file) as f:
    expected = json.load(f)
with open(manifest) as f:
    exercises = json.load(f)["exercises"]
problems = []
rows = {}
try:
    with open(os.path.join(out, "gradebook.csv")) as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
except OSError as e:
    problems.append("no gradebook: %s" % e)
if len(rows) < 20 and chosen == "0":  # every chapter: at least 20 (a few chapters make fewer)
    problems.append("the gradebook has %d submissions, fewer than 20" % len(rows))
counts = {}
for name, want in sorted(expected.items()):
    try:
        with open(os.path.join(out, name, "summary.json")) as f:
            got = json.load(f)
        with open(os.path.join(out, name, "junit.xml")) as f:
            invalid = junit_schema.validate(f.read())
    except OSError as e:
        problems.append("%s: not graded (%s)" % (name, e))
        continue
    if invalid:
        problems.append("%s: junit.xml not valid: %s" % (name, invalid[:3]))
    if got["not_graded"]:
        problems.append("%s: not graded: %s" % (name, got["not_graded"]))
        continue
    hit = {e["name"] for e in exercises if want.get("file") in e["files"]}
    verdicts = {f["path"]: f["verdict"] for f in got["files"]}
    bad = []
    for ex, result in got["exercises"].items():
        points, most = result["points"], result["max"]
        if want["kind"] == "solutions" or (want["kind"] != "stubs" and ex not in hit):
            if points != most:
                bad.append("%s %g/%g, not full points (%s)" % (ex, points, most, result["note"] or
                           next((t["message"] for t in result["tests"] if t["status"] != "pass"), "")))
        elif want["kind"] == "stubs":
            notfail = [t["name"] for t in result["tests"]
                       if t["status"] != "fail" or not t["message"].startswith("FAIL")]
            if points != 0 or notfail:
                bad.append("%s %g points, tests without a FAIL line: %s" % (ex, points, notfail[:3]))
        elif want["kind"] == "wrong" and points >= most:
            bad.append("%s kept its %g points" % (ex, points))
        elif want["kind"] == "adversarial" and points != 0:
            bad.append("%s got %g points" % (ex, points))
    if want["kind"] == "adversarial":
        rejected = verdicts.get(want["file"], "").startswith("REJECTED")
        if rejected != (want["expect"] == "rejected"):
            bad.append("%s: %s, expected %s" % (want["file"], verdicts.get(want["file"]),
                                                want["expect"]))
    row = rows.get(name, {})
    how = ", ".join("%s %s/%s" % (ex, ("%g" % r["points"]), ("%g" % r["max"]))
                    for ex, r in got["exercises"].items() if ex in hit) or \
        "%s/%s" % (row.get("total"), row.get("max"))
    key = want["kind"] + (" means %s" % want["means"] if want.get("means") else "")
    counts[key] = counts.get(key, 0) + 1
    if bad:
        problems.append("%s: %s" % (name, "; ".join(bad)))
        print("  %-44s WRONG: %s" % (name, "; ".join(bad)))
    else:
        why = ""
        if want["kind"] == "adversarial":
            why = verdicts.get(want["file"]) if want["expect"] == "rejected" else \
                next((r["note"] or next((t["message"] for t in r["tests"] if t["status"] != "pass"), "")
                      for ex, r in got["exercises"].items() if ex in hit), "")
        print("  %-44s as expected: %s%s" % (name, how, ("; " + why[:150]) if why else ""))
print("gradebook of %d submissions: %s" % (len(rows), ", ".join("%d %s" % (n, k) for k, n in
                                                               sorted(counts.items()))))
for p in problems:
    print("  PROBLEM: " + p)
sys.exit(1 if problems else 0)
EOF
  tee -a "$log" || fail "the gradebook of the class is not what it must be"

# 3. The host parts' attacks with the region rules off: the verifier, the sandbox. Each must
# compile, or the attack is not tried (help_exit is left out: the flag parser it calls is not in
# scope in the part it replaces, so only the rules can meet it; `exit` ends the run the same way).
loose="$W/loose"
mkdir -p "$loose"
for name in exit builtin_exit asm_exit main destructor spawn; do
  for d in "$class"/adv-*."$name"; do
    [ -d "$d" ] && cp -r "$d" "$loose/"
  done
done
rm -f /tmp/homework-adversarial-spawn-alive
if [ -n "$(ls "$loose")" ]; then
  grade "$OUT/hw_no_rules" --class "$loose" --no-region-rules >"$OUT/hw_no_rules.log" 2>&1
  say "grading the host-code attacks with the region rules off: exit $?"
  say "  (waiting 40 s: the process one of them leaves running would act after 30 s)"
  sleep 40
  python3 - "$OUT/hw_no_rules" <<'EOF' | tee -a "$log" || fail "the host-code attacks, without the region rules"
import csv, json, os, sys
out = sys.argv[1]
problems = []
with open(os.path.join(out, "summary.txt")) as f:
    isolated = "NOT FULLY ISOLATED" not in f.read()
with open(os.path.join(out, "gradebook.csv")) as f:
    text = f.read()
rows = {row["student"]: row for row in csv.DictReader(text.splitlines())}
for name, row in sorted(rows.items()):
    with open(os.path.join(out, name, "summary.json")) as f:
        got = json.load(f)
    hit = [ex for ex in got["exercises"] if ex in name]
    points = sum(got["exercises"][ex]["points"] for ex in hit)
    first = next((t["message"] for ex in hit for t in got["exercises"][ex]["tests"]
                  if t["status"] != "pass"), "")
    most = sum(got["exercises"][ex]["max"] for ex in hit)
    if "does not compile" in first:
        problems.append("%s: does not compile without the region rules, so it was not tried: %s"
                        % (name, first[:120]))
    elif name.endswith(".spawn"):
        if points != most:
            problems.append("%s: %g/%g points: the answer it gives with its process is right"
                            % (name, points, most))
        print("  %-40s %g/%g points (the right answer; what it leaves running is checked below)"
              % (name, points, most))
    elif points != 0:
        problems.append("%s: %g points without the region rules" % (name, points))
    else:
        print("  %-40s no points without the region rules: %s" % (name, first[:120]))
alive = os.path.exists("/tmp/homework-adversarial-spawn-alive")
if "rewritten" in text:
    problems.append("the gradebook was rewritten by a process a test left running")
if isolated:
    if alive:
        problems.append("a process a test left running outlived it, isolated as the grader was")
    else:
        print("  the process a test left running did not outlive it, and rewrote nothing")
else:
    print("  NOTE: the grader was not fully isolated here (not root?): %s"
          % ("the left-running process survived" if alive else "it did not survive"))
for p in problems:
    print("  PROBLEM: " + p)
sys.exit(1 if problems else 0)
EOF
fi

if [ "${HW_DEBUG:-0}" != 0 ]; then
  build_student Debug "$W/student-debug" >"$W/student_debug.log" 2>&1 ||
    fail "the Debug student tree does not build"
  ctest --test-dir "$W/student-debug" -T Test -L homework --timeout 120 -j 8 \
    --output-junit "$OUT/hw_student_debug.xml" >/dev/null 2>&1
  junit_summary "$OUT/hw_student_debug.xml" "student versions, Debug, label homework" \
    "$(test_xml "$W/student-debug")" | tee -a "$log" || status=1
fi

tar -C "$OUT" -czf "$OUT/hw_reports.tgz" --exclude=.work --exclude='files' hw_class hw_no_rules \
  2>/dev/null
say "homework check: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
