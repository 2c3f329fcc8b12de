#!/usr/bin/env python3
"""Points the Colab badge and the notebook at the GitHub repository this clone comes from.

    python3 scripts/repo_url.py                write them from `git remote get-url origin`
    python3 scripts/repo_url.py --url URL      ... from another address (https or ssh form)
    python3 scripts/repo_url.py --check        only check that the committed files agree

The README's "Open in Colab" badge and REPO_URL in the first cell of notebooks/pmpp_colab.ipynb
(which the notebook clones when Colab opens it alone) must name the repository it is published
as. Whoever publishes or forks the repository runs this once and commits the two files; CI runs
--check, which fails (with this command as the fix) where the origin remote is on GitHub and the
files name another repository. With no remote, or one elsewhere (a local path, another host:
Colab opens notebooks from GitHub only), the files keep what they say, and the notebook tells a
reader how to get in: upload the repository as a zip, set REPO_URL, or set PMPP_REPO_DIR.
Only the owner and name of the address are written, never credentials it may hold.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = "README.md"
NOTEBOOK = "notebooks/pmpp_colab.ipynb"
PLACEHOLDER = ("OWNER", "REPO")
BADGE = re.compile(r"https://colab\.research\.google\.com/github/([\w.-]+)/([\w.-]+)/blob/"
                   r"([\w./-]+?)/notebooks/pmpp_colab\.ipynb")
REPO_URL = re.compile(r'(REPO_URL = \\"https://github\.com/)([\w.-]+)/([\w.-]+?)(\.git\\")')
GITHUB = re.compile(r"^(?:https?://(?:[^@/]+@)?github\.com/|git@github\.com:|"
                    r"ssh://git@github\.com(?::\d+)?/)([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def github_repo(url):
    """(owner, name) of a GitHub address, or None for any other."""
    m = GITHUB.match(url.strip())
    return (m[1], m[2]) if m else None


def origin(root):
    """The origin remote's address, or None."""
    r = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                       capture_output=True, encoding="utf-8", errors="replace")
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def default_branch(root):
    """origin's default branch where git knows it (origin/HEAD), else main."""
    r = subprocess.run(["git", "-C", str(root), "symbolic-ref", "--short",
                        "refs/remotes/origin/HEAD"], capture_output=True, encoding="utf-8")
    return r.stdout.strip().split("/", 1)[-1] if r.returncode == 0 and r.stdout.strip() else "main"


def named(root):
    """What the files name: {file: (owner, name)}; a file without its line is missing."""
    found = {}
    m = BADGE.search((root / README).read_text(encoding="utf-8"))
    if m:
        found[README] = (m[1], m[2])
    m = REPO_URL.search((root / NOTEBOOK).read_text(encoding="utf-8"))
    if m:
        found[NOTEBOOK] = (m[2], m[3])
    return found


def write(root, owner, name, branch):
    readme = root / README
    text = readme.read_text(encoding="utf-8")
    new = BADGE.sub(f"https://colab.research.google.com/github/{owner}/{name}/blob/{branch}/"
                    f"notebooks/pmpp_colab.ipynb", text, count=1)
    readme.write_text(new, encoding="utf-8", newline="")
    notebook = root / NOTEBOOK
    text = notebook.read_text(encoding="utf-8")
    # The notebook's JSON text is edited in place (the cell's string, quotes escaped), so that
    # nothing else in the file changes.
    new_nb = REPO_URL.sub(lambda m: f"{m[1]}{owner}/{name}{m[4]}", text, count=1)
    notebook.write_text(new_nb, encoding="utf-8", newline="")
    return new != text or new_nb != text


def check(root):
    found = named(root)
    for f in (README, NOTEBOOK):
        if f not in found:
            print(f"repo_url: {f} has no line to check (the badge, or REPO_URL in the first "
                  f"cell): restore it")
            return 1
    url = origin(root)
    remote = github_repo(url) if url else None
    fix = "run `python3 scripts/repo_url.py` and commit README.md and the notebook"
    if remote is None:
        if found[README] != found[NOTEBOOK]:
            print(f"repo_url: the badge names {'/'.join(found[README])}, the notebook's REPO_URL "
                  f"{'/'.join(found[NOTEBOOK])}: `python3 scripts/repo_url.py --url <address>`")
            return 1
        where = "no origin remote" if url is None else f"origin is not on GitHub ({url})"
        print(f"repo_url: {where}; the badge and REPO_URL name "
              f"{'/'.join(found[README])} as committed (the notebook says how to get in "
              f"without them)")
        return 0
    wrong = [f for f in (README, NOTEBOOK) if tuple(map(str.lower, found[f])) !=
             tuple(map(str.lower, remote))]
    if wrong:
        for f in wrong:
            print(f"repo_url: {f} names {'/'.join(found[f])}, but origin is "
                  f"github.com/{'/'.join(remote)}: {fix}")
        return 1
    print(f"repo_url: the badge and REPO_URL name github.com/{'/'.join(remote)}, as origin does")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="the repository's GitHub address (default: origin's)")
    parser.add_argument("--branch", help="the branch the badge opens (default: origin's "
                                         "default branch, else main)")
    parser.add_argument("--check", action="store_true", help="only check the committed files")
    parser.add_argument("--root", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check:
        return check(args.root)
    url = args.url or origin(args.root)
    if url is None:
        print("repo_url: no origin remote; give the address: --url https://github.com/<owner>/"
              "<name>")
        return 2
    repo = github_repo(url)
    if repo is None:
        print(f"repo_url: {url} is not a GitHub address; Colab opens notebooks from GitHub only "
              f"(give --url https://github.com/<owner>/<name>)")
        return 2
    branch = args.branch or default_branch(args.root)
    changed = write(args.root, *repo, branch)
    print(f"repo_url: the badge and REPO_URL name github.com/{'/'.join(repo)} (branch {branch})"
          f"{'' if changed else ', as they did'}; commit {README} and {NOTEBOOK}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
