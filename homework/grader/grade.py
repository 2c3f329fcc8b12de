#!/usr/bin/env python3
"""Grades homework submissions with the homework tree this file belongs to.

    python3 grader/grade.py [options] SUBMISSION...     each a student's folder (their homework
                                                        tree, or just the files they edit)
    python3 grader/grade.py [options] --class FOLDER    every subfolder of FOLDER is a student
    python3 grader/grade.py --class FOLDER --shard I/N --seed S --out OUT_I   one shard of a class
    python3 grader/grade.py --merge OUT_0 OUT_1 ... --out OUT                  the shards merged
    python3 grader/grade.py --rules FOLDER     only whether FOLDER's parts keep the rules (no GPU)

What it does, per submission:
  1. takes from the submission only the files the students edit (at their path in the tree, at
     the submission's top, or anywhere in it if the name is unique; regular files only, reached
     through no link at any level), and from those only the lines where the student writes:
     every other line must be the tree's own (blanks at either end aside). A part must keep the
     rules of hwtext.region_check (a part in host code is one `return` of integer arithmetic); a
     file that breaks them is rejected with its line, and its exercises get no points;
  2. builds the exercises with those files (the clean parts are configured once per grading, in
     a few build trees that the submissions take turns in; identical files are built and run
     once);
  3. runs every test of every exercise (the `homework` runs, the `hidden` ones, and the timed
     run, the seeded ones with a seed drawn for this grading and never written into the tree) as
     the student's program, which records every value it reads back from the GPU and every time
     it measures (common/grading.cpp) into a pipe, in a sandbox (sandbox.py) that sees none of
     the class. Its exit status only tells a crash or a time-out apart; that it found no GPU is
     believed only if the grader's own probe of the GPU fails too. An exercise's untimed runs
     share one process (a CUDA context costs more than most runs: common/grading.cpp's batch),
     each with its own output, record and time limit; a run that ends that process ends the
     batch, and the runs after it (and it, unless it was the first) are made one process each.
     The timed run always has a process of its own, so that nothing an earlier run left behind
     (an answer kept for the same seed and size) can make it fast; only it loads its kernels when
     its context is made (CUDA_MODULE_LOADING=EAGER: no launch it times pays for loading), the
     other runs and the checks as they first launch them. Untimed runs are made with
     `--reps 1` where their arguments give no --reps (their times count for nothing);
  4. the verdict of each test comes from the same program built from the homework tree alone
     (never compiled with student code), fed the record (an exercise's records, the timed run's
     included, in one process): it regenerates the input from the seed
     and checks the recorded outputs with the program's own checks. A missing, short or
     malformed record is a failure. In the timed run every launch is timed and checked, the
     checked one included (common::Timer, common::checked_launch);
  5. holds the timed run's times to the exercise's budget: each result's median and the slowest
     of all its launches at most HOMEWORK_TIME_FACTOR times the worked example's in the same
     grading (--solution). A timed run that shares the GPU and misses the budget is run again as
     it ran, then with the GPU to itself, twice at most. Outside the budget, or failed in any
     other way (a wrong answer at that size, a crash, its time limit), the timed run takes all the
     exercise's points.
Points: an exercise's HOMEWORK_POINTS, shared by its tests.

Outputs, in --out: gradebook.csv (student, points per exercise, total, max, verdict),
summary.txt (with the seconds per (student, exercise) and where they went), and per student a folder with report.txt
(each failed test's first mismatch), junit.xml, results.json (Gradescope), summary.json and
files/ (what was compiled).

Exit status: 0 every submission graded with full points, 1 points lost, 2 usage error,
3 not graded (no usable GPU: the reason is printed), 4 the grading itself failed (the tree does
not build, or the worked examples do not pass under this grader).
"""

import argparse
import concurrent.futures
import csv
import errno
import hashlib
import json
import math
import os
import queue
import re
import secrets
import shutil
import stat
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hwtext  # noqa: E402
import results  # noqa: E402
from results import ExerciseResult, StudentResult, TestResult  # noqa: E402
from sandbox import Sandbox  # noqa: E402

EXIT_FULL, EXIT_LOST, EXIT_USAGE, EXIT_NOT_GRADED, EXIT_GRADING = 0, 1, 2, 3, 4
MAX_FILE = 1 << 20  # a submitted file larger than this is no source file
MAX_RECORD = 1 << 30  # a run's grading record, at most (the worked example's, at most)
SLACK_MS = 0.02  # a budget's allowance for the timer's own noise on very short kernels
MARKER = ".homework-graded"
NO_DEVICE = "FAIL: a CUDA device cannot be used"
BASELINE = "worked-examples"  # the --solution's name in the logs


class GradingError(Exception):
    """The grading itself cannot go on (not a student's fault)."""


def say(*parts, clock=False):
    """Prints a line of the grading's progress; clock=True ends it with the seconds since the
    grader started, so that a log cut short still tells where the time went."""
    if clock:
        parts += ("[at %.0f s]" % (time.time() - say.started),)
    with say.lock:
        print(*parts, flush=True)


say.lock = threading.Lock()
say.started = time.time()


class Ledger:
    """Where the grading's time goes, summed over its threads: builds (wall seconds of each
    submission's build), students' runs and the checks of their records (seconds each process
    ran), waits for the GPU (a run's seconds before its turn), and the timed runs tried again
    (sharing the GPU, or alone). One line of summary.txt, so that a class's pace can be explained,
    not only read."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seconds = {"build": 0.0, "run": 0.0, "check": 0.0, "wait": 0.0}
        self.counts = {"build": 0, "run": 0, "check": 0, "wait": 0, "again": 0, "alone": 0,
                       "batch": 0}
        self.exercises = {}  # exercise -> seconds of its runs and checks

    def add(self, what, seconds=0.0, exercise=None):
        with self.lock:
            self.seconds[what] = self.seconds.get(what, 0.0) + seconds
            self.counts[what] += 1
            if exercise:
                self.exercises[exercise] = self.exercises.get(exercise, 0.0) + seconds

    def line(self):
        with self.lock:
            s, n = dict(self.seconds), dict(self.counts)
        return ("time spent (summed over parallel work): builds %.0f s (%d), students' runs %.0f "
                "s (%d, %d processes of several runs), checks of their records %.0f s (%d), "
                "waiting for the GPU %.0f s; timed runs tried again: %d sharing the GPU, %d alone"
                % (s["build"], n["build"], s["run"], n["run"], n["batch"], s["check"],
                   n["check"], s["wait"], n["again"], n["alone"]) +
                "; the runs and checks of the costliest exercises: " +
                ", ".join("%s %.0f s" % (k, v) for k, v in sorted(
                    self.exercises.items(), key=lambda kv: -kv[1])[:5]))


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

MAX_WALK = 20000  # entries of a submission searched for a file by its name


def walk_inside(folder):
    """(relative folder, names of its regular files and links) of `folder` and every folder
    below it that is not a link, hidden or a build folder; at most MAX_WALK entries."""
    seen = 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and
                   not os.path.islink(os.path.join(root, d))]
        seen += len(dirs) + len(files)
        if seen > MAX_WALK:
            return
        yield os.path.relpath(root, folder), files


def find_submitted(folder, rel):
    """Where the submitted file for `rel` is, relative to the submission's folder, or (None,
    why): at its path in the tree, at the submission's top, or anywhere if its name is unique."""
    name = os.path.basename(rel)
    for candidate in (rel, name):
        if os.path.lexists(os.path.join(folder, candidate)):
            return candidate, ""
    found = [os.path.normpath(os.path.join(root, name))
             for root, files in walk_inside(folder) if name in files]
    if len(found) == 1:
        return found[0], ""
    if found:
        return None, "not submitted: %d files are named %s (put yours at %s)" % (
            len(found), name, rel)
    return None, "not submitted"


def read_submitted(folder, rel):
    """The text of folder/rel, or (None, why): every folder on the way and the file itself must
    not be a link (each is opened without following one), the file a regular file of at most
    MAX_FILE bytes, and its text UTF-8."""
    parts = [p for p in rel.split(os.sep) if p not in ("", ".")]
    if ".." in parts:
        return None, "is outside the submission"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fds = []
    try:
        fds.append(os.open(folder, flags | os.O_DIRECTORY))
        for part in parts[:-1]:
            fds.append(os.open(part, flags | os.O_DIRECTORY, dir_fd=fds[-1]))
        fds.append(os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fds[-1]))
        st = os.fstat(fds[-1])
        if not stat.S_ISREG(st.st_mode):
            return None, "is not a regular file"
        if st.st_size > MAX_FILE:
            return None, "is larger than %d bytes" % MAX_FILE
        data = os.read(fds[-1], MAX_FILE + 1)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            return None, "is a link, or lies behind one: only the submission's own files count"
        return None, "cannot be read (%s)" % e.strerror
    finally:
        for fd in fds:
            os.close(fd)
    text = hwtext.decode(data)
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
            # A part is at most MAX_PART_LINES long: the segment after it starts no further on.
            bad = first
            for found in range(at, min(s_count - length + 2, at + hwtext.MAX_PART_LINES + 2)):
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
    def __init__(self, tree, out, work, options, hide=()):
        self.tree, self.out, self.work, self.options = tree, out, work, options
        # The seed of every seeded run, the timed ones included: chosen now, never written into
        # the tree a student has, so no answer can be computed before the grading.
        self.seed = options.seed if options.seed is not None else secrets.randbelow(2**31 - 2) + 1
        self.hide = list(hide)  # folders no run may see
        self.gpu = RWLock()
        self.gpu_slots = threading.Semaphore(max(1, options.gpu_jobs))
        self.cache = {}
        self.cache_lock = threading.Lock()
        # exercise -> the worked example's timed run: {"rows": {(program, variant): ms},
        # "launches": [ms, ...]}; and (exercise, test) -> the size of its record
        self.baseline = {}
        self.record_sizes = {}
        self.not_graded = ""
        self.probe_lock = threading.Lock()
        self.sandbox = None
        self.ledger = Ledger()
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
        self.sandbox = Sandbox(self.options.run_as, not self.options.no_pidns,
                               not self.options.no_user, self.hide)
        # The checking programs, staged where the sandbox's user can run them.
        self.clean = {e.name: self.sandbox.stage_program(os.path.join(clean, "bin", e.name))
                      for e in self.exercises}
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
        user, hidden folders): then the sandbox is loosened as little as works, and the verdicts
        say so."""
        e = self.exercises[0]
        status, text = self.probe_once(e, None)
        if status != "ok":
            self.not_graded = text
            say("NOT GRADED: %s" % text)
            return
        box = self.sandbox
        pidns, hiding, user = box.pidns, box.hiding, (box.user, box.uid, box.gid)
        tries = [(p, h, u) for u in (True, False) for p, h in ((True, True), (True, False),
                                                                (False, False))
                 if p <= pidns and h <= hiding and u <= (box.uid is not None)]
        for use_pidns, use_hiding, use_user in tries:
            box.pidns, box.hiding = use_pidns, use_hiding
            box.user, box.uid, box.gid = user if use_user else (None, None, None)
            status, text = self.probe_once(e, box)
            if status == "ok":
                if pidns and not use_pidns:
                    box.notes.append("the GPU could not be used in a PID namespace")
                if hiding and not use_hiding:
                    box.notes.append("the GPU could not be used with the class hidden")
                if user[1] is not None and not use_user:
                    box.notes.append("the GPU could not be used as user %s" % user[0])
                return
        self.not_graded = "the GPU can be used, but not by a program in the sandbox: %s" % text
        say("NOT GRADED: %s" % self.not_graded)

    def probe_once(self, e, sandbox):
        """("ok" or "no", why): the exercise as handed out, at its first run, as the grader
        (sandbox None) or in the sandbox."""
        program = self.clean[e.name]
        args = e.runs[0]["args"]
        try:
            if sandbox is None:
                done = subprocess.run([program] + args, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                      timeout=300)
                code, text = done.returncode, (done.stdout + done.stderr).decode(
                    "utf-8", errors="replace")
            else:
                rundir = sandbox.folder()
                try:
                    result = sandbox.run([program] + args, rundir,
                                         sandbox.environment(rundir, {}), 300, trusted=True)
                finally:
                    shutil.rmtree(rundir, ignore_errors=True)
                code, text = result.returncode, result.stdout + result.stderr
        except (OSError, subprocess.TimeoutExpired) as err:
            return "no", "the program as handed out could not be run: %s" % err
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

    def gpu_works(self, e):
        """The grader's own probe, now, in the sandbox: whether a run that says it found no GPU
        can be believed (the student's program never decides that)."""
        with self.probe_lock:
            status, text = self.probe_once(e, self.sandbox)
        return status == "ok", text

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
            text, why = read_submitted(folder, path)
            if text is None:
                rejected[rel] = "REJECTED: %s %s" % (path, why)
                student.files.append((rel, rejected[rel]))
                continue
            forbid = sorted({name for e in self.exercises if rel in e.marked for name in e.forbid})
            result, why = splice(self.templates[rel], self.regions[rel], text,
                                 not self.options.no_region_rules, forbid)
            if result is None:
                rejected[rel] = "REJECTED: %s: %s" % (path, why)
                student.files.append((rel, rejected[rel]))
                continue
            graded[rel] = result
            student.files.append((rel, "taken from %s" % path))
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
        if os.path.islink(folder):
            for e in self.exercises:
                result = ExerciseResult(e.name, e.points, [
                    TestResult(run["test"], run["label"], "fail", "REJECTED: the submission's "
                               "folder is a link: only a folder of its own counts")
                    for run in e.runs], note="the submission is a link")
                result.zero = True
                student.exercises.append(result)
            return student, {}
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
                running = {e.name: pool.submit(self.run_exercise, name, e, programs[e.name],
                                               baseline)
                           for e in exercises if e.name in programs}
                for key, future in running.items():
                    results_[key] = future.result()
        except OSError as err:  # a full disk, say: this submission's, not the class's end
            say("%s: the grading of this submission failed: %s" % (name, err))
            for e in exercises:
                results_.setdefault(e.name, ExerciseResult(e.name, e.points, [
                    TestResult(r["test"], r["label"], "error", "not graded: the grading of this "
                               "submission failed (%s)" % err) for r in e.runs]))
        finally:
            with self.cache_lock:
                for e in exercises:
                    entry = self.cache[keys[e.name]]
                    entry["result"] = results_.get(e.name) or ExerciseResult(
                        e.name, e.points, [TestResult(r["test"], r["label"], "error",
                                                      "the grading stopped") for r in e.runs])
                    entry["done"].set()
                    if entry["result"].tests and not entry["result"].graded:
                        del self.cache[keys[e.name]]  # not graded: a later submission tries again

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
        say("%s: building %s" % (name, " ".join(e.name for e in exercises)), clock=True)
        # The worked examples build alone, before any submission: every core is theirs.
        started = time.monotonic()
        built = self.build_targets(worker.build, [e.name for e in exercises], log,
                                   os.cpu_count() if name == BASELINE else None)
        self.ledger.add("build", time.monotonic() - started)
        for e in exercises:
            if e.name not in built:
                results_[e.name] = self.not_built(e, log)
            else:
                programs[e.name] = self.sandbox.stage_program(
                    os.path.join(worker.build, "bin", e.name))

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
        tests = []
        zero_note = ""
        try:
            # The timed run has a process of its own: nothing an earlier run left (an answer
            # kept in device memory for the same seed and size) can make it fast. Its record is
            # checked in the process that checks the untimed runs' records.
            untimed = [run for run in e.runs if run["label"] != "timed"]
            timed = [run for run in e.runs if run["label"] == "timed"]
            batched = self.run_batch(name, e, untimed, program, baseline, timed) \
                if self.options.batch and len(untimed) > 1 else {}
            for run in e.runs:
                test = batched.get(run["test"]) or self.run_test(name, e, run, program, baseline)
                if run["label"] == "timed" and test.status == "pass":
                    problem = self.check_budget(e, test, baseline)
                    # A run sharing the GPU is only ever slower: a budget missed is tried again,
                    # once as it ran (most misses are a neighbour's moment on the GPU, and a run
                    # with the GPU to itself waits for every other to end), then twice at most
                    # with the GPU to itself, so that no noise costs a point.
                    for attempt in range(3 if problem and not baseline else 0):
                        self.ledger.add("alone" if attempt > 0 else "again")
                        again = self.run_test(name, e, run, program, baseline,
                                              exclusive=attempt > 0)
                        if again.status != "pass":
                            test, problem = again, None
                            break
                        problem = self.check_budget(e, again, baseline)
                        test = again
                        if not problem:
                            break
                    if problem:
                        test.status, test.message = "fail", problem
                        zero_note = problem
                if run["label"] == "timed" and test.status == "fail" and not zero_note:
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
                test.__dict__.pop("launches", None)
                tests.append(test)
        finally:
            shutil.rmtree(os.path.dirname(program), ignore_errors=True)
        result = ExerciseResult(e.name, e.points, tests, note=zero_note)
        result.zero = bool(zero_note)
        passed = sum(t.status == "pass" for t in tests)
        say("%s: %s %d/%d tests passed%s" % (name, e.name, passed, len(tests),
                                              "; " + zero_note if zero_note else ""), clock=True)
        return result

    def arguments(self, run):
        args = list(run["args"])
        if run.get("seeded") or run["label"] == "timed":
            args += ["--seed", str(self.seed)]
        if run["label"] == "timed":
            args.append("--csv")
        elif "--reps" not in args:
            # An untimed run's times count for nothing, and in a graded run every timed launch
            # is checked: one repetition checks what twenty would, twenty times faster.
            args += ["--reps", "1"]
        return args

    def record_limit(self, e, run, baseline):
        """How long a run's record may be: a few times the worked example's in this grading."""
        size = self.record_sizes.get((e.name, run["test"]))
        if baseline or size is None:
            return MAX_RECORD
        return min(MAX_RECORD, 2 * size + (1 << 20))

    def record(self, e, run, program, baseline=False, exclusive=False):
        """One run of the student's program, in a process and a folder of its own, recording:
        its RunResult, not yet checked."""
        rundir = self.sandbox.folder()
        try:
            timed = run["label"] == "timed"
            env = self.sandbox.environment(rundir, {}, timed=timed)
            hold = self.gpu.exclusive() if exclusive or (baseline and timed) \
                else self.gpu.shared()
            asked = time.monotonic()
            with self.gpu_slots, hold:
                self.ledger.add("wait", time.monotonic() - asked)
                mine = self.sandbox.run([program] + self.arguments(run), rundir, env, e.timeout,
                                        record_limit=self.record_limit(e, run, baseline))
            self.ledger.add("run", mine.seconds, e.name)
            return mine
        finally:
            shutil.rmtree(rundir, ignore_errors=True)

    def run_test(self, name, e, run, program, baseline=False, exclusive=False):
        mine = self.record(e, run, program, baseline, exclusive)
        early = self.early_verdict(e, run, mine, baseline)
        if early:
            return early
        rundir = self.sandbox.folder()
        try:
            return self.check(e, run, mine, rundir)
        finally:
            shutil.rmtree(rundir, ignore_errors=True)

    def run_batch(self, name, e, runs, program, baseline=False, alone=()):
        """The verdicts of several untimed runs, made in one process of the student's program,
        and of the runs `alone` (the timed one), each made in a process of its own after them;
        all their records are checked in one process of the program as handed out (a CUDA
        context each, not one a run): {test: TestResult} for the runs the batch reached; the
        caller runs the rest one by one. A run the batch ended in counts only where it was the
        batch's first (a fresh process, as a run of its own would be): a later one may have met
        what an earlier run left."""
        rundir = self.sandbox.folder()
        try:
            env = self.sandbox.environment(rundir, {})
            asked = time.monotonic()
            with self.gpu_slots, self.gpu.shared():
                self.ledger.add("wait", time.monotonic() - asked)
                mines = self.sandbox.run_batch(
                    program, [self.arguments(r) for r in runs], rundir, env, e.timeout,
                    record_limits=[self.record_limit(e, r, baseline) for r in runs])
            self.ledger.add("batch")
            verdicts, todo = {}, []
            for k, (run, mine) in enumerate(zip(runs, mines)):
                if mine is None or (k > 0 and mine.ended_batch):
                    break
                self.ledger.add("run", mine.seconds, e.name)
                early = self.early_verdict(e, run, mine, baseline)
                if early:
                    verdicts[run["test"]] = early
                else:
                    todo.append((run, mine))
            for run in alone:
                mine = self.record(e, run, program, baseline)
                early = self.early_verdict(e, run, mine, baseline)
                if early:
                    verdicts[run["test"]] = early
                else:
                    todo.append((run, mine))
            if todo:
                asked = time.monotonic()
                with self.gpu_slots, self.gpu.shared():
                    self.ledger.add("wait", time.monotonic() - asked)
                    checks = self.sandbox.run_batch(
                        self.clean[e.name], [self.arguments(r) for r, _ in todo], rundir,
                        self.sandbox.environment(rundir, {}), e.timeout + 60,
                        replays=[m.record for _, m in todo], trusted=True)
                for k, ((run, mine), check) in enumerate(zip(todo, checks)):
                    if check is not None and (k == 0 or not check.ended_batch):
                        self.ledger.add("check", check.seconds, e.name)
                        verdicts[run["test"]] = self.verdict(e, run, mine, check)
                    else:  # checked alone, in a process of its own
                        verdicts[run["test"]] = self.check(e, run, mine, rundir)
            return verdicts
        finally:
            shutil.rmtree(rundir, ignore_errors=True)

    def early_verdict(self, e, run, mine, baseline):
        """The verdict of a student's run that needs no check (timed out, a record past its
        limit, no GPU), or None."""
        own = mine.stdout + mine.stderr
        status = mine.describe(e.timeout)
        if mine.timed_out:
            return TestResult(run["test"], run["label"], "fail", status,
                              "its run " + status + "; its output ended:\n" + tail(own),
                              mine.seconds)
        if mine.record_overflow:
            return TestResult(run["test"], run["label"], "fail",
                              "its grading record grew past %d bytes (a few times the worked "
                              "example's)" % self.record_limit(e, run, baseline),
                              tail(own), mine.seconds)
        if mine.returncode == 77 or NO_DEVICE in own:
            # Only the grader's own probe says whether the GPU is there.
            works, why = self.gpu_works(e)
            if not works:
                return TestResult(run["test"], run["label"], "error",
                                  "not graded: the GPU could not be used for this run (%s)"
                                  % why, tail(own), mine.seconds)
            return TestResult(run["test"], run["label"], "fail",
                              "its run said it found no GPU (%s), but the grader's own probe "
                              "ran on the GPU just after it" % status, tail(own), mine.seconds)
        if baseline:
            self.record_sizes[(e.name, run["test"])] = len(mine.record)
        return None

    def check(self, e, run, mine, rundir):
        """The record replayed into the program as handed out, alone: the run's verdict."""
        asked = time.monotonic()
        with self.gpu_slots, self.gpu.shared():
            self.ledger.add("wait", time.monotonic() - asked)
            check = self.sandbox.run([self.clean[e.name]] + self.arguments(run), rundir,
                                     self.sandbox.environment(rundir, {}), e.timeout + 60,
                                     replay=mine.record, trusted=True)
        self.ledger.add("check", check.seconds, e.name)
        return self.verdict(e, run, mine, check)

    def verdict(self, e, run, mine, check):
        """A run's verdict from the check of its record."""
        own = mine.stdout + mine.stderr
        status = mine.describe(e.timeout)
        verdict = check.stdout + check.stderr
        seconds = mine.seconds
        if check.returncode == 0:
            test = TestResult(run["test"], run["label"], "pass", "", "", seconds)
            test.stdout = check.stdout
            test.launches = launch_times(check.stderr)
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

    def check_budget(self, e, test, baseline):
        """None, or why the timed run's times break the exercise's budget: each result's median
        and the slowest of all its launches (the checked one and every timed one), at most
        HOMEWORK_TIME_FACTOR times the worked example's in this grading. A time that is not a
        positive finite number breaks it too."""
        rows = csv_rows(getattr(test, "stdout", ""))
        launches = getattr(test, "launches", [])
        if not rows:
            return "the timed run reported no time"
        if not launches:
            return "the timed run reported no launch time (its program times no checked launch)"
        bad = [ms for ms in list(rows.values()) + launches if not (math.isfinite(ms) and ms > 0)]
        if bad:
            return "the timed run reported a time of %r ms, which no launch takes" % bad[0]
        if baseline:
            self.baseline[e.name] = {"rows": rows, "launches": launches}
            test.message = "the worked example's times: %s; slowest launch %.4g ms" % (
                times_text(rows), max(launches))
            return None
        base = self.baseline.get(e.name)
        if not base:
            test.message = "time budget not checked (no --solution): %s; slowest launch %.4g ms" \
                % (times_text(rows), max(launches))
            return None
        notes = []
        for key, ms in rows.items():
            if key not in base["rows"]:
                return "the timed run reported `%s`, which the worked example does not" % \
                    " ".join(key)
            most = e.factor * base["rows"][key] + SLACK_MS
            label = " ".join(k for k in key if k)
            if ms > most:
                return ("the timed run took %.4g ms for `%s`, over its budget of %.4g ms (%g x the "
                        "worked example's %.4g ms in this grading): a method other than the "
                        "exercise's" % (ms, label, most, e.factor, base["rows"][key]))
            notes.append("%s %.4g ms (budget %.4g)" % (label, ms, most))
        slowest, base_slowest = max(launches), max(base["launches"])
        most = e.factor * base_slowest + SLACK_MS
        if len(launches) != len(base["launches"]):
            return "the timed run launched its kernels %d times, the worked example %d" % (
                len(launches), len(base["launches"]))
        if slowest > most:
            which = launches.index(slowest) + 1
            return ("launch %d of the timed run took %.4g ms, over the budget of %.4g ms for "
                    "any launch (%g x the worked example's slowest, %.4g ms): a kernel that is "
                    "slow on one launch, such as the first, is not the exercise's method"
                    % (which, slowest, most, e.factor, base_slowest))
        notes.append("slowest launch %.4g ms (budget %.4g)" % (slowest, most))
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


def launch_times(text):
    """Every launch time the replay read back from the record (common/grading.cpp prints them),
    in order."""
    times = []
    for line in text.splitlines():
        match = re.match(r"^graded launch: (\S+) ms$", line)
        if match:
            try:
                times.append(float(match.group(1)))
            except ValueError:
                times.append(float("nan"))
    return times


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


def check_rules(tree, folder):
    """--rules: whether the files of `folder` (a student's tree, or just their files) keep the
    rules grading holds them to, as grading takes them: only the parts the student writes
    changed, each keeping the rules of hwtext.region_check. Builds and runs nothing, so it needs
    no GPU; a file that breaks a rule is a `FAIL rules:` line with its line and why."""
    with open(os.path.join(tree, "grader", "regions.json"), encoding="utf-8") as f:
        data = json.load(f)
    exported = hwtext.read_export_record(tree)
    broken = 0
    for rel in sorted(data["files"]):
        with open(os.path.join(tree, "grader", "handed_out", rel), "rb") as f:
            handed_out = f.read()
        if hwtext.sha256(handed_out) != exported.get(rel):
            raise GradingError("grader/handed_out/%s is not the file as handed out" % rel)
        path, why = find_submitted(folder, rel)
        if path is None:
            print("%s: %s (graded as handed out)" % (rel, why))
            continue
        text, why = read_submitted(folder, path)
        if text is None:
            print("FAIL rules: %s %s: grading would take nothing of it" % (path, why))
            broken += 1
            continue
        _, why = splice(hwtext.decode(handed_out), data["files"][rel], text, True,
                        data.get("forbid", {}).get(rel, ()))
        if why:
            print("FAIL rules: %s: %s: grading would take nothing of it" % (path, why))
            broken += 1
        else:
            print("ok: %s keeps the rules" % path)
    return EXIT_LOST if broken else EXIT_FULL


def shard(value):
    match = re.fullmatch(r"([0-9]+)/([0-9]+)", value)
    if not match or int(match.group(2)) < 1 or int(match.group(1)) >= int(match.group(2)):
        raise argparse.ArgumentTypeError("I/N with 0 <= I < N, e.g. 0/4 (got %s)" % value)
    return int(match.group(1)), int(match.group(2))


def merge(folders, out):
    """One gradebook from the gradebooks of several shards (--shard) of one class: the rows of
    every shard, each student once, the same exercises in each, and the per-student folders
    copied beside it. Exit status as a grading's, from the merged rows."""
    header, rows, summaries, seeds = None, {}, [], set()
    for folder in folders:
        try:
            with open(os.path.join(folder, "gradebook.csv"), encoding="utf-8") as f:
                table = list(csv.reader(f))
            with open(os.path.join(folder, "summary.txt"), encoding="utf-8") as f:
                summary = f.read()
        except OSError as e:
            raise GradingError("%s is not a grading's output: %s" % (folder, e))
        if header is None:
            header = table[0]
        elif table[0] != header:
            raise GradingError("%s graded other exercises (%s) than %s (%s)" % (
                folder, ",".join(table[0][1:-3]), folders[0], ",".join(header[1:-3])))
        for row in table[1:]:
            if row[0] in rows:
                raise GradingError("%s is in two shards (%s and %s)" % (row[0], rows[row[0]][0],
                                                                        folder))
            rows[row[0]] = (folder, row)
        seeds.update(re.findall(r"^seed of the graded runs: (\S+)$", summary, re.M))
        summaries.append("== %s\n%s" % (folder, summary))
    prepare_out(out)
    for name, (folder, row) in sorted(rows.items()):
        source = os.path.join(folder, safe(name))
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(out, safe(name)))
    with open(os.path.join(out, "gradebook.csv"), "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for name in sorted(rows):
            writer.writerow(rows[name][1])
    note = "merged %d shard(s), %d student(s)" % (len(folders), len(rows))
    if len(seeds) > 1:
        note += "; WARNING: the shards were graded with different seeds (%s): give every " \
            "shard the same --seed" % ", ".join(sorted(seeds))
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(note + "\n\n" + "\n".join(summaries))
    say(note)
    say("gradebook: %s" % os.path.join(out, "gradebook.csv"))
    verdicts = [row[-1] for _, row in rows.values()]
    if any(v.startswith("not graded") for v in verdicts):
        return EXIT_NOT_GRADED
    return EXIT_FULL if all(v.startswith("full points") for v in verdicts) else EXIT_LOST


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
                        help="seed of every seeded run, the timed ones included (default "
                             "$HOMEWORK_SEED, else one drawn at random for this grading; give "
                             "every shard of a class the same)")
    parser.add_argument("--shard", type=shard, metavar="I/N",
                        help="grade only shard I of N of the class (the students in name order, "
                             "every N-th from the I-th); merge the shards' outputs with --merge")
    parser.add_argument("--merge", nargs="+", metavar="OUT",
                        help="merge the outputs of a class's shards into --out, and grade nothing")
    parser.add_argument("--rules", metavar="FOLDER",
                        help="only check that FOLDER's files keep the rules of the parts students "
                             "write (no GPU, no build): exit 0 if they do, 1 if not")
    parser.add_argument("--jobs", type=int, default=max(2, (os.cpu_count() or 2) // 4),
                        help="submissions built at once (default: a quarter of the cores); "
                             "twice as many are graded at once")
    parser.add_argument("--gpu-jobs", type=int, default=8,
                        help="programs run on the GPU at once (default 8); a timed run that "
                             "misses its budget is run again, then with the GPU to itself")
    parser.add_argument("--one-process-a-run", dest="batch", action="store_false",
                        help="run each test in a process of its own (default: an exercise's "
                             "untimed runs share one process, and the checks of every run, the "
                             "timed one included, another)")
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
    parser.add_argument("--no-region-rules", action="store_true",
                        help="for testing the grader only: splice without the region rules")
    parser.add_argument("--no-pidns", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-user", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    out = os.path.abspath(options.out)
    if options.rules:
        try:
            return check_rules(os.path.dirname(HERE), os.path.abspath(options.rules))
        except (GradingError, OSError, ValueError) as e:
            say("RULES NOT CHECKED: %s" % e)
            return EXIT_GRADING
    if options.merge:
        if options.submissions or options.klass:
            parser.error("--merge grades nothing: give it no submissions")
        try:
            return merge([os.path.abspath(f) for f in options.merge], out)
        except GradingError as e:
            say("MERGE FAILED: %s" % e)
            return EXIT_GRADING
    submissions = []
    if options.klass:
        if options.submissions:
            parser.error("give --class or submissions, not both")
        for name in sorted(os.listdir(options.klass)):
            path = os.path.join(options.klass, name)
            # A link is listed too: grade() refuses it.
            if (os.path.isdir(path) or os.path.islink(path)) and not name.startswith("."):
                submissions.append((name, os.path.abspath(path)))
    else:
        for path in options.submissions:
            name = os.path.basename(os.path.abspath(path))
            while name in [s[0] for s in submissions]:
                name += "_"
            submissions.append((name, os.path.abspath(path)))
    if options.shard:
        index, count = options.shard
        submissions = submissions[index::count]
    if not submissions and not options.shard:
        parser.error("nothing to grade")
    for _, path in submissions:
        if not os.path.isdir(path) and not os.path.islink(path):
            parser.error("%s is not a folder" % path)
    if options.jobs < 1 or options.gpu_jobs < 1:
        parser.error("--jobs and --gpu-jobs must be at least 1")

    tree = os.path.dirname(HERE)
    work = os.path.abspath(options.work or os.path.join(out, ".work"))
    # What no run may see: the class, the worked examples, the tree, the builds, the output.
    hide = [tree, out, work] + [os.path.dirname(path) for _, path in submissions]
    if options.solution:
        hide.append(os.path.abspath(options.solution))
    try:
        prepare_out(out)
        grader = Grader(tree, out, work, options, hide)
        return run(grader, submissions, options)
    except GradingError as e:
        say("GRADING FAILED: %s" % e)
        return EXIT_GRADING


def failed_student(grader, name, folder, why):
    """A submission whose grading broke (a full disk, say): every exercise not graded, with why;
    the class goes on."""
    student = StudentResult(name, folder)
    student.not_graded = "the grading of this submission failed: %s" % why
    student.exercises = [ExerciseResult(e.name, e.points, [
        TestResult(r["test"], r["label"], "error", "not graded: " + student.not_graded)
        for r in e.runs]) for e in grader.exercises]
    return student


def run(grader, submissions, options):
    out = grader.out
    started = time.time()
    try:
        grader.setup()
        summary = ["homework tree: %s" % grader.tree,
                   "seed of the graded runs: %s" % grader.seed,
                   "isolation: %s" % grader.sandbox.describe()]
        if options.shard:
            summary.append("shard %d of %d" % options.shard)
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
                base = grader.baseline.get(e.name, {})
                summary.append("budget of %s: %s; slowest launch %.4g ms" % (
                    e.name, times_text(base.get("rows", {})), max(base.get("launches", [0]))))
        else:
            summary.append("time budgets: NOT CHECKED (no --solution: the worked examples' times "
                           "are the budgets' measure)")
        students = [None] * len(submissions)
        class_started = time.time()
        grader.ledger = Ledger()  # the class's time, not the worked examples'

        def one(i):
            name, folder = submissions[i]
            say("%s: grading %s" % (name, folder))
            try:
                student, graded = grader.grade(name, folder)
                write_student(out, student, graded)
            except OSError as e:  # a full disk, say: this submission's end, not the class's
                student = failed_student(grader, name, folder, e)
                try:
                    write_student(out, student, {})
                except OSError:
                    pass
            students[i] = student
            say("%s: %s/%s points; %s" % (name, results.fmt(student.points),
                                          results.fmt(student.max_points), student.verdict()),
                clock=True)

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

        # Twice as many submissions in flight as build trees: while some build, the others run
        # their tests, so that neither the cores nor the GPU wait for the other in waves (each
        # waits for a free build tree in run_in, and gives it back before its tests run).
        threads = [threading.Thread(target=loop) for _ in range(2 * max(1, options.jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        class_seconds = time.time() - class_started
    finally:
        if grader.sandbox:
            grader.sandbox.close()
    names = [e.name for e in grader.exercises]
    with open(os.path.join(out, "gradebook.csv"), "w", encoding="utf-8", newline="") as f:
        f.write(results.gradebook(students, names))
    pairs = len(students) * len(names)
    summary.append("graded %d submission(s) in %.0f s (the class, after the worked examples: "
                   "%.0f s, %.2f s per (student, exercise))"
                   % (len(students), time.time() - started, class_seconds,
                      class_seconds / pairs if pairs else 0.0))
    summary.append(grader.ledger.line())
    summary += ["%s: %s/%s; %s" % (s.name, results.fmt(s.points), results.fmt(s.max_points),
                                   s.verdict()) for s in students]
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(summary) + "\n")
    say(summary[-len(students) - 1] if students else summary[-1])
    say("gradebook: %s" % os.path.join(out, "gradebook.csv"))
    if grader.not_graded:
        return EXIT_NOT_GRADED
    return EXIT_FULL if all(s.points >= s.max_points - 1e-9 for s in students) else EXIT_LOST


if __name__ == "__main__":
    # Whatever the locale, printing never fails: what cannot be encoded is escaped.
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    sys.exit(main())
