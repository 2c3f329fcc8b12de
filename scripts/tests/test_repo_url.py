#!/usr/bin/env python3
"""scripts/repo_url.py in scratch clones of README.md and the notebook with different remotes:
it writes the badge and REPO_URL from a GitHub origin (https, ssh and scp forms; credentials
never written), --check fails with the fix where they disagree with a GitHub origin and passes
without one, and the notebook stays clean."""
import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import stubs
from stubs import check

SCRIPT = stubs.REPO / "scripts" / "repo_url.py"
BADGE = "https://colab.research.google.com/github/{}/blob/{}/notebooks/pmpp_colab.ipynb"
CLONE = 'REPO_URL = \\"https://github.com/{}.git\\"'


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def tree(work, name, remote=None):
    root = Path(work) / name
    (root / "notebooks").mkdir(parents=True)
    for f in ("README.md", "notebooks/pmpp_colab.ipynb"):
        shutil.copy(stubs.REPO / f, root / f)
    git(root, "init", "--quiet")
    if remote:
        git(root, "remote", "add", "origin", remote)
    return root


def repo_url(root, *args):
    r = subprocess.run([sys.executable, SCRIPT, "--root", root, *args], capture_output=True,
                       encoding="utf-8")
    print(f"$ repo_url.py {' '.join(args)} (exit {r.returncode})\n{r.stdout}{r.stderr}", end="")
    return r.returncode, r.stdout


def texts(root):
    return ((root / "README.md").read_text(encoding="utf-8"),
            (root / "notebooks" / "pmpp_colab.ipynb").read_text(encoding="utf-8"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="repo_url_test_"))
    shutil.rmtree(work, ignore_errors=True)
    readme0, notebook0 = texts(tree(work, "original"))

    root = tree(work, "none")
    code, _ = repo_url(root, "--check")
    check(code == 0, "no remote: --check passes on the committed files")
    code, out = repo_url(root)
    check(code == 2 and "--url" in out, "no remote: writing asks for --url")

    root = tree(work, "scp", "git@github.com:alice/pmpp.git")
    code, out = repo_url(root, "--check")
    check(code == 1 and "run `python3 scripts/repo_url.py`" in out,
          "a GitHub origin the files do not name: --check fails with the fix")
    code, _ = repo_url(root)
    readme, notebook = texts(root)
    check(code == 0 and BADGE.format("alice/pmpp", "main") in readme, "scp form: the badge")
    check(CLONE.format("alice/pmpp") in notebook, "scp form: REPO_URL")
    changed = [a for a, b in zip(notebook.splitlines(), notebook0.splitlines()) if a != b]
    check(len(changed) == 1 and len(readme.splitlines()) == len(readme0.splitlines()),
          "only the two lines change")
    code, _ = repo_url(root, "--check")
    check(code == 0, "then --check passes")
    r = subprocess.run([sys.executable, stubs.REPO / "notebooks" / "run_notebook.py", "--check",
                        root / "notebooks" / "pmpp_colab.ipynb"], capture_output=True)
    check(r.returncode == 0, "the notebook is still clean")

    root = tree(work, "https", "https://x-access-token:SECRET@github.com/bob/fork.git")
    git(root, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    code, _ = repo_url(root)
    readme, notebook = texts(root)
    check(code == 0 and BADGE.format("bob/fork", "trunk") in readme
          and CLONE.format("bob/fork") in notebook, "https form: owner, name and default branch")
    check("SECRET" not in readme + notebook, "credentials in the address are not written")

    root = tree(work, "ssh", "ssh://git@github.com/carol/pmpp-cuda")
    code, _ = repo_url(root, "--branch", "dev")
    check(code == 0 and BADGE.format("carol/pmpp-cuda", "dev") in texts(root)[0],
          "ssh:// form, --branch")

    root = tree(work, "local", "/srv/git/pmpp.git")
    code, _ = repo_url(root, "--check")
    check(code == 0, "a remote not on GitHub: --check passes")
    code, _ = repo_url(root)
    check(code == 2, "... and writing refuses it (Colab opens GitHub only)")
    code, _ = repo_url(root, "--url", "https://github.com/dave/x")
    (root / "README.md").write_text(readme0, encoding="utf-8")
    code, out = repo_url(root, "--check")
    check(code == 1 and "REPO_URL dave/x" in out,
          "badge and REPO_URL naming different repositories fail without a GitHub remote too")
    return stubs.finish()


if __name__ == "__main__":
    raise SystemExit(main())
