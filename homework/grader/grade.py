#!/usr/bin/env python3
"""Grades homework submissions with the homework tree this file belongs to.

    python3 grader/grade.py [options] SUBMISSION...     each a student's folder (their homework
                                                        tree, or just the files they edit)
    python3 grader/grade.py [options] --class FOLDER    every subfolder of FOLDER is a student
    python3 grader/grade.py --passed OUT/STUDENT EXERCISE   exit 0 when that exercise got full
                                                        points (GitHub Classroom's steps)

What it does, per submission:
  1. takes from the submission only the files the students edit (at their path in the tree, at
     the submission's top, or anywhere in it if the name is unique; regular files only), and from
     those only the lines where the student writes: every other line must be the tree's own
     (blanks at either end aside). A region must keep the rules of hwtext.region_check; a file
     that breaks them is rejected with its line, and its exercises get no points;
  2. builds the exercises with those files (the clean parts are configured once per grading, in
     a few build trees that the submissions take turns in; identical files are built and run
     once);
  3. runs every test of every exercise (the `homework` runs, the `hidden` ones, a run with
     --seed, and the timed run) as the student's program with HOMEWORK_RECORD (common.h): it
     runs the student's kernels on the seeded input and records every value it reads back, in a
     sandbox (sandbox.py). Its exit status only tells a crash or a time-out apart;
  4. the verdict of each test comes from the same program built from the homework tree alone
     (never compiled with student code), run with HOMEWORK_REPLAY: it regenerates the input from
     the seed and checks the recorded outputs with the program's own checks. A missing, short or
     malformed record is a failure;
  5. holds the timed run's times to the exercise's budget: at most HOMEWORK_TIME_FACTOR (and,
     where set, at least HOMEWORK_TIME_FLOOR) times the worked example's own times, measured in
     the same grading (--solution). Outside the budget, or failed in any other way (a wrong
     answer at that size, a crash, its time limit), the timed run takes all the exercise's points.
Points: an exercise's HOMEWORK_POINTS, shared by its tests.

Outputs, in --out: gradebook.csv (student, points per exercise, total, max, verdict),
summary.txt, and per student a folder with report.txt (each failed test's first mismatch),
junit.xml, results.json (Gradescope), summary.json and files/ (what was compiled).

Exit status: 0 every submission graded with full points, 1 points lost, 2 usage error,
3 not graded (no usable GPU: the reason is printed), 4 the grading itself failed (the tree does
not build, or the worked examples do not pass under this grader).
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hwtext  # noqa: E402
import results  # noqa: E402
from results import ExerciseResult, StudentResult, TestResult  # noqa: E402
from sandbox import Sandbox, read_tail  # noqa: E402

EXIT_FULL, EXIT_LOST, EXIT_USAGE, EXIT_NOT_GRADED, EXIT_GRADING = 0, 1, 2, 3, 4
MAX_FILE = 1 << 20  # a submitted file larger than this is no source file
SLACK_MS = 0.02  # a budget's allowance for the timer's own noise on very short kernels
MARKER = ".homework-graded"
NO_DEVICE = "FAIL: a CUDA device cannot be used"
BASELINE = "worked-examples"  # the --solution's name in the logs


class GradingError(Exception):
    """The grading itself cannot go on (not a student's fault)."""


def say(*parts):
    with say.lock:
        print(*parts, flush=True)


say.lock = threading.Lock()


class RWLock:
    """Many shared holders (runs that may share the GPU) or one exclusive (a timed run)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.readers = 0
        self.writer = False
        self.waiting = 0  # exclusive holders waiting: new shared ones wait behind them

    def shared(self):
        return _Hold(self, False)

    def exclusive(self):
        return _Hold(self, True)


class _Hold:
    def __init__(self, lock, exclusive):
        self.lock, self.exclusive = lock, exclusive

    def __enter__(self):
        lock = self.lock
        with lock.cond:
            if self.exclusive:
                lock.waiting += 1
                lock.cond.wait_for(lambda: not lock.writer and lock.readers == 0)
                lock.waiting -= 1
                lock.writer = True
            else:
                lock.cond.wait_for(lambda: not lock.writer and lock.waiting == 0)
                lock.readers += 1

    def __exit__(self, *exc):
        with self.lock.cond:
            if self.exclusive:
                self.lock.writer = False
            else:
                self.lock.readers -= 1
            self.lock.cond.notify_all()


# ---------------------------------------------------------------------------------------------
# Taking a submission's lines

def find_submitted(folder, rel):
    """The submitted file for `rel`, or (None, why)."""
    candidates = [os.path.join(folder, rel), os.path.join(folder, os.path.basename(rel))]
    for path in candidates:
        if os.path.lexists(path):
            return path, ""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        if os.path.basename(rel) in files:
            found.append(os.path.join(root, os.path.basename(rel)))
    if len(found) == 1:
        return found[0], ""
    if found:
        return None, "not submitted: %d files are named %s (put yours at %s)" % (
            len(found), os.path.basename(rel), rel)
    return None, "not submitted"


def read_submitted(path):
    """The text of a submitted file, or (None, why): a regular file, no larger than MAX_FILE,
    UTF-8."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return None, "cannot be read (%s)" % e.strerror
    if not os.path.isfile(path) or os.path.islink(path):
        return None, "is not a regular file"
    if st.st_size > MAX_FILE:
        return None, "is larger than %d bytes" % MAX_FILE
    with open(path, "rb") as f:
        text = hwtext.decode(f.read())
    if text is None:
        return None, "is not UTF-8 text"
    return text, ""


def splice(template, regions, submitted, rules=True, forbid=()):
    """The graded file: the template's lines, and the submission's lines where the student
    writes. Returns (text, None) or (None, "line N: reason")."""
    t_lines = hwtext.split_lines(template)
    s_lines = hwtext.split_lines(submitted)

    def count(lines):
        last = 0
        for i, line in enumerate(lines, 1):
            if hwtext.strip(line):
                last = i
        return last

    t_count, s_count = count(t_lines), count(s_lines)
    t_strip = [hwtext.strip(line) for line in t_lines]
    s_strip = [hwtext.strip(line) for line in s_lines]
    # Fixed segments: [1, a1-1], [b1+1, a2-1], ..., [bn+1, t_count]; regions [ak, bk].
    firsts, lasts = [1], []
    for r in regions:
        lasts.append(r["first"] - 1)
        firsts.append(r["last"] + 1)
    lasts.append(t_count)

    def matches(first, last, at):
        """Whether template lines first..last equal submission lines from `at` on; else the
        first template line that differs."""
        for i in range(first, last + 1):
            j = at + i - first
            if j > s_count or t_strip[i - 1] != s_strip[j - 1]:
                return i
        return None

    out = []
    at = 1
    n = len(regions)
    for k in range(n + 1):
        first, last = firsts[k], lasts[k]
        length = max(0, last - first + 1)
        if k == 0:
            found, bad = 1, matches(first, last, 1)
        elif k == n:
            found = s_count - length + 1
            bad = matches(first, last, found) if found >= at else first
        else:
            bad = first
            for found in range(at, s_count - length + 2):
                if matches(first, last, found) is None:
                    bad = None
                    break
        if bad is not None:
            return None, "the lines outside the parts you write changed: line %d of the " \
                "exercise as handed out (`%s`) is not found unchanged" % (bad, t_strip[bad - 1])
        if k > 0:
            region = s_lines[at - 1:found - 1]
            r = regions[k - 1]
            if rules:
                problem = hwtext.region_check(region, at, r["kind"], forbid, r.get("allow", ()),
                                              r.get("calls", ()))
                if problem:
                    return None, "line %d: %s" % problem
            out += region
        out += t_lines[first - 1:last]
        at = found + length
    return "\n".join(out) + "\n", None


# ---------------------------------------------------------------------------------------------
# The grader

class Exercise:
    def __init__(self, data, marked):
        self.name = data["name"]
        self.points = float(data["points"])
        self.timeout = float(data["timeout"])
        self.factor = float(data["time_factor"])
        self.floor = float(data["time_floor"])
        self.forbid = list(data["forbid"])
        self.runs = data["runs"]
        self.source = data["source"]
        self.marked = marked  # every marked file the exercise compiles, its own and included


class Worker:
    """A build tree the submissions take turns in: a copy of the homework tree, configured
    once; a submission's files are written into it and only what changed is rebuilt."""

    def __init__(self, index, grader):
        self.src = os.path.join(grader.work, "tree-%d" % index)
        self.build = os.path.join(grader.work, "build-%d" % index)
        self.ready = False


class Grader:
    def __init__(self, tree, out, work, options):
        self.tree, self.out, self.work, self.options = tree, out, work, options
        self.seed = options.seed
        self.gpu = RWLock()
        self.gpu_slots = threading.Semaphore(max(1, options.gpu_jobs))
        self.cache = {}
        self.cache_lock = threading.Lock()
        self.baseline = {}  # exercise -> {(program, variant): ms}
        self.not_graded = ""
        self.sandbox = None
        with open(os.path.join(tree, "grader", "regions.json"), encoding="utf-8") as f:
            self.regions = json.load(f)["files"]
        # The tree must be the one handed out: its marked files as the export wrote them.
        try:
            exported = hwtext.read_export_record(tree)
        except OSError:
            raise GradingError("%s is not a homework tree as homework_export writes it (no "
                               ".homework-export)" % tree)
        self.templates = {}
        for rel in self.regions:
            with open(os.path.join(tree, rel), "rb") as f:
                data = f.read()
            if hwtext.sha256(data) != exported.get(rel):
                raise GradingError("%s has been edited since the tree was exported: grade with "
                                   "an unedited copy of the tree as handed out" % rel)
            self.templates[rel] = hwtext.decode(data)
        self.generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        jobs = max(1, options.jobs)
        # Two cores stay free of builds for the runs: a timed run's launches must not wait for
        # a CPU (its CUDA events would count the wait).
        self.build_jobs = max(1, ((os.cpu_count() or 2) - 2) // jobs)
        self.workers = queue.Queue()
        for i in range(jobs):
            self.workers.put(Worker(i, self))
        self.scratch = tempfile.mkdtemp(prefix="homework-runs-")
        os.chmod(self.scratch, 0o711)

    # ---- building ----

    def cmake(self, args, log, timeout=3600):
        with open(log, "ab") as f:
            f.write(("$ cmake %s\n" % " ".join(args)).encode())
            f.flush()
            try:
                done = subprocess.run(["cmake"] + args, stdout=f, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, timeout=timeout)
            except subprocess.TimeoutExpired:
                return False
        return done.returncode == 0

    def configure(self, src, build, log):
        args = ["-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release"] + self.generator + \
            list(self.options.cmake_arg)
        return self.cmake(args, log)

    def build_targets(self, build, names, log, parallel=None):
        """Builds the exercises' programs (a failure stops no other); returns the names built."""
        for name in names:
            try:
                os.remove(os.path.join(build, "bin", name))  # no earlier submission's program
            except FileNotFoundError:
                pass
        keep_going = ["--", "-k", "0"] if self.generator else ["--", "-k"]
        self.cmake(["--build", build, "--parallel", str(parallel or self.build_jobs), "--target"] +
                   list(names) + keep_going, log, timeout=self.options.build_timeout)
        return [name for name in names if os.path.isfile(os.path.join(build, "bin", name))]

    def copy_tree(self, dest):
        skip = {os.path.realpath(p) for p in (self.out, self.work)}

        def ignore(folder, names):
            return [n for n in names if n.startswith(("build", ".git", "graded")) or
                    n == "__pycache__" or os.path.realpath(os.path.join(folder, n)) in skip]

        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(self.tree, dest, ignore=ignore)

    def setup(self):
        os.makedirs(self.work, exist_ok=True)
        log = os.path.join(self.out, "build-clean.log")
        clean = os.path.join(self.work, "clean")
        say("configuring and building the homework tree as handed out (%s)" % clean)
        if not self.configure(self.tree, clean, log):
            raise GradingError("the homework tree does not configure (%s)" % log)
        with open(os.path.join(clean, "homework_exercises.json"), encoding="utf-8") as f:
            data = json.load(f)
        if self.seed is None:
            self.seed = data["hidden_seed"]
        chosen = [e for e in data["exercises"] if not self.options.programs or
                  e["name"] in self.options.programs]
        unknown = set(self.options.programs or ()) - {e["name"] for e in data["exercises"]}
        if unknown:
            raise GradingError("--programs: no exercise %s in this tree" % ", ".join(sorted(unknown)))
        self.exercises = [Exercise(e, self.marked_files(e)) for e in chosen]
        if self.options.timeout:
            for e in self.exercises:
                e.timeout = self.options.timeout
        built = self.build_targets(clean, [e.name for e in self.exercises], log, os.cpu_count())
        missing = [e.name for e in self.exercises if e.name not in built]
        if missing:
            raise GradingError("the homework tree as handed out does not build %s (%s)"
                               % (", ".join(missing), log))
        # The checking programs, where the sandbox's user can run them.
        self.clean_bin = os.path.join(self.scratch, "clean")
        os.makedirs(self.clean_bin)
        os.chmod(self.clean_bin, 0o755)
        for e in self.exercises:
            shutil.copy2(os.path.join(clean, "bin", e.name), os.path.join(self.clean_bin, e.name))
        self.sandbox = Sandbox(self.options.run_as, not self.options.no_pidns,
                               not self.options.no_user)
        self.probe()
        self.isolation = "" if self.sandbox.full() else self.sandbox.describe()
        say("isolation: %s" % self.sandbox.describe())

    def marked_files(self, data):
        """The marked files an exercise compiles: its own and those its sources include."""
        todo = [os.path.join(self.tree, p) for p in [data["source"]] + data["files"]]
        seen, marked = set(), []
        while todo:
            path = os.path.normpath(todo.pop())
            if path in seen or not os.path.isfile(path):
                continue
            seen.add(path)
            rel = os.path.relpath(path, self.tree)
            if rel in self.regions and rel not in marked:
                marked.append(rel)
            with open(path, "rb") as f:
                text = hwtext.decode(f.read()) or ""
            todo += [os.path.join(os.path.dirname(path), inc) for inc in hwtext.INCLUDE.findall(text)]
        return sorted(marked)

    def probe(self):
        """Whether a GPU can be used, by running the first exercise as handed out: first as the
        grader, then in the sandbox, which may lack what the GPU needs (a PID namespace, another
        user): then the sandbox is loosened as little as works, and the verdicts say so."""
        e = self.exercises[0]
        program = os.path.join(self.clean_bin, e.name)
        status, text = self.probe_once(program, e.runs[0]["args"], None)
        if status != "ok":
            self.not_graded = text
            say("NOT GRADED: %s" % text)
            return
        box = self.sandbox
        pidns, user = box.pidns, (box.user, box.uid, box.gid)
        tries = [(p, u) for u in (True, False) for p in (True, False)
                 if (p <= pidns) and (u <= (box.uid is not None))]
        for use_pidns, use_user in tries:
            box.pidns = use_pidns
            box.user, box.uid, box.gid = user if use_user else (None, None, None)
            status, text = self.probe_once(program, e.runs[0]["args"], box)
            if status == "ok":
                if pidns and not use_pidns:
                    box.notes.append("the GPU could not be used in a PID namespace")
                if user[1] is not None and not use_user:
                    box.notes.append("the GPU could not be used as user %s" % user[0])
                return
        self.not_graded = "the GPU can be used, but not by a program in the sandbox: %s" % text
        say("NOT GRADED: %s" % self.not_graded)

    def probe_once(self, program, args, sandbox):
        """("ok" or "no", why)."""
        rundir = tempfile.mkdtemp(dir=self.scratch)
        os.chmod(rundir, 0o711)
        out, err = os.path.join(rundir, "out"), os.path.join(rundir, "err")
        try:
            if sandbox is None:
                with open(out, "wb") as fo, open(err, "wb") as fe:
                    done = subprocess.run([program] + args, stdout=fo, stderr=fe,
                                          stdin=subprocess.DEVNULL, timeout=300)
                code = done.returncode
            else:
                result = sandbox.run([program] + args, rundir, sandbox.environment(rundir, {}),
                                     out, err, 300)
                code = result.returncode
            text = read_tail(out) + read_tail(err)
        except (OSError, subprocess.TimeoutExpired) as e:
            return "no", "the program as handed out could not be run: %s" % e
        finally:
            shutil.rmtree(rundir, ignore_errors=True)
        if code == 77:
            line = next((l for l in text.splitlines() if l.startswith("SKIP")), "exit 77")
            return "no", "no usable GPU (%s)" % line.strip()
        device = next((l for l in text.splitlines() if l.startswith(NO_DEVICE)), None)
        if device:
            return "no", "no usable GPU (%s)" % device.strip()
        if code not in (0, 1):
            return "no", "the program as handed out exited with %d: %s" % (
                code, text.strip().splitlines()[-1] if text.strip() else "")
        return "ok", ""

    # ---- one submission ----

    def take_files(self, student, folder):
        """Every marked file's graded text (the template where nothing usable was given), and
        the exercises that lose their points to a rejected file."""
        graded, rejected = {}, {}
        for rel in sorted(self.regions):
            graded[rel] = self.templates[rel]
            path, why = find_submitted(folder, rel)
            if path is None:
                student.files.append((rel, why))
                continue
            text, why = read_submitted(path)
            if text is None:
                rejected[rel] = "REJECTED: %s %s" % (os.path.relpath(path, folder), why)
                student.files.append((rel, rejected[rel]))
                continue
            forbid = sorted({name for e in self.exercises if rel in e.marked for name in e.forbid})
            result, why = splice(self.templates[rel], self.regions[rel], text,
                                 not self.options.no_region_rules, forbid)
            if result is None:
                rejected[rel] = "REJECTED: %s: %s" % (os.path.relpath(path, folder), why)
                student.files.append((rel, rejected[rel]))
                continue
            graded[rel] = result
            student.files.append((rel, "taken from %s" % os.path.relpath(path, folder)))
        return graded, rejected

    def key(self, exercise, graded):
        h = hashlib.sha256()
        h.update(("%s\0%s\0" % (exercise.name, self.seed)).encode())
        for rel in exercise.marked:
            h.update(rel.encode() + b"\0" + graded[rel].encode() + b"\0")
        return h.hexdigest()

    def grade(self, name, folder, baseline=False):
        student = StudentResult(name, folder)
        student.isolation = self.isolation if self.sandbox else ""
        graded, rejected = self.take_files(student, folder)
        todo = []
        for e in self.exercises:
            bad = [rel for rel in e.marked if rel in rejected]
            if bad:
                result = ExerciseResult(e.name, e.points, [
                    TestResult(run["test"], run["label"], "fail", rejected[bad[0]])
                    for run in e.runs], note="a file was rejected")
                result.zero = True
                student.exercises.append(result)
            else:
                student.exercises.append(None)
                todo.append(e)
        if self.not_graded:
            student.not_graded = self.not_graded
            for i, e in enumerate(self.exercises):
                if student.exercises[i] is None:
                    student.exercises[i] = ExerciseResult(e.name, e.points, [
                        TestResult(run["test"], run["label"], "error",
                                   "not graded: " + self.not_graded) for run in e.runs])
            return student, graded
        # What is not known yet is built and run, in a worker's tree.
        keys = {e.name: self.key(e, graded) for e in todo}
        waiting = {}
        with self.cache_lock:
            mine = []
            for e in todo:
                entry = self.cache.get(keys[e.name])
                if entry is None:
                    entry = self.cache[keys[e.name]] = {"done": threading.Event(), "result": None}
                    mine.append(e)
                waiting[e.name] = entry
        if mine:
            self.run_in(self.workers.get(), name, graded, mine, keys, baseline)
        for i, e in enumerate(self.exercises):
            if student.exercises[i] is None:
                entry = waiting[e.name]
                entry["done"].wait()
                student.exercises[i] = copy_result(entry["result"])
        return student, graded

    def run_in(self, worker, name, graded, exercises, keys, baseline):
        results_ = {}
        try:
            programs = {}
            try:
                self.build_in(worker, name, graded, exercises, results_, programs)
            finally:
                self.workers.put(worker)  # the programs are copies: the next submission may build
            with concurrent.futures.ThreadPoolExecutor(max(1, self.options.gpu_jobs)) as pool:
                running = {e.name: pool.submit(self.run_exercise, name, e,
                                               os.path.join(programs[e.name], e.name), baseline)
                           for e in exercises if e.name in programs}
                for key, future in running.items():
                    results_[key] = future.result()
        finally:
            with self.cache_lock:
                for e in exercises:
                    entry = self.cache[keys[e.name]]
                    entry["result"] = results_.get(e.name) or ExerciseResult(
                        e.name, e.points, [TestResult(r["test"], r["label"], "error",
                                                      "the grading stopped") for r in e.runs])
                    entry["done"].set()

    def build_in(self, worker, name, graded, exercises, results_, programs):
        log = os.path.join(self.out, "build-%s.log" % safe(name))
        if not worker.ready:
            self.copy_tree(worker.src)
            if not self.configure(worker.src, worker.build, log):
                raise GradingError("a copy of the homework tree does not configure (%s)" % log)
            worker.ready = True
        for rel, text in graded.items():
            path = os.path.join(worker.src, rel)
            with open(path, "rb") as f:
                if f.read() == text.encode("utf-8"):
                    continue
            with open(path, "wb") as f:
                f.write(text.encode("utf-8"))
        say("%s: building %s" % (name, " ".join(e.name for e in exercises)))
        # The worked examples build alone, before any submission: every core is theirs.
        built = self.build_targets(worker.build, [e.name for e in exercises], log,
                                   os.cpu_count() if name == BASELINE else None)
        for e in exercises:
            if e.name not in built:
                results_[e.name] = self.not_built(e, log)
            else:
                programs[e.name] = tempfile.mkdtemp(dir=self.scratch)
                os.chmod(programs[e.name], 0o755)
                shutil.copy2(os.path.join(worker.build, "bin", e.name), programs[e.name])

    def not_built(self, e, log):
        errors = []
        try:
            with open(log, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if re.search(r"\berror\b", line) and any(os.path.basename(rel) in line
                                                             for rel in e.marked + [e.source]):
                        errors.append(line.rstrip())
        except OSError:
            pass
        details = "\n".join(errors[:15]) or "(see the build log)"
        result = ExerciseResult(e.name, e.points, [
            TestResult(run["test"], run["label"], "fail", "does not compile", details)
            for run in e.runs], note="does not compile")
        return result

    def run_exercise(self, name, e, program, baseline):
        scratch = os.path.dirname(program)
        tests = []
        zero_note = ""
        try:
            for run in e.runs:
                test = self.run_test(name, e, run, program)
                tests.append(test)
                if run["label"] == "timed" and test.status == "pass":
                    problem = self.check_budget(e, test, baseline)
                    if problem:
                        test.status, test.message = "fail", problem
                        zero_note = problem
                elif run["label"] == "timed" and test.status == "fail":
                    # The timed run's size is the one that tells the exercise's method apart: a
                    # one-thread loop or an atomic per element runs past its limit there, or
                    # accumulates past the tolerance of the exercise's summation tree.
                    if test.message.startswith("timed out"):
                        zero_note = "the timed run did not finish in %g s: a method other than " \
                            "the exercise's" % e.timeout
                    else:
                        zero_note = "the timed run, at the size that tells the method apart, " \
                            "failed: " + test.message.splitlines()[0]
                test.__dict__.pop("stdout", None)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        result = ExerciseResult(e.name, e.points, tests, note=zero_note)
        result.zero = bool(zero_note)
        passed = sum(t.status == "pass" for t in tests)
        say("%s: %s %d/%d tests passed%s" % (name, e.name, passed, len(tests),
                                              "; " + zero_note if zero_note else ""))
        return result

    def arguments(self, run):
        args = list(run["args"])
        if run.get("seeded"):
            args += ["--seed", str(self.seed)]
        if run["label"] == "timed":
            args.append("--csv")
        return args

    def run_test(self, name, e, run, program):
        args = self.arguments(run)
        rundir = tempfile.mkdtemp(dir=self.scratch)
        os.chmod(rundir, 0o711)
        try:
            record = os.path.join(rundir, "record")
            fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            env = self.sandbox.environment(rundir, {"HOMEWORK_RECORD": "fd:%d" % fd})
            hold = self.gpu.exclusive() if run["label"] == "timed" else self.gpu.shared()
            try:
                with self.gpu_slots, hold:
                    mine = self.sandbox.run([program] + args, rundir, env,
                                            os.path.join(rundir, "out"), os.path.join(rundir, "err"),
                                            e.timeout, pass_fds=[fd])
            finally:
                os.close(fd)
            own_err = read_tail(os.path.join(rundir, "err"))
            own = read_tail(os.path.join(rundir, "out")) + own_err
            status = mine.describe(e.timeout)
            if mine.timed_out:
                return TestResult(run["test"], run["label"], "fail", status,
                                  "its run " + status + "; its output ended:\n" + tail(own),
                                  mine.seconds)
            # (Only the host writes stderr: a kernel's printf cannot fake this.)
            if mine.returncode == 77 or NO_DEVICE in own_err:
                return TestResult(run["test"], run["label"], "error",
                                  "not graded: the GPU could not be used for this run",
                                  tail(own), mine.seconds)
            # Its record, copied at once (nothing of the run can change the copy), is checked by
            # the program as handed out.
            copy = os.path.join(rundir, "checked")
            shutil.copyfile(record, copy)
            os.chmod(copy, 0o600)
            rfd = os.open(copy, os.O_RDONLY)
            try:
                env = self.sandbox.environment(rundir, {"HOMEWORK_REPLAY": "fd:%d" % rfd})
                with self.gpu_slots, self.gpu.shared():
                    check = self.sandbox.run([os.path.join(self.clean_bin, e.name)] + args, rundir,
                                             env, os.path.join(rundir, "cout"),
                                             os.path.join(rundir, "cerr"), e.timeout + 60,
                                             pass_fds=[rfd])
            finally:
                os.close(rfd)
            stdout = read_tail(os.path.join(rundir, "cout"), 1 << 20)
            verdict = stdout + read_tail(os.path.join(rundir, "cerr"))
            seconds = mine.seconds
            if check.returncode == 0:
                test = TestResult(run["test"], run["label"], "pass", "", "", seconds)
                test.stdout = stdout
                return test
            fails = [line for line in verdict.splitlines() if line.startswith("FAIL")]
            if check.timed_out or check.returncode == 77 or NO_DEVICE in verdict or \
                    (check.returncode == 1 and not fails and "CUDA error at" in verdict):
                return TestResult(run["test"], run["label"], "error",
                                  "not graded: the check of this run could not run (%s)"
                                  % check.describe(e.timeout + 60), tail(verdict), seconds)
            if check.returncode != 1:
                return TestResult(run["test"], run["label"], "fail",
                                  "its recorded outputs crashed the check (%s)"
                                  % check.describe(e.timeout + 60), tail(verdict), seconds)
            if not fails:  # a check that says why without a FAIL line (A3's full table)
                fails = [tail(verdict, 1) or "the check failed"]
            message = fails[0]
            if "FAIL grading record" in message:
                message = "the run stopped before its checks were done (its run: %s)" % status
            details = "\n".join(fails[:5])
            if "FAIL grading record" in fails[0] or mine.returncode not in (0, 1):
                details += "\nits run: %s; its output ended:\n%s" % (status, tail(own))
            return TestResult(run["test"], run["label"], "fail", message, details, seconds)
        finally:
            shutil.rmtree(rundir, ignore_errors=True)

    def check_budget(self, e, test, baseline):
        rows = csv_rows(getattr(test, "stdout", ""))
        if not rows:
            return "the timed run reported no time"
        if baseline:
            self.baseline[e.name] = rows
            test.message = "the worked example's times: " + times_text(rows)
            return None
        base = self.baseline.get(e.name)
        if not base:
            test.message = "time budget not checked (no --solution): " + times_text(rows)
            return None
        notes = []
        for key, ms in rows.items():
            if key not in base:
                return "the timed run reported `%s`, which the worked example does not" % " ".join(key)
            most = e.factor * base[key] + SLACK_MS
            least = e.floor * base[key] - SLACK_MS
            label = " ".join(k for k in key if k)
            if ms > most:
                return ("the timed run took %.4g ms for `%s`, over its budget of %.4g ms (%g x the "
                        "worked example's %.4g ms in this grading): a method other than the "
                        "exercise's" % (ms, label, most, e.factor, base[key]))
            if e.floor and ms < least:
                return ("the timed run took %.4g ms for `%s`, under its floor of %.4g ms (%g x the "
                        "worked example's %.4g ms in this grading): it skips the exercise's work"
                        % (ms, label, least, e.floor, base[key]))
            notes.append("%s %.4g ms (budget %.4g)" % (label, ms, most))
        test.message = "; ".join(notes)
        return None


def copy_result(result):
    copy = ExerciseResult(result.name, result.max_points,
                          [TestResult.from_json(t.to_json()) for t in result.tests], result.note)
    copy.zero = result.zero
    return copy


def csv_rows(text):
    """The result rows of a --csv run: {(program, variant): ms}."""
    rows = {}
    header = False
    for line in text.splitlines():
        if line.startswith("program,variant,n,ms,"):
            header = True
            continue
        parts = line.split(",")
        if header and len(parts) == 6:
            try:
                rows[(parts[0], parts[1])] = float(parts[3])
            except ValueError:
                pass
    return rows


def times_text(rows):
    return "; ".join("%s %.4g ms" % (" ".join(k for k in key if k), ms)
                     for key, ms in rows.items())


def tail(text, lines=12):
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join(kept)


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name) or "_"


# ---------------------------------------------------------------------------------------------

def prepare_out(out):
    if os.path.exists(out) and not os.path.exists(os.path.join(out, MARKER)):
        if os.listdir(out):
            raise GradingError("%s exists and is not an earlier grading; choose a new folder"
                               % out)
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name != ".work":
            path = os.path.join(out, name)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) \
                else os.remove(path)
    os.chmod(out, 0o755)
    with open(os.path.join(out, MARKER), "w", encoding="utf-8") as f:
        f.write("written by grader/grade.py; replaced by the next grading into this folder\n")


def write_student(out, student, graded):
    folder = os.path.join(out, safe(student.name))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "report.txt"), "w", encoding="utf-8") as f:
        f.write(results.report(student))
    with open(os.path.join(folder, "junit.xml"), "w", encoding="utf-8") as f:
        f.write(results.junit(student))
    if not student.not_graded:  # Gradescope: no results is an autograder error, not a zero
        results.write_json(os.path.join(folder, "results.json"), results.gradescope(student))
    results.write_json(os.path.join(folder, "summary.json"), results.summary_json(student))
    for rel, text in graded.items():
        path = os.path.join(folder, "files", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def passed(folder, exercise):
    try:
        with open(os.path.join(folder, "summary.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print("grade.py --passed: %s" % e, file=sys.stderr)
        return EXIT_GRADING
    entry = data["exercises"].get(exercise)
    if entry is None:
        print("grade.py --passed: no exercise %s in %s" % (exercise, folder), file=sys.stderr)
        return EXIT_USAGE
    print("%s: %s/%s points; %s" % (exercise, results.fmt(entry["points"]),
                                    results.fmt(entry["max"]), data["verdict"]))
    if data["not_graded"]:
        return EXIT_NOT_GRADED
    return EXIT_FULL if entry["points"] >= entry["max"] - 1e-9 else EXIT_LOST


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="grade.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 full points, 1 points lost, 2 usage, 3 not graded (no usable "
               "GPU), 4 the grading failed.")
    parser.add_argument("submissions", nargs="*", help="a student's folder (or several)")
    parser.add_argument("--class", dest="klass", metavar="FOLDER",
                        help="grade every subfolder of FOLDER, one student each")
    parser.add_argument("--out", default="graded", help="results (default ./graded)")
    parser.add_argument("--solution", metavar="FOLDER",
                        help="the worked examples' files (the repository the tree was exported "
                             "from): the times of the budgets, and a check of this grading")
    parser.add_argument("--programs", type=lambda s: [p for p in s.split(",") if p],
                        help="only these exercises (a,b,...)")
    parser.add_argument("--seed", type=int,
                        default=int(os.environ["HOMEWORK_SEED"])
                        if os.environ.get("HOMEWORK_SEED", "").isdigit() else None,
                        help="seed of the hidden_seed runs (default $HOMEWORK_SEED, else the "
                             "tree's)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="submissions built at once (default 2)")
    parser.add_argument("--gpu-jobs", type=int, default=4,
                        help="programs run on the GPU at once (default 4); a timed run always "
                             "has the GPU to itself")
    parser.add_argument("--run-as", metavar="USER",
                        help="as root: the user student code runs as (default nobody)")
    parser.add_argument("--cmake-arg", action="append", default=[], metavar="ARG",
                        help="a configure argument, e.g. --cmake-arg=-DCMAKE_CUDA_ARCHITECTURES=90")
    parser.add_argument("--work", help="build folders, kept for the next grading "
                                       "(default OUT/.work)")
    parser.add_argument("--timeout", type=float,
                        help="every test's time limit in seconds (default: each exercise's own, "
                             "HOMEWORK_TIMEOUT)")
    parser.add_argument("--build-timeout", type=float, default=1800,
                        help="seconds a submission's build may take (default 1800)")
    parser.add_argument("--passed", nargs=2, metavar=("STUDENT_FOLDER", "EXERCISE"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--no-region-rules", action="store_true",
                        help="for testing the grader only: splice without the region rules")
    parser.add_argument("--no-pidns", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-user", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.passed:
        return passed(*options.passed)
    submissions = []
    if options.klass:
        if options.submissions:
            parser.error("give --class or submissions, not both")
        for name in sorted(os.listdir(options.klass)):
            path = os.path.join(options.klass, name)
            if os.path.isdir(path) and not name.startswith("."):
                submissions.append((name, os.path.abspath(path)))
    else:
        for path in options.submissions:
            name = os.path.basename(os.path.abspath(path))
            while name in [s[0] for s in submissions]:
                name += "_"
            submissions.append((name, os.path.abspath(path)))
    if not submissions:
        parser.error("nothing to grade")
    for _, path in submissions:
        if not os.path.isdir(path):
            parser.error("%s is not a folder" % path)
    if options.jobs < 1:
        parser.error("--jobs must be at least 1")

    tree = os.path.dirname(HERE)
    out = os.path.abspath(options.out)
    work = os.path.abspath(options.work or os.path.join(out, ".work"))
    try:
        prepare_out(out)
        grader = Grader(tree, out, work, options)
        return run(grader, submissions, options)
    except GradingError as e:
        say("GRADING FAILED: %s" % e)
        return EXIT_GRADING


def run(grader, submissions, options):
    out = grader.out
    started = time.time()
    try:
        grader.setup()
        summary = ["homework tree: %s" % grader.tree, "seed of the hidden_seed runs: %s" % grader.seed,
                   "isolation: %s" % grader.sandbox.describe()]
        if grader.not_graded:
            summary.append("NOT GRADED: %s" % grader.not_graded)
        elif options.solution:
            say("grading the worked examples (%s): the budgets' times" % options.solution)
            solution, _ = grader.grade(BASELINE, os.path.abspath(options.solution),
                                       baseline=True)
            problems = [rel + ": " + what for rel, what in solution.files
                        if what.startswith("REJECTED")]
            problems += ["%s: %s: %s" % (e.name, t.name, t.message) for e in solution.exercises
                         for t in e.tests if t.status != "pass"]
            if problems:
                write_student(out, solution, {})
                raise GradingError("the worked examples do not pass under this grading, so no "
                                   "verdict of it can be trusted:\n  " + "\n  ".join(problems[:20]))
            for e in grader.exercises:
                summary.append("budget of %s: %s" % (e.name, times_text(grader.baseline.get(e.name, {}))))
        else:
            summary.append("time budgets: NOT CHECKED (no --solution: the worked examples' times "
                           "are the budgets' measure)")
        students = [None] * len(submissions)

        def one(i):
            name, folder = submissions[i]
            say("%s: grading %s" % (name, folder))
            student, graded = grader.grade(name, folder)
            write_student(out, student, graded)
            students[i] = student
            say("%s: %s/%s points; %s" % (name, results.fmt(student.points),
                                          results.fmt(student.max_points), student.verdict()))

        threads = []
        pending = queue.Queue()
        for i in range(len(submissions)):
            pending.put(i)
        errors = []

        def loop():
            while True:
                try:
                    i = pending.get_nowait()
                except queue.Empty:
                    return
                try:
                    one(i)
                except GradingError as e:
                    errors.append(e)
                    return
                except Exception:  # a bug of the grader: no verdict may pass silently
                    import traceback
                    errors.append(GradingError("%s: %s" % (submissions[i][0],
                                                           traceback.format_exc())))
                    return

        for _ in range(max(1, options.jobs)):
            t = threading.Thread(target=loop)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
    finally:
        shutil.rmtree(grader.scratch, ignore_errors=True)
    names = [e.name for e in grader.exercises]
    with open(os.path.join(out, "gradebook.csv"), "w", encoding="utf-8", newline="") as f:
        f.write(results.gradebook(students, names))
    summary.append("graded %d submission(s) in %.0f s" % (len(students), time.time() - started))
    summary += ["%s: %s/%s; %s" % (s.name, results.fmt(s.points), results.fmt(s.max_points),
                                   s.verdict()) for s in students]
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(summary) + "\n")
    say("gradebook: %s" % os.path.join(out, "gradebook.csv"))
    if grader.not_graded:
        return EXIT_NOT_GRADED
    return EXIT_FULL if all(s.points >= s.max_points - 1e-9 for s in students) else EXIT_LOST


if __name__ == "__main__":
    # Whatever the locale, printing never fails: what cannot be encoded is escaped.
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    sys.exit(main())
