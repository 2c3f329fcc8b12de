"""The last step before a student's program runs (sandbox.py starts it, inside the PID namespace
where there is one):

    python3 -I exec_as.py [--uid U --gid G] --cwd DIR --fsize BYTES -- PROGRAM ARGS...

sets the resource limits (no core file, files no larger than BYTES, with --uid at most 1024
processes of that user), drops to the user (no supplementary groups, then the group, then the
user, so that none of root's stays), forbids gaining privileges again (no_new_privs: no setuid
program helps), changes to DIR and executes PROGRAM. Python 3 standard library only.
"""

import ctypes
import os
import resource
import sys

PR_SET_NO_NEW_PRIVS = 38


def main(argv):
    uid = gid = None
    cwd, fsize = "/", None
    i = 0
    while i < len(argv) and argv[i] != "--":
        key, value = argv[i], argv[i + 1]
        if key == "--uid":
            uid = int(value)
        elif key == "--gid":
            gid = int(value)
        elif key == "--cwd":
            cwd = value
        elif key == "--fsize":
            fsize = int(value)
        else:
            sys.stderr.write("exec_as.py: unknown option %s\n" % key)
            return 125
        i += 2
    program = argv[i + 1:]
    if not program:
        sys.stderr.write("exec_as.py: no program\n")
        return 125
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if fsize:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    if uid is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (1024, 1024))
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        if os.getuid() != uid or os.geteuid() != uid:
            sys.stderr.write("exec_as.py: could not become user %d\n" % uid)
            return 125
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the user alone must do
    os.chdir(cwd)
    os.execv(program[0], program)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
