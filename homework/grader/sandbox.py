"""How the grader runs a program built with student code: nothing it starts outlives its test,
and nothing it runs can write where grading writes. Python 3 standard library only.

Every run gets its own session and process group, and the whole group is killed when the run
ends or its time is up. Where the grader runs as root (as hosted graders do) it does more:
  - the program runs as an unprivileged user (--run-as, default nobody), with no supplementary
    groups and no way to regain privileges (exec_as.py), so that the homework tree, the builds
    and the grading output, which belong to root, are not writable by it; its record and its
    output go to files that root opened for it (inherited descriptors), which it cannot reopen;
  - the program runs in its own PID namespace (`unshare --pid --fork --kill-child
    --mount-proc`), where it is process 1: when it ends, or is killed, the kernel kills every
    process it left, even one that left its process group; it sees no other process.
Where one of these is not available the Sandbox says so (describe()), and the grader writes that
into every verdict instead of trusting silently.
"""

import os
import pwd
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PASS_ENV = ("PATH", "LD_LIBRARY_PATH")  # and every CUDA_* and NVIDIA_* variable


class RunResult:
    def __init__(self, returncode, timed_out, seconds):
        self.returncode, self.timed_out, self.seconds = returncode, timed_out, seconds

    def describe(self, timeout):
        if self.timed_out:
            return "timed out after %g s" % timeout
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = "signal %d" % -self.returncode
            return "killed by %s" % name
        return "exit %d" % self.returncode


class Sandbox:
    def __init__(self, run_as=None, use_pidns=True, use_user=True):
        self.root = os.geteuid() == 0
        self.uid = self.gid = None
        self.user = None
        self.notes = []
        if self.root and use_user:
            name = run_as or "nobody"
            try:
                entry = pwd.getpwnam(name)
            except KeyError:
                raise SystemExit("grade.py: --run-as: no user %s on this machine" % name)
            if entry.pw_uid == 0:
                raise SystemExit("grade.py: --run-as %s is root" % name)
            self.user, self.uid, self.gid = name, entry.pw_uid, entry.pw_gid
        self.pidns = False
        if use_pidns:
            self.pidns, why = self.probe_pidns()
            if not self.pidns:
                self.notes.append("no PID namespace (%s)" % why)

    @staticmethod
    def probe_pidns():
        if os.geteuid() != 0:
            return False, "the grader does not run as root"
        try:
            done = subprocess.run(["unshare", "--pid", "--fork", "--kill-child", "--mount-proc",
                                   "--", "true"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as e:
            return False, "unshare: %s" % e
        if done.returncode != 0:
            return False, "unshare: %s" % done.stderr.decode(errors="replace").strip()
        return True, ""

    def full(self):
        return self.uid is not None and self.pidns

    def describe(self):
        """One line for the verdicts: what isolation student code ran under."""
        if self.full():
            return ("isolated: each run as user %s in its own PID namespace, killed whole at its "
                    "end; the homework tree and the grading output are not writable by it"
                    % self.user)
        parts = []
        if self.uid is not None:
            parts.append("runs as user %s (the homework tree and the grading output are not "
                         "writable by it)" % self.user)
        else:
            who = pwd.getpwuid(os.geteuid()).pw_name
            parts.append("runs as the grader's own user %s, so student code could write where "
                         "grading writes%s" % (who, "" if self.root else " (run the grader as "
                                               "root to run it as an unprivileged user)"))
        if self.pidns:
            parts.append("in its own PID namespace, killed whole at its end")
        else:
            parts.append("in its own process group, killed whole at its end, but without a PID "
                         "namespace a process that leaves its group could outlive its test")
        notes = "; ".join(self.notes)
        return "NOT FULLY ISOLATED: student code %s%s" % (", ".join(parts),
                                                           " (%s)" % notes if notes else "")

    def environment(self, home, extra):
        env = {key: value for key, value in os.environ.items()
               if key in PASS_ENV or key.startswith(("CUDA_", "NVIDIA_"))}
        env.update({"HOME": home, "LANG": "C", "LC_ALL": "C", "TMPDIR": home})
        env.update(extra)
        return env

    def run(self, argv, cwd, env, stdout_path, stderr_path, timeout, pass_fds=(),
            fsize=8 << 30):
        """Runs argv; its output goes to the two files (created here, mode 0600). Returns a
        RunResult once the run and everything it started are gone."""
        shim = [sys.executable, "-I", os.path.join(HERE, "exec_as.py"), "--cwd", cwd,
                "--fsize", str(fsize)]
        if self.uid is not None:
            shim += ["--uid", str(self.uid), "--gid", str(self.gid)]
        command = shim + ["--"] + list(argv)
        if self.pidns:
            command = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--"] + command
        start = time.monotonic()
        with open_private(stdout_path) as out, open_private(stderr_path) as err:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    env=env, pass_fds=tuple(pass_fds), close_fds=True,
                                    start_new_session=True)
            timed_out = False
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                kill_group(proc.pid)
                proc.wait()
        return RunResult(proc.returncode, timed_out, time.monotonic() - start)


def open_private(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "wb")


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def read_tail(path, limit=16384):
    """The text of an output file, its middle cut when longer than `limit` bytes."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if size <= limit:
                data = f.read()
            else:
                head = f.read(limit // 4)
                f.seek(size - 3 * limit // 4)
                data = head + b"\n[... %d bytes left out ...]\n" % (size - limit) + f.read()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")
