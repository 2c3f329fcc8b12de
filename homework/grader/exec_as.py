"""The steps between the grader and a student's program (sandbox.py starts them). Python 3
standard library only; Linux.

    python3 -I exec_as.py guard --ppid P -- COMMAND...
        dies with the grader: asks the kernel for SIGKILL when its parent goes
        (PR_SET_PDEATHSIG), checks that the parent is still P, then executes COMMAND (the
        `unshare` that makes the PID namespace, or the next step), which keeps that request;

    python3 -I exec_as.py run [--uid U --gid G] [--hide DIR]... [--private-tmp --keep DIR...]
                              --cwd DIR --fsize BYTES -- PROGRAM ARGS...
        the last step (inside the PID and mount namespaces where there are): hides every --hide
        folder under an empty read-only file system, gives /tmp, /var/tmp and /dev/shm a small
        private one of their own (--private-tmp; the --keep folders stay visible at their
        paths), sets the resource limits (no core file, no file larger than BYTES, with --uid at
        most 1024 processes of that user), drops to the user (no supplementary groups, then the
        group, then the user, so that none of root's stays), asks again for SIGKILL when its
        parent goes (a change of user clears that request), forbids gaining privileges
        (no_new_privs), changes to DIR and executes PROGRAM.

Exit status 125: a step failed before PROGRAM started (the reason on stderr).
"""

import ctypes
import os
import resource
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
PRIVATE_TMP = ("/tmp", "/var/tmp", "/dev/shm")
PRIVATE_TMP_SIZE = "64m"

libc = ctypes.CDLL(None, use_errno=True)


class StepError(Exception):
    pass


def prctl(option, value):
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise StepError("prctl(%d): %s" % (option, os.strerror(ctypes.get_errno())))


def mount(source, target, fstype, flags, data=None):
    if libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                  ctypes.c_ulong(flags), data.encode() if data else None) != 0:
        raise StepError("mount %s on %s: %s" % (source, target,
                                                os.strerror(ctypes.get_errno())))


def guard(options, command):
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != int(options["--ppid"][0]):
        raise StepError("the grader is gone")
    os.execvp(command[0], command)


def hide(folders, keep, private_tmp):
    """In this mount namespace (unshare made it, private): every folder of `folders` empty and
    read-only; /tmp, /var/tmp and /dev/shm each a small fresh tmpfs, in which the `keep` folders
    are bound back at their own paths."""
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    kept = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in keep]
    for folder in folders:
        if os.path.isdir(folder):
            mount("tmpfs", folder, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=4k,mode=000")
    if private_tmp:
        for folder in PRIVATE_TMP:
            if os.path.isdir(folder) and not os.path.islink(folder):
                mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV,
                      "size=%s,mode=1777" % PRIVATE_TMP_SIZE)
        for path, fd in kept:
            os.makedirs(path, mode=0o711, exist_ok=True)
            mount("/proc/self/fd/%d" % fd, path, None, MS_BIND | MS_REC)
    for _, fd in kept:
        os.close(fd)


def run(options, program):
    hidden = options.get("--hide", [])
    if hidden or "--private-tmp" in options:
        hide(hidden, options.get("--keep", []), "--private-tmp" in options)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    fsize = int(options["--fsize"][0])
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    if "--uid" in options:
        uid, gid = int(options["--uid"][0]), int(options["--gid"][0])
        resource.setrlimit(resource.RLIMIT_NPROC, (1024, 1024))
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        if os.getuid() != uid or os.geteuid() != uid:
            raise StepError("could not become user %d" % uid)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    os.chdir(options["--cwd"][0])
    os.execv(program[0], program)


def parse(argv):
    options = {}
    i = 0
    while i < len(argv) and argv[i] != "--":
        key = argv[i]
        if key == "--private-tmp":
            options[key] = []
            i += 1
            continue
        if i + 1 >= len(argv):
            raise StepError("%s needs a value" % key)
        options.setdefault(key, []).append(argv[i + 1])
        i += 2
    return options, argv[i + 1:]


def main(argv):
    try:
        if not argv or argv[0] not in ("guard", "run"):
            raise StepError("the first word is guard or run")
        options, command = parse(argv[1:])
        if not command:
            raise StepError("no program")
        (guard if argv[0] == "guard" else run)(options, command)
    except (StepError, OSError) as e:
        sys.stderr.write("exec_as.py %s: %s\n" % (argv[0] if argv else "", e))
    return 125


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
