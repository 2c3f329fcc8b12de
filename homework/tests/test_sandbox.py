#!/usr/bin/env python3
"""The grader's process isolation (grader/sandbox.py), without a GPU (label homework_scheme):

    python3 homework/tests/test_sandbox.py --work <folder>

In every mode the sandbox offers here: a run ends with everything it started in its process
group (a background child is gone the moment the run returns), a run past its time limit is
killed with its children, and the run's record reaches it as an inherited file descriptor. As
root, also: the program runs as the unprivileged user and cannot write a folder of root's, nor
open the grader's files, nor regain root; and, where a PID namespace can be made, a process that
left the run's process group (setsid) is gone as well. A mode that cannot stop such a process
must say so in describe().
"""

import argparse
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "grader"))
import sandbox  # noqa: E402
from checks import check, finish, run  # noqa: E402

def run_sh(box, work, script, timeout=20, pass_fds=(), extra=None):
    rundir = os.path.join(work, "run")
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    os.chmod(rundir, 0o711)
    env = box.environment(rundir, extra or {})
    result = box.run(["/bin/sh", "-c", script], rundir, env, os.path.join(rundir, "out"),
                     os.path.join(rundir, "err"), timeout, pass_fds=pass_fds)
    return result, sandbox.read_tail(os.path.join(rundir, "out")), \
        sandbox.read_tail(os.path.join(rundir, "err"))


def gone(marks, name, wait=1.5):
    time.sleep(wait)
    return not os.path.exists(os.path.join(marks, name))


def modes():
    yield "process group only", sandbox.Sandbox(use_pidns=False, use_user=False)
    if os.geteuid() == 0:
        yield "user, no PID namespace", sandbox.Sandbox(use_pidns=False, use_user=True)
        box = sandbox.Sandbox()
        if box.pidns:
            yield "user and PID namespace", box
        else:
            print("note: no PID namespace here (%s)" % "; ".join(box.notes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chmod(work, 0o755)
    marks = os.path.join(work, "marks")
    os.makedirs(marks)
    os.chmod(marks, 0o777)
    private = os.path.join(work, "private")  # root's, as the grading output is
    os.makedirs(private)
    os.chmod(private, 0o755)

    for label, box in modes():
        print("== %s: %s" % (label, box.describe()))
        for f in os.listdir(marks):
            os.remove(os.path.join(marks, f))
        # A child left in the background, in the run's group: gone when the run returns.
        result, _, _ = run_sh(box, work, "(sleep 1; touch %s/child) & exit 0" % marks)
        check(result.returncode == 0 and not result.timed_out, "%s: the run exits 0" % label)
        check(gone(marks, "child"), "%s: its background child is gone with it" % label)
        # One that leaves the group: gone only with a PID namespace, which describe() says.
        run_sh(box, work, "setsid sh -c 'sleep 1; touch %s/escaped' & exit 0" % marks)
        if box.pidns:
            check(gone(marks, "escaped"), "%s: a process that left its group is gone" % label)
        else:
            check("NOT FULLY ISOLATED" in box.describe() and "PID namespace" in box.describe(),
                  "%s: says that a process leaving its group could outlive the run" % label)
            time.sleep(1.5)
        # Past its time: killed, children too.
        start = time.monotonic()
        result, _, _ = run_sh(box, work, "(sleep 2; touch %s/late) & sleep 30" % marks,
                              timeout=1)
        check(result.timed_out and time.monotonic() - start < 10,
              "%s: a run past its limit is stopped (%s)" % (label, result.describe(1)))
        check(gone(marks, "late", 2.5), "%s: and its children with it" % label)
        # The record: an inherited descriptor onto a file of the grader's.
        record = os.path.join(work, "record")
        fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            result, out, err = run_sh(box, work, 'echo recorded >&%d; echo "$HOMEWORK_RECORD"'
                                      % fd, pass_fds=[fd], extra={"HOMEWORK_RECORD": "fd:%d" % fd})
        finally:
            os.close(fd)
        with open(record, encoding="utf-8") as f:
            check(f.read() == "recorded\n" and out.strip() == "fd:%d" % fd,
                  "%s: the run writes its record through the descriptor (%s %s)" % (label, out, err))
        if box.uid is not None:
            result, out, err = run_sh(box, work, "id -u; touch %s/x; cat %s; echo done"
                                      % (private, record))
            check(out.split()[0] == str(box.uid), "%s: runs as user %s" % (label, box.user))
            check(not os.path.exists(os.path.join(private, "x")),
                  "%s: cannot write a folder of root's" % label)
            check("recorded" not in out, "%s: cannot read the grader's files" % label)
            result, out, err = run_sh(box, work, "grep NoNewPrivs /proc/self/status")
            check(out.split()[-1:] == ["1"], "%s: cannot regain privileges (%s)" % (label, out))
        else:
            check("NOT FULLY ISOLATED" in box.describe() and
                  "could write where grading writes" in box.describe(),
                  "%s: says that student code could write where grading writes" % label)
        # Output is capped at the file size limit, and read back with its middle cut.
        result, out, _ = run_sh(box, work, "yes 0123456789 | head -c 200000")
        check(len(out) < 20000 and "bytes left out" in out,
              "%s: a long output is kept short (%d characters)" % (label, len(out)))

    return finish("sandbox")


if __name__ == "__main__":
    run(main)
