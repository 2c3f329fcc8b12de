"""How the grader runs a program built with student code: nothing it starts outlives its test or
the grader, nothing it runs can write where grading writes or read another student's work, and
nothing it prints can fill the disk. Python 3 standard library only; Linux.

Every run gets its own session and process group, killed whole when the run ends or its time is
up; the program's output and its grading record come back through pipes, kept to a bound (the
head and the tail of the output; a record over its limit stops the run), never through files.
Every step between the grader and the program asks the kernel to kill it when its parent goes
(exec_as.py), so a grader that is killed takes its runs with it. Where the grader runs as root (as
hosted graders do) it does more:
  - the program runs as an unprivileged user (--run-as, default nobody), with no supplementary
    groups and no way to regain privileges, so that the homework tree, the builds and the grading
    output, which belong to root, are not writable by it;
  - in its own PID namespace (`unshare --pid --fork --kill-child --mount-proc`), where it is
    process 1: when it ends, or is killed, the kernel kills every process it left; it sees no
    other process;
  - in its own mount namespace, where the folders the grader names (the class, the worked
    examples, the homework tree, the builds, the grading output) are empty, and /tmp, /var/tmp
    and /dev/shm are small and its own: a run sees its own program and its own folder, and
    nothing of the class.
The programs and the runs' folders are staged where the sandbox's user can reach them (a folder
of the grader's under the system's temporary folder, not the repository, which may sit in a
private home folder). Where one of these is not available the Sandbox says so (describe()), and
the grader writes that into every verdict instead of trusting silently.
"""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PASS_ENV = ("PATH", "LD_LIBRARY_PATH")  # and every CUDA_* and NVIDIA_* variable
OUTPUT_HEAD, OUTPUT_TAIL = 4096, 12288  # what is kept of a student's output
MAX_FILE = 64 << 20  # the largest file a run may write (its own /tmp is as small)


class RunResult:
    def __init__(self, returncode, timed_out, seconds, stdout, stderr, record=None,
                 record_overflow=False):
        self.returncode, self.timed_out, self.seconds = returncode, timed_out, seconds
        self.stdout, self.stderr = stdout, stderr
        self.record, self.record_overflow = record, record_overflow

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


class Capture(threading.Thread):
    """Reads a pipe to its end, keeping its first `head` and last `tail` bytes (all of it when
    tail is None, up to `limit`: past that the pipe is closed, and the writer stops)."""

    def __init__(self, fd, head=OUTPUT_HEAD, tail=OUTPUT_TAIL, limit=None):
        super().__init__(daemon=True)
        self.fd, self.head_size, self.tail_size, self.limit = fd, head, tail, limit
        self.head, self.tail = bytearray(), bytearray()
        self.total = 0
        self.overflow = False
        self.start()

    def run(self):
        try:
            while True:
                chunk = os.read(self.fd, 1 << 16)
                if not chunk:
                    break
                self.total += len(chunk)
                if self.tail_size is None:
                    if self.limit is not None and self.total > self.limit:
                        self.overflow = True
                        break
                    self.head += chunk
                    continue
                room = self.head_size - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                self.tail += chunk
                if len(self.tail) > self.tail_size:
                    del self.tail[:len(self.tail) - self.tail_size]
        except OSError:
            pass
        finally:
            os.close(self.fd)

    def data(self):
        """What was kept (the caller waits for the end of the pipe, or gives up on it)."""
        if self.tail_size is None:
            return bytes(self.head)
        left_out = self.total - len(self.head) - len(self.tail)
        middle = b"\n[... %d bytes left out ...]\n" % left_out if left_out > 0 else b""
        return bytes(self.head) + middle + bytes(self.tail)

    def text(self):
        return self.data().decode("utf-8", errors="replace")


class Feed(threading.Thread):
    """Writes `data` into a pipe and closes it; a reader that stops early is no error."""

    def __init__(self, fd, data):
        super().__init__(daemon=True)
        self.fd, self.data = fd, data
        self.start()

    def run(self):
        try:
            view = memoryview(self.data)
            while view:
                view = view[os.write(self.fd, view[:1 << 16]):]
        except OSError:
            pass
        finally:
            os.close(self.fd)


class Status(threading.Thread):
    """Reads a batch's status descriptor: "<run> <exit status>" a line, each with the moment it
    came (a run's time is from the previous run's end to its own)."""

    def __init__(self, fd):
        super().__init__(daemon=True)
        self.fd = fd
        self.lock = threading.Lock()
        self.lines = []  # (exit status, time.monotonic() when it came)
        self.start()

    def run(self):
        pending = b""
        try:
            while len(self.lines) < 1 << 16:
                chunk = os.read(self.fd, 4096)
                if not chunk:
                    break
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    fields = line.split()
                    if len(fields) != 2 or not fields[1].lstrip(b"-").isdigit():
                        return  # not the driver's: nothing more from it is believed
                    with self.lock:
                        self.lines.append((int(fields[1]), time.monotonic()))
        except OSError:
            pass
        finally:
            os.close(self.fd)

    def returned(self):
        with self.lock:
            return list(self.lines)


class Sandbox:
    def __init__(self, run_as=None, use_pidns=True, use_user=True, hide=()):
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
        # Folders no run may see: only where the PID namespace brings a mount namespace.
        self.hidden = sorted({os.path.realpath(p) for p in hide if os.path.isdir(p)})
        self.hiding = bool(self.pidns)
        if not self.hiding and self.hidden:
            self.notes.append("the class and the worked examples are not hidden from the runs "
                              "(no mount namespace)")
        self.stage = tempfile.mkdtemp(prefix="homework-runs-", dir=self.stage_base())
        os.chmod(self.stage, 0o711)

    def stage_base(self):
        """A temporary folder outside every hidden one (the programs and runs live there)."""
        for base in (tempfile.gettempdir(), "/tmp", "/var/tmp"):
            real = os.path.realpath(base)
            if os.path.isdir(real) and not any(real == h or real.startswith(h + os.sep)
                                               for h in self.hidden):
                return real
        raise SystemExit("grade.py: no temporary folder outside the folders the runs must not "
                         "see (%s): set TMPDIR" % ", ".join(self.hidden))

    def close(self):
        shutil.rmtree(self.stage, ignore_errors=True)

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
        return self.uid is not None and self.pidns and self.hiding

    def describe(self):
        """One line for the verdicts: what isolation student code ran under."""
        if self.full():
            return ("isolated: each run as user %s in its own PID and mount namespaces, killed "
                    "whole at its end, seeing its own program and folder and none of the class; "
                    "the homework tree and the grading output are not writable by it"
                    % self.user)
        parts = []
        if self.uid is not None:
            parts.append("runs as user %s (the homework tree and the grading output are not "
                         "writable by it)" % self.user)
        else:
            who = pwd.getpwuid(os.geteuid()).pw_name
            parts.append("runs as the grader's own user %s, so student code could write where "
                         "grading writes and read the class%s" % (
                             who, "" if self.root else " (run the grader as root to run it as "
                             "an unprivileged user)"))
        if self.pidns:
            parts.append("in its own PID namespace, killed whole at its end")
        else:
            parts.append("in its own process group, killed whole at its end, but without a PID "
                         "namespace a process that leaves its group could outlive its test")
        notes = "; ".join(self.notes)
        return "NOT FULLY ISOLATED: student code %s%s" % (", ".join(parts),
                                                           " (%s)" % notes if notes else "")

    def folder(self):
        """A new folder for one program or one run, where the sandbox's user can reach it."""
        path = tempfile.mkdtemp(dir=self.stage)
        os.chmod(path, 0o711)
        return path

    def stage_program(self, program):
        """A copy of `program` in a folder of its own under the stage (readable and executable
        by the sandbox's user wherever the original lies)."""
        folder = self.folder()
        copy = os.path.join(folder, os.path.basename(program))
        shutil.copy2(program, copy)
        os.chmod(copy, 0o755)
        return copy

    def environment(self, home, extra, timed=False):
        """A run's environment. A timed run loads every kernel when its CUDA context is made
        (EAGER), so that no launch it times, the first included, pays for loading its kernel; the
        other runs and every check load a kernel at its first launch (LAZY), which makes their
        contexts cheaper: their times are not held to a budget."""
        env = {key: value for key, value in os.environ.items()
               if key in PASS_ENV or key.startswith(("CUDA_", "NVIDIA_"))}
        env.update({"HOME": home, "LANG": "C", "LC_ALL": "C", "TMPDIR": "/tmp",
                    "CUDA_MODULE_LOADING": "EAGER" if timed else "LAZY"})
        env.update(extra)
        return env

    def command(self, argv, cwd):
        """The steps that start argv (a program under the stage) in cwd, isolated."""
        step = [sys.executable, "-I", os.path.join(HERE, "exec_as.py")]
        command = step + ["run", "--cwd", cwd, "--fsize", str(MAX_FILE)]
        if self.uid is not None:
            command += ["--uid", str(self.uid), "--gid", str(self.gid)]
        if self.pidns:
            if self.hiding:
                for folder in self.hidden:
                    command += ["--hide", folder]
                command += ["--private-tmp", "--keep", os.path.dirname(argv[0]), "--keep", cwd]
            command = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--"] + \
                command
        return step + ["guard", "--ppid", str(os.getpid()), "--"] + command + ["--"] + list(argv)

    def run_batch(self, program, runs, cwd, env, timeout, record_limits=None, replays=None,
                  trusted=False):
        """Runs `program` once for several runs in one process (HOMEWORK_BATCH, see
        common/grading.cpp): runs[k] is run k's arguments; with record_limits run k records (at
        most record_limits[k] bytes), with replays it replays replays[k]. Each run has its own
        output, record and time limit (timeout seconds from its start). Returns one RunResult a
        run, None for each run the process did not reach; the run it ended in (exit(), a crash,
        its time limit) gets the process's end."""
        env = dict(env)
        size = (1 << 20, 0) if trusted else (OUTPUT_HEAD, OUTPUT_TAIL)
        status_r, status_w = os.pipe()
        child, mine = [status_w], [status_r]  # descriptors: the program's ends, the grader's
        lines = ["%d %s" % (status_w, "record" if replays is None else "replay")]
        try:
            for args in runs:
                if any(not a or any(c.isspace() for c in a) for a in args):
                    raise ValueError("a batch's arguments hold no spaces: %r" % (args,))
                out_r, out_w = os.pipe()
                err_r, err_w = os.pipe()
                tape_r, tape_w = os.pipe()
                tape = tape_w if replays is None else tape_r
                child += [out_w, err_w, tape]
                mine += [out_r, err_r, tape_r if replays is None else tape_w]
                lines.append(" ".join(["%d %d %d" % (out_w, err_w, tape)] + list(args)))
            env["HOMEWORK_BATCH"] = "\n".join(lines)
            # What the process prints outside its runs (a step that fails before the program,
            # what it prints before the first run or after it ended one): the run it ended in.
            rest_r, rest_w = os.pipe()
            child.append(rest_w)
            mine.append(rest_r)
            start = time.monotonic()
            proc = subprocess.Popen(self.command([program], cwd), stdin=subprocess.DEVNULL,
                                    stdout=rest_w, stderr=rest_w, env=env,
                                    pass_fds=tuple(child), close_fds=True,
                                    start_new_session=True)
        except BaseException:
            for fd in child + mine:
                os.close(fd)
            raise
        for fd in child:
            os.close(fd)
        status = Status(mine[0])
        rest = Capture(mine.pop())
        out = [Capture(fd, *size) for fd in mine[1::3]]
        err = [Capture(fd, *size) for fd in mine[2::3]]
        tapes = [Capture(fd, tail=None, limit=record_limits[k]) if replays is None else
                 Feed(fd, replays[k]) for k, fd in enumerate(mine[3::3])]
        timed_out = False
        while True:
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            returned = status.returned()
            now = time.monotonic()
            # Each run its limit from its start; the whole at most every run's limit (the
            # status lines are the program's: they cannot buy it more time than that).
            if now - (returned[-1][1] if returned else start) > timeout or \
                    now - start > timeout * len(runs) or len(returned) > len(runs):
                timed_out = True
                break
        kill_group(proc.pid)
        proc.wait()
        end = time.monotonic()
        status.join(timeout=5)
        for capture in out + err + (tapes if replays is None else []) + [rest]:
            capture.join(timeout=5)
        returned = status.returned()
        results, previous = [], start
        for k in range(len(runs)):
            if k < len(returned):
                code, at, late = returned[k][0], returned[k][1], False
            elif k == len(returned):  # the run the process ended in
                code, at, late = proc.returncode, end, timed_out
            else:
                results.append(None)
                continue
            record = tapes[k] if replays is None else None
            errors = err[k].text() + (rest.text() if k == len(returned) else "")
            result = RunResult(code, late, at - previous, out[k].text(), errors,
                               record.data() if record else None,
                               bool(record and record.overflow))
            result.ended_batch = k == len(returned)  # the run the process ended in
            results.append(result)
            previous = at
        return results

    def run(self, argv, cwd, env, timeout, record_limit=None, replay=None, trusted=False):
        """Runs argv (a program under the stage) in `cwd` (a folder under the stage). With
        record_limit, the program writes its grading record into a pipe (HOMEWORK_RECORD=fd:N),
        read back up to that many bytes; with replay (bytes), it reads one from a pipe
        (HOMEWORK_REPLAY=fd:N). The output of a `trusted` program (the homework tree's own) is
        kept up to 1 MiB, a student's to its head and tail. Returns a RunResult once the run and
        everything it started are gone."""
        env = dict(env)
        pass_fds, parent_ends, record = [], [], None
        if record_limit is not None:
            r, w = os.pipe()
            pass_fds.append(w)
            parent_ends.append(r)
            env["HOMEWORK_RECORD"] = "fd:%d" % w
        elif replay is not None:
            r, w = os.pipe()
            pass_fds.append(r)
            parent_ends.append(w)
            env["HOMEWORK_REPLAY"] = "fd:%d" % r
        command = self.command(argv, cwd)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        start = time.monotonic()
        try:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w,
                                    env=env, pass_fds=tuple(pass_fds), close_fds=True,
                                    start_new_session=True)
        finally:
            for fd in [out_w, err_w] + pass_fds:
                os.close(fd)
        size = (1 << 20, 0) if trusted else (OUTPUT_HEAD, OUTPUT_TAIL)
        out = Capture(out_r, *size)
        err = Capture(err_r, *size)
        if record_limit is not None:
            record = Capture(parent_ends[0], tail=None, limit=record_limit)
        elif replay is not None:
            Feed(parent_ends[0], replay)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            kill_group(proc.pid)
            proc.wait()
        seconds = time.monotonic() - start
        # A process that left the group (without a PID namespace) could hold a pipe open: the
        # readers stop waiting for it after a moment.
        for capture in (out, err) + ((record,) if record else ()):
            capture.join(timeout=5)
        return RunResult(proc.returncode, timed_out, seconds, out.text(), err.text(),
                         record.data() if record else None,
                         bool(record and record.overflow))


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
