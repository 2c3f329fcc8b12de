"""What the homework scheme's tests share: check() prints a line per condition and keeps the ones
that failed; finish() prints the verdict and returns the exit status; run() runs a test's main."""

import sys

failures = []


def check(condition, what):
    print(("ok: " if condition else "FAILED: ") + what)
    if not condition:
        failures.append(what)


def finish(verdict):
    """0 when every check passed ("<verdict>: every check passed"), else 1."""
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("%s: every check passed" % verdict)
    return 0


def run(main):
    # Whatever the locale, printing never fails: what cannot be encoded is escaped.
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.exit(main())
