#!/usr/bin/env python3
"""The grader end to end, without a GPU (label homework_scheme):

    python3 homework/tests/test_grade.py --source <repository> --work <folder>

exports homework/tests/minirepo (one exercise, fake_sum, whose "kernel" is host code that stands
for one) and grades a class of generated submissions with grader/grade.py: the solution and its
stub, a wrong and a partly right answer, and the four means of issue 18, as far as a machine
without a GPU can decide them:
  1. line ends the checker must see: a lone CR that hides a `#define` or a `}`, a line splice;
  2. leaving early with success: the run ends with 0 before its checks (the verifier sees a short
     record), or prints its FAIL line and exits 0 (the verifier checks the outputs itself); a
     host part that calls exit() (refused by the host rule; with the rules off, the verifier);
  3. reaching outside the test: a process left running, inside and outside the run's process
     group, that writes into the grading output and the homework tree;
  4. the right answer by the wrong method: a run far over the time budget, a run wrong only at the
     timed run's size, a call of the helper that answers the exercise.
Then the same class without a GPU (CUDA_VISIBLE_DEVICES set to nothing): not graded, exit 3,
JUnit errors. Every output is checked: the gradebook, the reports, JUnit against the common
schema, Gradescope's results.json.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import junit_schema  # noqa: E402
import variants  # noqa: E402
from checks import check, finish, run  # noqa: E402

def splitmix_ints(n, seed, lo, hi):
    """common::random_ints, in Python: the input a student could compute from a public seed."""
    state, out, mask = seed, [], (1 << 64) - 1
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append(lo + (z ^ (z >> 31)) % (hi - lo + 1))
    return out


# The timed run's answer at the tree's default seed (1234): what kind 3 computes in advance.
PRECOMPUTED = sum(splitmix_ints(300000, 1234, 1, 100))


def variant(blocks):
    text = "program: fake_sum  file: fake/fake_sum.cpp\n"
    for k, lines in blocks.items():
        if isinstance(k, int):
            text += "// ==== region %d replace\n" % k
        else:
            text += "// ==== after line %s\n" % k
        text += "\n".join(lines) + "\n"
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    repo = os.path.join(work, "repo")
    shutil.copytree(os.path.join(HERE, "minirepo"), repo)
    for folder in ("cmake", "common"):
        shutil.copytree(os.path.join(args.source, folder), os.path.join(repo, folder),
                        ignore=shutil.ignore_patterns("__pycache__"))
    build = os.path.join(work, "build")
    subprocess.run(["cmake", "-S", repo, "-B", build], check=True, stdout=subprocess.DEVNULL)
    tree = os.path.join(work, "homework tree")  # a space in the path, on purpose
    subprocess.run([sys.executable, os.path.join(args.source, "homework", "export.py"),
                    "--manifest", os.path.join(build, "homework_exercises.json"), "--dest", tree],
                   check=True)
    grade = os.path.join(tree, "grader", "grade.py")
    out = os.path.join(work, "out")
    os.chmod(work, 0o755)
    with open(os.path.join(repo, "fake", "fake_sum.cpp"), encoding="utf-8") as f:
        solution = f.read()
    root = os.geteuid() == 0
    tree_file = os.path.join(tree, "fake", "fake_sum.cpp")
    with open(tree_file, "rb") as f:
        tree_before = f.read()

    solution_body = ["    long long s = 0;", "    for (int i = 0; i < n; ++i) s += in[i];",
                     "    *out = s;"]
    # Once per run, and not in the timed run (the time of its every launch is judged).
    shell = lambda script: ["    static bool started = false;",  # noqa: E731
                            '    if (!started && n != 300000) { started = true; std::system("%s"); }'
                            % script] + solution_body
    # A process left running is told by the token in its command line (a `sleep` of a length
    # nothing else uses): it goes on for a minute, writing into the grading output, unless stopped.
    orphan, orphan_setsid = "sleep 0.3%05d" % os.getpid(), "sleep 0.4%05d" % os.getpid()
    loop = "for i in %s; do %%s; echo evil >> '%s/gradebook.csv'; done" % (
        " ".join(str(k) for k in range(200)), out)
    # name: (variant blocks, expected points, expected text in the report)
    cases = {
        "solution": (None, 2, "fake_sum: 2/2 points"),
        "stub": ({}, 0, "FAIL fake sum: first mismatch at index 0: got 0"),
        "wrong": ({1: ["    *out = 1;"]}, 0, "FAIL fake sum"),
        # Wrong at one hidden size only (not the timed run's): 4 of the 5 tests' shares.
        "partial": ({1: ["    long long s = 0;", "    for (int i = 0; i < n; ++i) s += in[i];",
                         "    *out = n == 777 ? s - in[0] : s;"]}, 1.6, "fake_sum: 1.6/2 points"),
        "own_answer": ({1: ["    long long total = 0;  // mine { with a brace in a comment",
                            "    for (int i = n - 1; i >= 0; --i) { total += in[i]; }",
                            "    *out = total;"],
                        2: ["    return n / 256 + (n % 256 != 0);  // mine"]},
                       2, "fake_sum: 2/2 points"),
        # 1. line ends
        "cr_directive": ({1: ["    *out = 0;  // note<U+000D>#define kExitWrong kExitOk"]},
                         0, "a preprocessor directive (`#define kExitWrong kExitOk`)"),
        "cr_brace": ({1: ["    *out = 0; // note<U+000D>}", "int unrelated() {",
                          "    return 0;"]}, 0, "this `}` closes a brace opened outside"),
        "splice": ({1: solution_body + ["    // a comment that goes on \\  "]}, 0,
                   "a line continuation"),
        "unicode_line": ({1: solution_body + ["    // note<U+2028>#define kExitWrong kExitOk"]},
                         0, "the character U+2028"),
        # 2. leaving early with success
        "early_exit": ({1: ["    std::_Exit(0);"]}, 0,
                       "the run stopped before its checks were done (its run: exit 0)"),
        "exit_after_fail": ({1: ["    std::atexit([] { std::_Exit(0); });", "    *out = 0;"]},
                            0, "FAIL fake sum: first mismatch at index 0: got 0"),
        "host_exit": ({2: ["    return (std::exit(0), 1);"]}, 0,
                      "calls `std::exit`: this part may call only"),
        "host_builtin": ({2: ["    return __builtin_exit(0), 1;"]}, 0,
                         "calls `__builtin_exit`"),
        "host_main": ({2: ["    return main(0, nullptr);"]}, 0, "calls `main`"),
        "host_destructor": ({2: ["    struct Late { ~Late() { std::_Exit(0); } };",
                                 "    static Late late;", "    return 0;"]},
                            0, "expected `return` where it has `struct`"),
        "host_asm": ({2: ['    asm("mov $60, %eax; syscall");', "    return 1;"]}, 0,
                     "`asm`: no inline assembly"),
        # Issue 25, kind 1: a block-scope declaration of a C library function, then a shell.
        "host_declare": ({2: ['    extern "C" int system(const char*);',
                              '    return system("true") * 0 + (n + 255) / 256;']}, 0,
                         "expected `return` where it has `extern`"),
        "host_pointer": ({2: ["    return reinterpret_cast<long>(&std::system) * 0 + 1;"]}, 0,
                         "uses `reinterpret_cast`"),
        # Kind 2: what is timed must be what is checked. Slow on its first launch only (the
        # checked one), then fast from a cache: every launch is timed, the slowest judged.
        "slow_first": ({1: ["    static long long cached = -1;",
                            "    if (cached < 0) {",
                            "        const auto start = std::chrono::steady_clock::now();",
                            "        while (std::chrono::steady_clock::now() - start < "
                            "std::chrono::milliseconds(30)) {",
                            "        }"] + solution_body[:2] +
                           ["        cached = s;", "    }", "    *out = cached;"]}, 0,
                       "launch 1 of the timed run took"),
        # Right on the checked launch only: every timed launch is checked.
        "right_once": ({1: ["    static int calls = 0;", "    if (calls++ > 0) {",
                            "        *out = 7;", "        return;", "    }"] + solution_body},
                       0, "timed: its output is wrong"),
        # Kind 3: the timed run's input is not public: an answer computed in advance for the
        # tree's default seed at the timed run's size fails at the grading's own seed.
        "precomputed": ({1: ["    if (n == 300000) {", "        *out = %d;" % PRECOMPUTED,
                             "        return;", "    }"] + solution_body}, 0,
                        "the timed run, at the size that tells the method apart, failed"),
        # Kind 6: a run that says it has no GPU is not believed (the grader's probe decides).
        "says_no_gpu": ({1: ['    std::fprintf(stderr, "SKIP: no CUDA device\\n");',
                             "    std::_Exit(77);"]}, 0, "its run said it found no GPU"),
        # Kind 10: output that would fill a disk (kept to its head and tail), and a record past
        # its limit (a few times the worked example's).
        "flood": ({1: ["    static bool once = n == 300000;  // not in the timed run",
                       "    for (int k = 0; !once && k < 200000; ++k)",
                       '        std::fputs("flooding the output with a line of text to fill a '
                       'disk ......................................\\n", stdout);',
                       "    once = true;"] + solution_body}, 2, "fake_sum: 2/2 points"),
        "big_record": ({1: ["    static std::vector<long long> junk(1 << 23, 7);",
                            '    common::graded("device data", junk);'] + solution_body}, 0,
                       "its grading record grew past"),
        # 3. reaching outside the test: a process left in the run's group, one that left it, and
        # writes into the grading output and the homework tree (a right answer all the same)
        "outside": ({1: shell("(%s) & setsid sh -c \\\"%s\\\" & echo evil >> '%s/gradebook.csv'; "
                              "echo evil >> '%s'; touch '%s/evil'"
                              % (loop % orphan, loop % orphan_setsid, out, tree_file, out))},
                    2, "fake_sum: 2/2 points"),
        # 4. the wrong method
        "slow": ({1: ["    const auto start = std::chrono::steady_clock::now();",
                      "    while (std::chrono::steady_clock::now() - start < "
                      "std::chrono::milliseconds(3)) {", "    }"] + solution_body}, 0,
                 "over its budget"),
        # Right at the sizes the student sees, wrong only at the timed run's (as a one-thread
        # float loop goes past the summation tree's tolerance there): the exercise's points go.
        "wrong_at_size": ({1: ["    long long s = 0;",
                               "    for (int i = 0; i < n && i < 100000; ++i) s += in[i];",
                               "    *out = s;"]}, 0,
                          "the timed run, at the size that tells the method apart, failed"),
        "helper": ({1: ["    *out = answer_helper(in, n);"]}, 0,
                   "uses `answer_helper`, which answers this exercise"),
        "changed": ({"int main(int argc, char** argv) {": ["    return 0;"]}, 0,
                    "the lines outside the parts you write changed"),
    }
    klass = os.path.join(work, "class")
    for name, (blocks, _, _) in cases.items():
        folder = os.path.join(klass, name)
        os.makedirs(folder)
        if blocks is None:
            shutil.copy(os.path.join(repo, "fake", "fake_sum.cpp"), folder)
        elif blocks:
            with open(os.path.join(folder, "fake_sum.cpp"), "w", encoding="utf-8",
                      newline="") as f:
                f.write(variants.make(solution, variant(blocks)))
    # A submission as a whole homework tree (the file at its path), with a build folder in it.
    shutil.copytree(tree, os.path.join(klass, "as_tree"), ignore=shutil.ignore_patterns("grader"))
    shutil.copy(os.path.join(repo, "fake", "fake_sum.cpp"),
                os.path.join(klass, "as_tree", "fake", "fake_sum.cpp"))
    cases["as_tree"] = (None, 2, "taken from fake/fake_sum.cpp")
    # Kind 4: links hand in someone else's files: the whole folder, a folder on the way, the
    # file itself. Only the submission's own regular files count.
    worked = os.path.join(repo, "fake")
    os.symlink(worked, os.path.join(klass, "link_folder"))
    cases["link_folder"] = (None, 0, "the submission's folder is a link")
    os.makedirs(os.path.join(klass, "link_inside"))
    os.symlink(worked, os.path.join(klass, "link_inside", "fake"))
    cases["link_inside"] = (None, 0, "is a link, or lies behind one")
    os.makedirs(os.path.join(klass, "link_file"))
    os.symlink(os.path.join(worked, "fake_sum.cpp"),
               os.path.join(klass, "link_file", "fake_sum.cpp"))
    cases["link_file"] = (None, 0, "is a link, or lies behind one")

    done = subprocess.run([sys.executable, grade, "--class", klass, "--solution", repo,
                           "--out", out, "--jobs", "2"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, encoding="utf-8", errors="replace")
    print(done.stdout)
    finished = time.time()
    check(done.returncode == 1, "a class with points lost exits 1 (got %d)" % done.returncode)
    with open(os.path.join(out, "gradebook.csv"), encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    with open(os.path.join(out, "summary.txt"), encoding="utf-8") as f:
        summary = f.read()
    isolated = "NOT FULLY ISOLATED" not in summary
    for name, (_, points, text) in cases.items():
        row = rows.get(name)
        check(row is not None, "%s: a row in the gradebook" % name)
        if row is None:
            continue
        check(float(row["fake_sum"]) == points and float(row["total"]) == points and
              row["max"] == "2", "%s: %s points, gradebook says %s" % (name, points, row))
        with open(os.path.join(out, name, "report.txt"), encoding="utf-8") as f:
            report = f.read()
        check(text in report, "%s: the report says `%s`:\n%s" % (name, text, report))
        check_formats(os.path.join(out, name), name, points)
        if isolated:
            check(row["verdict"] in ("full points", "points lost"), "%s: verdict %s" % (
                name, row["verdict"]))
        else:
            check(row["verdict"].endswith("NOT FULLY ISOLATED") and
                  "NOT FULLY ISOLATED" in report, "%s: says the isolation was partial" % name)

    # 3. Nothing the runs started is still alive, nor wrote where grading writes.
    time.sleep(max(0.0, finished + 2.0 - time.time()))
    check(not running(orphan), "a process left in the run's group was stopped with the run")
    if root and isolated:
        check(not running(orphan_setsid), "a process that left its group was stopped too "
                                          "(PID namespace)")
    else:
        check("NOT FULLY ISOLATED" in summary and "PID namespace" in summary,
              "without a PID namespace the summary says that a process could outlive its test")
    for token in (orphan, orphan_setsid):  # leave nothing behind, whatever the verdict
        for pid in running(token):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    if root and isolated:
        with open(os.path.join(out, "gradebook.csv"), encoding="utf-8") as f:
            check("evil" not in f.read(), "the gradebook is not writable by student code")
        check(not os.path.exists(os.path.join(out, "evil")),
              "the grading output is not writable by student code")
        with open(tree_file, "rb") as f:
            check(f.read() == tree_before, "the homework tree is not writable by student code")
    with open(tree_file, "wb") as f:  # a run without root could write it: restore
        f.write(tree_before)

    # The verifier's side alone: with the region rules off, what they would have refused still
    # gets no points, since the verdict comes from the program as handed out.
    loose = os.path.join(work, "loose")
    os.makedirs(loose)
    for name in ("host_exit", "cr_directive"):
        shutil.copytree(os.path.join(klass, name), os.path.join(loose, name))
    out2 = os.path.join(work, "out-no-rules")
    done = subprocess.run([sys.executable, grade, "--class", loose, "--out", out2,
                           "--no-region-rules", "--work", os.path.join(out, ".work")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, encoding="utf-8", errors="replace")
    print(done.stdout)
    with open(os.path.join(out2, "gradebook.csv"), encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    for name, text in (("host_exit", "stopped before its checks were done (its run: exit 0)"),
                       ("cr_directive", "FAIL fake sum")):
        check(name in rows and rows[name]["total"] == "0",
              "%s without the region rules: no points (%s)" % (name, rows.get(name)))
        with open(os.path.join(out2, name, "report.txt"), encoding="utf-8") as f:
            report = f.read()
        check(text in report, "%s without the region rules: `%s` in\n%s" % (name, text, report))

    # No GPU: not graded, its own exit status, JUnit errors, no Gradescope score.
    nogpu = os.path.join(work, "nogpu")
    os.makedirs(nogpu)
    for name in ("solution", "stub", "host_exit"):
        shutil.copytree(os.path.join(klass, name), os.path.join(nogpu, name))
    out3 = os.path.join(work, "out-no-gpu")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, grade, "--class", nogpu, "--out", out3,
                           "--solution", repo, "--work", os.path.join(out, ".work")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, encoding="utf-8", errors="replace", env=env)
    print(done.stdout)
    check(done.returncode == 3, "no GPU: exit 3 (got %d)" % done.returncode)
    check("NOT GRADED: no usable GPU (SKIP: no CUDA device)" in done.stdout,
          "no GPU: says why")
    with open(os.path.join(out3, "gradebook.csv"), encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    for name in ("solution", "stub", "host_exit"):
        row = rows.get(name, {})
        check(row.get("verdict", "").startswith("not graded: no usable GPU") and
              row.get("total") == "" and row.get("fake_sum") == "",
              "no GPU: %s not graded in the gradebook (%s)" % (name, row))
        check(not os.path.exists(os.path.join(out3, name, "results.json")),
              "no GPU: no Gradescope score for %s" % name)
        with open(os.path.join(out3, name, "junit.xml"), encoding="utf-8") as f:
            xml = f.read()
        problems = junit_schema.validate(xml)
        check(not problems, "no GPU: %s junit.xml valid: %s" % (name, problems))
        counts = junit_schema.counts(xml)
        if name == "host_exit":  # rejected: the rules decide that without a GPU
            check(counts["failures"] == counts["tests"] == 5 and counts["errors"] == 0,
                  "no GPU: a rejected file's tests are failures: %s" % counts)
        else:
            check(counts["errors"] == counts["tests"] == 5 and counts["failures"] == 0,
                  "no GPU: every test of %s is an error, none a failure or a pass: %s"
                  % (name, counts))
    with open(os.path.join(out3, "host_exit", "report.txt"), encoding="utf-8") as f:
        check("REJECTED" in f.read(), "no GPU: the region rules still report a rejected file")

    return finish("grader end to end (%s)" %
                  ("as root, isolated" if root and isolated else "not fully isolated"))


def running(token):
    """The processes alive now (any user, any PID namespace) whose command line holds `token`."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if token.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
    return found


def check_formats(folder, name, points):
    with open(os.path.join(folder, "junit.xml"), encoding="utf-8") as f:
        xml = f.read()
    problems = junit_schema.validate(xml)
    check(not problems, "%s: junit.xml is valid against the common JUnit schema: %s"
          % (name, problems))
    counts = junit_schema.counts(xml)
    check(counts["tests"] == 5 and counts["errors"] == 0 and
          (counts["failures"] == 0) == (points == 2),
          "%s: junit counts %s" % (name, counts))
    with open(os.path.join(folder, "results.json"), encoding="utf-8") as f:
        gs = json.load(f)
    check(abs(gs["score"] - points) < 1e-6, "%s: Gradescope score %s" % (name, gs["score"]))
    check(len(gs["tests"]) == 5 and
          abs(sum(t["score"] for t in gs["tests"]) - points) < 1e-4 and
          abs(sum(t["max_score"] for t in gs["tests"]) - 2) < 1e-4,
          "%s: Gradescope tests share the exercise's 2 points" % name)
    for t in gs["tests"]:
        check(set(t) >= {"name", "score", "max_score", "output", "visibility"},
              "%s: Gradescope test fields %s" % (name, sorted(t)))
        hidden = not t["name"].endswith("fake/fake_sum")
        check(t["visibility"] == ("after_due_date" if hidden else "visible"),
              "%s: %s visibility %s" % (name, t["name"], t["visibility"]))
    with open(os.path.join(folder, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    check(abs(summary["total"] - points) < 1e-9, "%s: summary.json total" % name)


if __name__ == "__main__":
    run(main)
