#!/usr/bin/env bash
# The homework scheme on a GPU machine, from a clean tree, run from a folder of mode 700 (as a
# repository in root's home is: the grader must stage what the sandbox runs):
#   student  export the student tree of every exercise (homework_export) and build it: every
#            student version must fail its `homework` tests by its verification (exit 1 with the
#            program's FAIL line; not a pass, a CUDA error, a crash or a timeout: junit_summary);
#   class    grade a class of generated submissions with the tree's grader (grader/grade.py, with
#            the repository as --solution, so the time budgets are measured): the worked examples
#            (every exercise full points), the student stubs (no points, every test failed with
#            its program's FAIL line), every wrong version of homework/wrong/ (its exercise loses
#            points, the others keep theirs), every adversarial submission of
#            homework/adversarial/ (issue 18's means 1 to 4, and issue 25's kinds as means 5: its
#            exercise gets no points, the others keep theirs; those the rules must refuse are
#            refused), an answer computed in advance for the tree's default seed (made here from
#            the worked example's own record), and submissions that are links or hold links (no
#            points at all); the gradebook must say all of that, and every JUnit file must be
#            valid. Then a grader killed in the middle of a run: nothing it started may remain;
#   honest   a class of HW_HONEST (default 30) honest students whose files all differ (a comment
#            of their own in every part), graded in two shards with one seed and merged: every
#            student full points on every exercise; the seconds per (student, exercise) and the
#            projection for 200 students come from the shards' summaries.
# Usage: bash homework/gpu_check_homework.sh [step ...]   (default: student class honest; `export`
# makes the student tree without building it, for the other steps alone)
# HW_CHAPTERS (default every chapter) chooses the exercises. Logs go to $OUT (default
# ./gpu-check-out); the summary is $OUT/homework.log, the gradebook $OUT/hw_gradebook.csv. HW_JOBS
# submissions build at once (default the grader's), HW_GPU_JOBS programs run at once (default the
# grader's); HW_TIMEOUT (default 60) caps each test (an adversarial kernel that never ends costs
# that much). HW_DEBUG=1 also builds the student tree in Debug and checks its stubs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
OUT=${OUT:-$root/gpu-check-out}
P=${HW_WORK:-$root/build-hw-private} # mode 700: nothing in it is reachable by the sandbox's user
W=$P/work
chapters=${HW_CHAPTERS:-ch07_convolution ch10_reduction dynamic_parallelism atomics_appendix warp_aggregation}
steps=" ${*:-student class honest} "
want() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }
log="$OUT/homework.log"
mkdir -p "$OUT"
status=0
say() { echo "$*" | tee -a "$log"; }
fail() {
  say "FAILED: $*"
  status=1
}

if want student || want export; then
  rm -rf "$P"
  mkdir -p "$W"
  chmod 700 "$P"
  : >"$log"
  say "homework check: $(date -u +'%Y-%m-%d %H:%M UTC'), chapters: $chapters, in a folder of mode 700"
  if ! cmake -S . -B "$W/main" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCHAPTERS=${chapters// /;}" \
    "-DHOMEWORK_EXPORT_DIR=$W/student" >"$W/configure.log" 2>&1; then
    tail -20 "$W/configure.log" | tee -a "$log"
    fail "configure"
    exit 1
  fi
  cmake --build "$W/main" --target homework_export 2>&1 | tail -1 | tee -a "$log"
fi
[ -f "$W/student/grader/grade.py" ] || { fail "homework_export (run the step student first)"; exit 1; }

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
    if name in ("homework/rules", "homework/gpu"):  # the tree's rules, the machine's GPU: pass
        if state != "run":
            bad.append(f"{name}: {state}, where it must pass")
        continue
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
opt() { # the grader's own defaults unless HW_JOBS / HW_GPU_JOBS are set
  [ -n "${HW_JOBS:-}" ] && echo --jobs "$HW_JOBS"
  [ -n "${HW_GPU_JOBS:-}" ] && echo --gpu-jobs "$HW_GPU_JOBS"
}
timeout=${HW_TIMEOUT:-60}
grade() { # <out folder> <grade.py arguments>...
  local out=$1
  shift
  # shellcheck disable=SC2046
  python3 "$W/student/grader/grade.py" --out "$out" --work "$W/grading-work" $(opt) \
    --timeout "$timeout" "$@"
}

# 1. The student tree's own tests: every stub fails with its FAIL line (homework/rules and
# homework/gpu, which check the tree and the machine, pass).
if want student; then
  if build_student Release "$W/student-build" >"$W/student_build.log" 2>&1; then
    ctest --test-dir "$W/student-build" -T Test -L homework --timeout 120 -j 8 \
      --output-junit "$OUT/hw_student.xml" >"$OUT/hw_student.log" 2>&1
    junit_summary "$OUT/hw_student.xml" "student versions, label homework (each must fail)" \
      "$(test_xml "$W/student-build")" |
      tee -a "$log" || fail "a student version does not fail its homework test by its verification"
  else
    fail "the student tree does not build (see $W/student_build.log)"
  fi
fi

# 2. The class: generated submissions, graded into one gradebook.
class="$W/class"
if want class; then
  rm -rf "$class" "$OUT/hw_class"
  # Issue 25, kind 3: the timed run's answer computed in advance for the tree's default seed,
  # read from the worked example's own record of that run (common/grading.cpp's format).
  precomputed=""
  if cmake --build "$W/main" --target 10_13_segmented_sum >/dev/null 2>&1; then
    HOMEWORK_RECORD="$W/default-seed.record" "$W/main/bin/10_13_segmented_sum" \
      --n 67108875 --reps 1 --csv >/dev/null 2>&1
    precomputed=$W/default-seed.record
  fi
  python3 - "$root" "$W/student" "$class" "$W/class.json" "$precomputed" <<'EOF' | tee -a "$log"
import json, os, shutil, sys
root, tree, klass, expected_file, record = sys.argv[1:6]
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
# Issue 25, kind 4: links hand in someone else's files: the submission's folder itself, a
# chapter's folder inside it, one file. None of it counts.
os.symlink(root, os.path.join(klass, "links-folder"))
expected["links-folder"] = {"kind": "links"}
os.makedirs(os.path.join(klass, "links-inside"))
for chapter in sorted({rel.split("/")[0] for rel in marked}):
    os.symlink(os.path.join(root, chapter), os.path.join(klass, "links-inside", chapter))
expected["links-inside"] = {"kind": "links"}
os.makedirs(os.path.join(klass, "links-file"))
for rel in marked:
    os.symlink(os.path.join(root, rel), os.path.join(klass, "links-file", os.path.basename(rel)))
expected["links-file"] = {"kind": "links"}
# Issue 25, kind 3: the answers of the timed run of 10_13 for the tree's default seed, read from
# the worked example's record of that run (the first three values it read back: the integer sum,
# the max, the float sum), written into the kernel for that size.
rel = "ch10_reduction/10_13_segmented_sum.cu"
values = []
if record and os.path.exists(record) and rel in marked:
    import struct
    with open(record, "rb") as f:
        data = f.read()
    at = data.find(b"\n") + 1
    while 0 < at < len(data) and len(values) < 3:
        (size,) = struct.unpack_from("<I", data, at)
        label = data[at + 4:at + 4 + size].decode()
        at += 4 + size
        _, width, count = struct.unpack_from("<BIQ", data, at)
        at += 13
        if label == "device data":
            values.append(struct.unpack_from("<I", data, at)[0])  # the 4 bytes of the value
        at += width * count
if len(values) == 3:
    block = ["    if (n == 67108875u) {  // the timed run's size: its answers, computed before",
             "        if (blockIdx.x == 0 && threadIdx.x == 0) {",
             "            if (std::is_same<T, unsigned int>::value) {",
             "                *output = (T)%du;" % values[0],
             "            } else if (Op::identity() < T(0)) {",
             "                *output = (T)__uint_as_float(%du);" % values[1],
             "            } else {",
             "                *output = (T)__uint_as_float(%du);" % values[2],
             "            }", "        }", "        return;", "    }"]
    variant = ("program: 10_13_segmented_sum  file: %s  means: 5  expect: zero\n"
               "// ==== region 1 prepend\n%s\n" % (rel, "\n".join(block)))
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        text = variants.make(f.read(), variant)
    submission("adv-10_13_segmented_sum.precomputed", (rel, text))
    expected["adv-10_13_segmented_sum.precomputed"] = {
        "kind": "adversarial", "file": rel, "program": "10_13_segmented_sum", "means": "5",
        "expect": "zero"}
elif rel in marked:
    print("PROBLEM: no record of the worked example's timed run to compute answers from")
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
  grep -E "^graded [0-9]+ submission" "$OUT/hw_class/summary.txt" | tee -a "$log"
  cp "$OUT/hw_class/gradebook.csv" "$OUT/hw_gradebook.csv" 2>/dev/null
  if [ $grade_status -ne 1 ]; then
    fail "the class was not graded as a class with points lost (see hw_class.log)"
    tail -30 "$OUT/hw_class.log" | tee -a "$log"
  fi
  python3 - "$root" "$OUT/hw_class" "$W/class.json" "$W/main/homework_exercises.json" <<'EOF' |
import csv, json, os, sys
root, out, expected_file, manifest = sys.argv[1:5]
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
if len(rows) < 20 and len(exercises) == 19:  # every chapter: at least 20
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
    if want["kind"] == "links":  # every exercise
        hit = {e["name"] for e in exercises}
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
        elif want["kind"] in ("adversarial", "links") and points != 0:
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

  # Issue 25, kind 9: a grader killed (kill -9) while a run of its is on the GPU: nothing it
  # started may remain.
  hang=$(ls -d "$class"/adv-*.hang 2>/dev/null | head -1)
  if [ -n "$hang" ] && [ "$(id -u)" = 0 ]; then
    rm -rf "$W/killed" && mkdir -p "$W/killed" && cp -r "$hang" "$W/killed/"
    # (exec: $! is the grader itself, not a shell around it)
    (exec python3 "$W/student/grader/grade.py" --out "$OUT/hw_killed" --work "$W/grading-work" \
      --timeout "$timeout" --class "$W/killed" >"$OUT/hw_killed.log" 2>&1) &
    grader=$!
    # Wait for the hanging exercise's own program, not the grader's GPU probe (a process of the
    # same user that ends within a second): the kill must come while the run is on the GPU.
    exercise=$(basename "$hang")
    exercise=${exercise#adv-}
    exercise=${exercise%.*}
    running=0
    for _ in $(seq 1200); do
      running=$(pgrep -u nobody -f "$exercise" | wc -l)
      [ "$running" -gt 0 ] && break
      sleep 0.2
    done
    kill -9 $grader 2>/dev/null
    wait $grader 2>/dev/null
    sleep 3
    left=$(pgrep -u nobody | wc -l)
    say "a grader killed with $running process(es) of its runs on the GPU: $left left after it"
    [ "$running" -gt 0 ] && [ "$left" = 0 ] || fail "a killed grader left its runs behind (or none ran)"
  fi
fi

# 3. An honest class, every student's files their own: full points for all, graded in two shards
# with one seed and merged; the seconds per (student, exercise).
honest="$W/honest"
seed_file="$W/honest.seed"
if want honest || want honest0; then
  rm -rf "$honest" "$OUT"/hw_honest*
  python3 - "$root" "$W/student" "$honest" "${HW_HONEST:-30}" <<'EOF' | tee -a "$log"
import json, os, re, sys
root, tree, klass, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, os.path.join(root, "homework", "grader"))
import hwtext
with open(os.path.join(tree, "grader", "regions.json")) as f:
    marked = sorted(json.load(f)["files"])
for k in range(count):
    for rel in marked:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
        out = []
        for line in lines:
            out.append(line)
            begin = hwtext.BEGIN.match(line)
            if begin:  # a comment of this student's own in every part: every file differs
                out.append("%s// student %d's note: my own words in my own part" % (begin.group(1), k))
        path = os.path.join(klass, "student%02d" % k, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write("\n".join(out))
print("honest class: %d students, %d files each, every file different" % (count, len(marked)))
EOF
  python3 -c 'import secrets; print(secrets.randbelow(2**31 - 2) + 1)' >"$seed_file"
fi
honest_shard() { # <I> of 2
  grade "$OUT/hw_honest$1" --class "$honest" --solution "$root" --shard "$1/2" \
    --seed "$(cat "$seed_file")" >"$OUT/hw_honest$1.log" 2>&1
  say "honest class, shard $1/2: exit $? ($(grep -E '^graded ' "$OUT/hw_honest$1/summary.txt"))"
}
if want honest || want honest0; then honest_shard 0; fi
if want honest || want honest1; then
  honest_shard 1
  python3 "$W/student/grader/grade.py" --merge "$OUT/hw_honest0" "$OUT/hw_honest1" \
    --out "$OUT/hw_honest" >"$OUT/hw_honest_merge.log" 2>&1
  merged=$?
  python3 - "$OUT" "$merged" "${HW_HONEST:-30}" <<'EOF' | tee -a "$log" || fail "the honest class"
import csv, os, re, sys
out, merged, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
problems = []
if merged != 0:
    problems.append("the merged gradebook is not all full points (exit %d)" % merged)
with open(os.path.join(out, "hw_honest", "gradebook.csv")) as f:
    rows = list(csv.DictReader(f))
if len(rows) != count:
    problems.append("%d students in the merged gradebook, not %d" % (len(rows), count))
for row in rows:
    if not row["verdict"].startswith("full points"):
        problems.append("%s: %s/%s, %s" % (row["student"], row["total"], row["max"], row["verdict"]))
pairs = seconds = 0
for shard in ("hw_honest0", "hw_honest1"):
    with open(os.path.join(out, shard, "summary.txt")) as f:
        m = re.search(r"the class, after the worked examples: ([0-9.]+) s, ([0-9.]+) s per", f.read())
    if not m:
        problems.append("%s: no seconds in its summary" % shard)
        continue
    students = sum(1 for _ in open(os.path.join(out, shard, "gradebook.csv"))) - 1
    exercises = len(rows[0]) - 4 if rows else 0
    seconds += float(m.group(1))
    pairs += students * exercises
per = seconds / pairs if pairs else 0
print("honest class: %d students x %d exercises, all full points: %s; %.0f s in two shards, "
      "%.2f s per (student, exercise); 200 students on one machine: about %.0f min"
      % (len(rows), len(rows[0]) - 4 if rows else 0, "yes" if not problems else "NO", seconds, per,
         per * 200 * (len(rows[0]) - 4 if rows else 0) / 60))
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

tar -C "$OUT" -czf "$OUT/hw_reports.tgz" --exclude=.work --exclude='files' \
  $(cd "$OUT" && ls -d hw_class hw_honest 2>/dev/null) 2>/dev/null
say "homework check ($steps): $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
