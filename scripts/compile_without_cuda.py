#!/usr/bin/env python3
"""Compiles host programs as a machine without the CUDA toolkit would: with the host compiler's
own include folders, less every one that holds cuda_runtime.h (a toolkit installed under
/usr/local/include, say), so that a source that reaches a CUDA header fails here as it fails
there.

    python3 scripts/compile_without_cuda.py --cxx g++ -I<folder>... <source>...

Exit 0 when every source compiles (-fsyntax-only, C++17), 1 when one does not (its errors
printed), 2 on a usage error. Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys


def default_include_folders(cxx):
    """The folders `cxx` searches for #include <...>, in its order."""
    done = subprocess.run([cxx, "-x", "c++", "-std=c++17", "-E", "-v", os.devnull],
                          capture_output=True, text=True)
    text = done.stderr
    start = text.find("#include <...> search starts here:")
    end = text.find("End of search list.", start)
    if done.returncode != 0 or start < 0 or end < 0:
        sys.exit("compile_without_cuda: cannot read %s's include folders:\n%s" % (cxx, text))
    lines = text[start:end].splitlines()[1:]
    return [re.sub(r"\s*\(framework directory\)$", "", l.strip()) for l in lines if l.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", default="g++", help="the host compiler (default g++)")
    parser.add_argument("-I", dest="includes", action="append", default=[], metavar="FOLDER")
    parser.add_argument("sources", nargs="+")
    options = parser.parse_args()
    folders = default_include_folders(options.cxx)
    kept = [f for f in folders if not os.path.isfile(os.path.join(f, "cuda_runtime.h"))]
    failed = 0
    for source in options.sources:
        command = [options.cxx, "-std=c++17", "-fsyntax-only", "-nostdinc", "-nostdinc++"]
        command += ["-I" + i for i in options.includes]
        command += ["-isystem" + f for f in kept] + [source]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            failed += 1
            print("FAIL %s does not compile without the CUDA toolkit:\n%s"
                  % (source, done.stderr[-3000:]))
        else:
            print("%s: compiles without the CUDA toolkit (%d of %d include folders kept)"
                  % (os.path.basename(source), len(kept), len(folders)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
