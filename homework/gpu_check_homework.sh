#!/usr/bin/env bash
# The homework scheme on a GPU machine, from a clean tree:
#   1. export the student tree of every exercise (homework_export) and build it: every student
#      version must fail its `homework` tests by its verification (exit 1 with the program's FAIL
#      line; not a pass, a CUDA error, a crash or a timeout: junit_summary below);
#   2. grade the worked examples' own files as a submission (the grading command, which builds a
#      clean tree with them and runs `homework` and `hidden` with another seed): all must pass;
#   3. grade the deliberately wrong versions in homework/wrong/ (no-op, zero fill, copy of the
#      input, last partial tile or block dropped): each must fail.
# Usage: bash homework/gpu_check_homework.sh [chapter ...]   (default: every chapter)
# Logs and JUnit files go to $OUT (default ./gpu-check-out); the summary is $OUT/homework.log.
# HW_DEBUG=1 also builds the student tree and grades the solutions in Debug; HW_DEBUG=only does
# only that (after the export).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${OUT:-$root/gpu-check-out}
W=${HW_WORK:-$root/build-hw-gpu}
chapters=${*:-ch07_convolution ch10_reduction dynamic_parallelism atomics_appendix warp_aggregation}
log="$OUT/homework.log"
mkdir -p "$OUT"
rm -rf "$W"
mkdir -p "$W"
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
[ -f "$W/student/CMakeLists.txt" ] || { fail "homework_export"; exit 1; }

# Counts a JUnit file. expect=pass: every test passes. expect=fail (student versions): every test
# fails its verification, which is precisely: ctest's "Exit Code" Failed with exit value 1
# (common::kExitWrong), a line of the program's verification in its output (`FAIL <check>: ...`
# from common::check_close, or a program's own `FAIL ...:` line; not `FAIL: a CUDA device cannot
# be used`), and no `CUDA error at` line (common::cuda_check, which also exits 1). A pass, a skip,
# a timeout, a signal (crash, abort), another exit value, a CUDA error or an exit 1 without a FAIL
# line (require_device_bytes, for one) is reported by name. The exit values come from the
# Test.xml of `ctest -T Test` (JUnit has none), given as the fourth argument.
junit_summary() { # <junit> <fail|pass> <what> [Test.xml]
  python3 - "$@" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
path, expect, what = sys.argv[1:4]
exits = {}  # test name -> (ctest's Exit Code, Exit Value)
if len(sys.argv) > 4:
    for test in ET.parse(sys.argv[4]).getroot().iter("Test"):
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
        if expect == "fail":
            bad.append(f"{name}: PASSED as a student version")
        continue
    if state != "fail":
        counts["other"] += 1
        bad.append(f"{name}: {state} (skipped: no GPU?)")
        continue
    if expect == "pass":
        counts["fail"] += 1
        bad.append(f"{name}: failed")
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
if expect == "fail":
    print(f"{what}: {sum(counts.values())} tests, {counts['pass']} passed, {counts['fail']} failed "
          f"their verification (exit 1, FAIL line), {counts['other']} failed otherwise, were "
          "skipped or timed out")
else:
    print(f"{what}: {sum(counts.values())} tests, {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['other']} not run or skipped")
for line in bad:
    print("  " + line)
sys.exit(1 if bad or sum(counts.values()) == 0 else 0)
EOF
}
# The Test.xml that `ctest -T Test` wrote in a build folder.
test_xml() { # <build folder>
  echo "$1/Testing/$(head -1 "$1/Testing/TAG" 2>/dev/null)/Test.xml"
}

# The student tree's build, and the solutions' grading (its own clean copy), side by side.
release=1
[ "${HW_DEBUG:-0}" = only ] && release=0
build_student() { # <build type> <folder>
  cmake -S "$W/student" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE="$1" &&
    cmake --build "$2" -- -k 0
}
grade() { # <submission> <out folder> [more -D arguments]
  local submission=$1 out=$2
  shift 2
  cmake -DSUBMISSION="$submission" -DOUT="$out" "$@" -P "$W/student/cmake/HomeworkGrade.cmake"
}
seed=${HW_SEED:-4242}
if [ $release = 1 ]; then
  build_student Release "$W/student-build" >"$W/student_build.log" 2>&1 &
  student_pid=$!
  grade "$root" "$W/solutions" -DHIDDEN_SEED="$seed" >"$OUT/hw_solutions.log" 2>&1
  solutions_status=$?
  wait $student_pid || fail "the student tree does not build (see $W/student_build.log)"

  ctest --test-dir "$W/student-build" -T Test -L homework --timeout 120 -j 8 \
    --output-junit "$OUT/hw_student.xml" >"$OUT/hw_student.log" 2>&1
  junit_summary "$OUT/hw_student.xml" fail "student versions, label homework (each must fail)" \
    "$(test_xml "$W/student-build")" |
    tee -a "$log" || fail "a student version does not fail its homework test by its verification"
  if [ $solutions_status = 0 ]; then
    say "solutions graded in the student tree (homework + hidden, seed $seed): accepted"
  else
    fail "solutions graded in the student tree (see hw_solutions.log)"
    grep -E "REJECTED|Error" "$OUT/hw_solutions.log" | head -20 | tee -a "$log"
  fi
  if [ -f "$W/solutions/junit.xml" ]; then
    cp "$W/solutions/junit.xml" "$OUT/hw_solutions.xml"
    junit_summary "$OUT/hw_solutions.xml" pass "solutions, labels homework and hidden" |
      tee -a "$log" || status=1
  fi

  # The wrong versions: each one file of a submission, graded on its own program only.
  pids=()
  names=()
  for variant in homework/wrong/*/*.txt; do
    [ -e "$variant" ] || continue
    chapter=$(basename "$(dirname "$variant")")
    case " $chapters " in *" $chapter "*) ;; *) continue ;; esac
    read -r _ program _ file < <(head -1 "$variant")
    [ -f "$W/student/$file" ] || continue
    name=$(basename "$variant" .txt)
    mkdir -p "$W/wrong/$name/submission/$(dirname "$file")"
    cmake -DSOLUTION="$root/$file" -DVARIANT="$root/$variant" \
      -DOUTPUT="$W/wrong/$name/submission/$file" -P homework/tests/MakeVariant.cmake
    grade "$W/wrong/$name/submission" "$W/wrong/$name/graded" -DPROGRAMS="$program" \
      >"$W/wrong/$name.log" 2>&1 &
    pids+=($!)
    names+=("$name")
  done
  for i in "${!pids[@]}"; do
    name=${names[$i]}
    if wait "${pids[$i]}"; then
      fail "wrong version $name PASSED"
    elif grep -q REJECTED "$W/wrong/$name/graded/grading.txt" 2>/dev/null ||
      [ ! -f "$W/wrong/$name/graded/junit.xml" ]; then
      fail "wrong version $name was not graded (see $name.log)"
      tail -5 "$W/wrong/$name.log" | tee -a "$log"
    else
      read -r failed tests < <(python3 -c "import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); print(r.get('failures'), r.get('tests'))" "$W/wrong/$name/graded/junit.xml")
      if [ "${failed:-0}" -gt 0 ]; then
        say "wrong version $name: fails as it must ($failed of $tests tests failed)"
      else
        fail "wrong version $name: no test failed ($tests tests; skipped?)"
      fi
    fi
  done
  tar -C "$W" -czf "$OUT/hw_wrong_logs.tgz" --exclude=build wrong 2>/dev/null
fi

if [ "${HW_DEBUG:-0}" != 0 ]; then
  build_student Debug "$W/student-debug" >"$W/student_debug.log" 2>&1 &
  student_pid=$!
  grade "$root" "$W/solutions-debug" -DBUILD_TYPE=Debug >"$OUT/hw_solutions_debug.log" 2>&1 ||
    fail "solutions in Debug (see hw_solutions_debug.log)"
  wait $student_pid || fail "the Debug student tree does not build"
  ctest --test-dir "$W/student-debug" -T Test -L homework --timeout 120 -j 8 \
    --output-junit "$OUT/hw_student_debug.xml" >/dev/null 2>&1
  junit_summary "$OUT/hw_student_debug.xml" fail "student versions, Debug, label homework" \
    "$(test_xml "$W/student-debug")" |
    tee -a "$log" || status=1
  if [ -f "$W/solutions-debug/junit.xml" ]; then
    junit_summary "$W/solutions-debug/junit.xml" pass "solutions, Debug, homework and hidden" |
      tee -a "$log" || status=1
  fi
fi

say "homework check: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
