#!/usr/bin/env python3
"""The grader's process isolation (grader/sandbox.py), without a GPU (label homework_scheme):

    python3 homework/tests/test_sandbox.py --work <folder>

In every mode the sandbox offers here: a run ends with everything it started in its process
group (a background child is gone the moment the run returns), a run past its time limit is
killed with its children, a grader that is killed takes its runs with it, the run's record goes
out and a replay comes in through pipes, its output is kept to its head and tail, and a program
in a private folder (mode 700, as root's home is) is staged where the run can reach it. As root,
also: the program runs as the unprivileged user and cannot write a folder of root's, nor read the
grader's files, nor regain root; and, where a PID namespace can be made, a process that left the
run's process group (setsid) is gone as well, the folders the grader hides (the class, the
worked examples) are empty to the run, and its /tmp is its own. A mode that cannot do one of
these must say so in describe().
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GRADER = os.path.join(os.path.dirname(HERE), "grader")
sys.path.insert(0, GRADER)
import sandbox  # noqa: E402
from checks import check, finish, run  # noqa: E402


def run_sh(box, script, timeout=20, **kwargs):
    rundir = box.folder()
    try:
        return box.run([box.stage_program("/bin/sh"), "-c", script], rundir,
                       box.environment(rundir, {}), timeout, **kwargs)
    finally:
        shutil.rmtree(rundir, ignore_errors=True)


def running(token):
    """The processes alive now (any user, any PID namespace) whose command line holds `token`.
    The runs below mark their processes with a token of their own in a `sleep` argument: no shared
    folder is needed, which the sandbox, hiding the class and giving each run its own /tmp,
    would not let them reach."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if token.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def gone(token, wait=1.5):
    time.sleep(wait)
    left = running(token)
    for pid in left:  # leave nothing behind, whatever the verdict
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return not left


def token():
    """A `sleep` of a length no other process on the machine has."""
    return "sleep 6.%06d" % random.randrange(10**6)


def modes(hide):
    yield "process group only", sandbox.Sandbox(use_pidns=False, use_user=False, hide=hide)
    if os.geteuid() == 0:
        yield "user, no PID namespace", sandbox.Sandbox(use_pidns=False, use_user=True, hide=hide)
        box = sandbox.Sandbox(hide=hide)
        if box.pidns:
            yield "user and PID namespace", box
        else:
            print("note: no PID namespace here (%s)" % "; ".join(box.notes))
            box.close()


# A grader that starts one long run and is then killed (kill -9): its run must not outlive it.
KILLED_GRADER = textwrap.dedent("""\
    import sys
    sys.path.insert(0, sys.argv[1])
    import sandbox
    box = sandbox.Sandbox(use_pidns=sys.argv[2] == "1", use_user=sys.argv[3] == "1")
    rundir = box.folder()
    print(box.stage, flush=True)
    box.run([box.stage_program("/bin/sh"), "-c", sys.argv[4]], rundir,
            box.environment(rundir, {}), 60)
    """)


def killed_grader(label, box):
    mark = token()
    proc = subprocess.Popen([sys.executable, "-c", KILLED_GRADER, GRADER,
                             "1" if box.pidns else "0", "1" if box.uid is not None else "0", mark],
                            stdout=subprocess.PIPE, encoding="utf-8")
    stage = proc.stdout.readline().strip()
    time.sleep(1.0)
    check(running(mark), "%s: the killed grader's run had started" % label)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    check(gone(mark, 2.0), "%s: a killed grader's run does not go on" % label)
    shutil.rmtree(stage, ignore_errors=True)


# A stand-in for common/grading.cpp's batch driver, in bash (sh's redirections take one-digit
# descriptors only): each run writes its arguments to its output and its record, returns with
# the status its first argument names, or sleeps past its time ("hang") or ends the process
# ("exit").
BATCH = r"""#!/bin/bash
status=${HOMEWORK_BATCH%% *}
printf '%s\n' "$HOMEWORK_BATCH" | tail -n +2 | {
  k=0
  while read -r out err tape what rest; do
    eval "echo out $what $rest >&$out; echo err $what >&$err; echo rec $what >&$tape"
    eval "exec $out>&- $err>&- $tape>&-"
    case $what in
      hang) sleep 30 ;;
      exit) exit 9 ;;
    esac
    echo "$k $what" >&"$status"
    k=$((k + 1))
  done
}
"""


def batch(label, box):
    """Several runs in one process: each its own output, record and status; a run that ends the
    process, or runs past its limit, ends the batch there, and the runs after it are not made."""
    rundir = box.folder()
    try:
        script = os.path.join(rundir, "batch.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(BATCH)
        os.chmod(script, 0o755)
        start = time.monotonic()
        results = box.run_batch(box.stage_program(script), [["0", "a"], ["1"], ["hang"], ["0"]],
                                rundir, box.environment(rundir, {}), 1.5,
                                record_limits=[1 << 20] * 4)
        check([r and (r.returncode, r.timed_out, r.ended_batch) for r in results] ==
              [(0, False, False), (1, False, False), (results[2].returncode, True, True), None],
              "%s: a batch's runs each return their own status, the one past its limit is "
              "stopped there and the rest are not made (%s)"
              % (label, [r and r.describe(1.5) for r in results]))
        check(time.monotonic() - start < 10, "%s: a batch past a run's limit stops" % label)
        check([r.stdout for r in results[:2]] == ["out 0 a\n", "out 1\n"] and
              [r.stderr for r in results[:2]] == ["err 0\n", "err 1\n"] and
              [r.record for r in results[:2]] == [b"rec 0\n", b"rec 1\n"],
              "%s: each run of a batch has its own output and record (%r)"
              % (label, [(r.stdout, r.record) for r in results[:2]]))
        results = box.run_batch(box.stage_program(script), [["0"], ["exit"], ["0"]], rundir,
                                box.environment(rundir, {}), 20, record_limits=[1 << 20] * 3)
        check([r and (r.returncode, r.ended_batch) for r in results] == [(0, False),
                                                                          (9, True), None],
              "%s: a run that ends the process ends the batch with its exit status (%s)"
              % (label, [r and r.describe(20) for r in results]))
    finally:
        shutil.rmtree(rundir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chmod(work, 0o755)
    private = os.path.join(work, "private")  # root's, as the grading output is
    os.makedirs(private)
    os.chmod(private, 0o755)
    secret = os.path.join(work, "class")  # a folder the grader hides: a classmate's file in it
    os.makedirs(secret)
    with open(os.path.join(secret, "classmate.cu"), "w", encoding="utf-8") as f:
        f.write("a classmate's answer\n")
    os.chmod(secret, 0o755)
    os.chmod(os.path.join(secret, "classmate.cu"), 0o644)
    home = os.path.join(work, "home")  # a private home folder, as root's is
    os.makedirs(home)
    shutil.copy2("/bin/true", os.path.join(home, "program"))
    os.chmod(home, 0o700)

    for label, box in modes([secret]):
        print("== %s: %s" % (label, box.describe()))
        # A child left in the background, in the run's group: gone when the run returns.
        mark = token()
        result = run_sh(box, "(%s) & exit 0" % mark)
        check(result.returncode == 0 and not result.timed_out, "%s: the run exits 0 (%s)"
              % (label, result.stderr))
        check(gone(mark, 0.5), "%s: its background child is gone with it" % label)
        # One that leaves the group: gone only with a PID namespace, which describe() says.
        mark = token()
        run_sh(box, "setsid sh -c '%s' & exit 0" % mark)
        if box.pidns:
            check(gone(mark, 0.5), "%s: a process that left its group is gone" % label)
        else:
            check("NOT FULLY ISOLATED" in box.describe() and "PID namespace" in box.describe(),
                  "%s: says that a process leaving its group could outlive the run" % label)
            gone(mark, 0)
        # Past its time: killed, children too.
        mark = token()
        start = time.monotonic()
        result = run_sh(box, "(%s) & sleep 30" % mark, timeout=1)
        check(result.timed_out and time.monotonic() - start < 10,
              "%s: a run past its limit is stopped (%s)" % (label, result.describe(1)))
        check(gone(mark, 0.5), "%s: and its children with it" % label)
        # A grader killed mid-run: the parent-death signal stops every step after it.
        killed_grader(label, box)
        # The record out and the replay in: pipes, whose descriptor the program is told.
        result = run_sh(box, 'echo recorded >&"${HOMEWORK_RECORD#fd:}"', record_limit=1 << 20)
        check(result.record == b"recorded\n" and not result.record_overflow,
              "%s: the run writes its record through the pipe (%r %s)"
              % (label, result.record, result.stderr))
        result = run_sh(box, 'yes 0123456789 >&"${HOMEWORK_RECORD#fd:}"', record_limit=50000)
        check(result.record_overflow and not result.timed_out,
              "%s: a record past its limit stops the run (%s)" % (label, result.describe(20)))
        result = run_sh(box, 'cat <&"${HOMEWORK_REPLAY#fd:}" | wc -c', replay=b"x" * 300000)
        check(result.stdout.strip() == "300000", "%s: the replay reads its whole record (%s)"
              % (label, result.stdout))
        batch(label, box)
        # Output is kept to its head and tail.
        result = run_sh(box, "yes 0123456789 | head -c 2000000")
        check(len(result.stdout) < 20000 and "bytes left out" in result.stdout,
              "%s: a long output is kept short (%d characters)" % (label, len(result.stdout)))
        # A program in a private home folder runs from the stage.
        rundir = box.folder()
        result = box.run([box.stage_program(os.path.join(home, "program"))], rundir,
                         box.environment(rundir, {}), 20)
        check(result.returncode == 0, "%s: a program from a folder of mode 700 runs (%s)"
              % (label, result.stderr.strip()))
        shutil.rmtree(rundir, ignore_errors=True)
        if box.uid is not None:
            result = run_sh(box, "id -u; touch %s/x; cat %s/*; echo done" % (private, home))
            check(result.stdout.split()[:1] == [str(box.uid)], "%s: runs as user %s"
                  % (label, box.user))
            check(not os.path.exists(os.path.join(private, "x")),
                  "%s: cannot write a folder of root's" % label)
            result = run_sh(box, "grep NoNewPrivs /proc/self/status")
            check(result.stdout.split()[-1:] == ["1"], "%s: cannot regain privileges (%s)"
                  % (label, result.stdout))
        else:
            check("NOT FULLY ISOLATED" in box.describe() and
                  "could write where grading writes" in box.describe(),
                  "%s: says that student code could write where grading writes" % label)
        # The class: hidden where there is a mount namespace, and describe() says so where not.
        result = run_sh(box, "cat %s/classmate.cu; ls %s; echo x > /tmp/pmpp-sandbox-probe"
                        % (secret, secret))
        if box.full():
            check("classmate" not in result.stdout,
                  "%s: a classmate's file is out of the run's reach (%s)" % (label, result.stdout))
            check(not os.path.exists("/tmp/pmpp-sandbox-probe"),
                  "%s: the run's /tmp is its own" % label)
        else:
            check("NOT FULLY ISOLATED" in box.describe(),
                  "%s: says that the class is within reach" % label)
        if os.path.exists("/tmp/pmpp-sandbox-probe"):
            os.remove("/tmp/pmpp-sandbox-probe")
        box.close()

    return finish("sandbox")


if __name__ == "__main__":
    run(main)
