#!/usr/bin/env python3
"""Keeps the host code buildable by other compilers than GCC (MSVC above all).

    python3 scripts/check_host_code.py scan                      GCC-only spellings in host code
    python3 scripts/check_host_code.py compile --cxx g++ [--cuda-include DIR]
                                             every host program and header, -Werror -pedantic

`scan` reads every C++ and CUDA source of the repository (but homework/, which holds the
grader's test submissions, not programs) and reports each GCC or POSIX spelling that
MSVC does not take, outside device code: the file, the line, and the portable spelling. Device
code is what only nvcc's device compiler sees: a function declared __device__ or __global__
without __host__, and the branch of `#if __CUDA_ARCH__` (or `#ifdef __CUDA_ARCH__`); ALLOWED
lists the few other places where such a spelling is fine, each with why. Comments and string
literals are not read.

`compile` compiles each host program (.cpp) and each header that one includes (.h) as
C++17 with -Wall -Wextra -Wpedantic -Werror: what GCC accepts only as an extension (variable-
length arrays, zero-size arrays, statement expressions) fails here as it
would fail under MSVC. A header is compiled alone, in a file that includes it and nothing else,
so it must also include what it uses.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = (".cpp", ".cc", ".h", ".hpp", ".cu", ".cuh")
SKIP_DIRS = {"homework"}  # the grader's test submissions, not programs

# (regex on code without comments and strings, what it is, the portable spelling)
SPELLINGS = [
    (r"\b__builtin_\w+", "a GCC builtin",
     "in host code the standard library (std::bitset<32>(x).count() for __builtin_popcount, "
     "<bit> in C++20); in device code the CUDA intrinsic (__popc, __clz, __ffs)"),
    (r"\b__int128\b", "a 128-bit integer (GCC and Clang only)",
     "exact arithmetic in 64 bits (split the product, or reorder it to stay below 2^64) or "
     "long double where an approximation does"),
    (r"\b__attribute__\b", "a GCC attribute",
     "the standard attributes ([[nodiscard]], [[maybe_unused]], [[noreturn]]) or alignas()"),
    (r"\bfdopen\b", "POSIX fdopen (MSVC: _fdopen)",
     "std::fopen of a path, or pass a path instead of a file descriptor"),
    (r"\bfileno\b", "POSIX fileno (MSVC: _fileno)",
     "keep the std::FILE* (or the path) instead of its descriptor"),
    (r"#\s*include\s*<unistd\.h>", "the POSIX header <unistd.h>",
     "<filesystem> (files, folders, temp_directory_path), <thread> and <chrono> (sleeping), "
     "<cstdio>"),
    (r"#\s*include\s*<sys/\w+\.h>", "a POSIX <sys/...> header",
     "<filesystem>, <chrono>, <thread> or <cstdio>"),
    (r"\b__PRETTY_FUNCTION__\b", "GCC's __PRETTY_FUNCTION__", "__func__ (standard C++)"),
]
FS_PATH_FOPEN = ("std::fopen of a std::filesystem::path's c_str(), which is wchar_t* on Windows",
                 "std::fopen(p.string().c_str(), ...)")

# (path, regex, why): places where a spelling above is fine. Keep it short.
ALLOWED = [
    ("common/grading.h", r"\bfdopen\b",
     "the POSIX branch of an #ifdef _WIN32 whose other branch calls MSVC's _fdopen"),
    ("common/grading.cpp", r"#\s*include\s*<unistd\.h>",
     "the batch of graded runs (HOMEWORK_BATCH), for the grader, which runs on Linux only: "
     "inside #if defined(__unix__), so MSVC builds without it"),
]


def sources(root):
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if (path.suffix in SOURCES and path.is_file() and rel.parts[0] not in SKIP_DIRS
                and not any(p.startswith((".", "build")) for p in rel.parts[:-1])):
            yield path


def strip_comments_and_strings(text):
    """The text with comments and the contents of string and character literals blanked
    (newlines kept, so that line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 digits
            m = re.match(r'R"([^(]*)\(', text[i - 1:]) if c == '"' and i and text[i - 1] == "R" \
                else None
            if m:  # raw string
                end = text.find(")" + m[1] + '"', i)
                j = n if end < 0 else end + len(m[1]) + 2
            else:
                j = i + 1
                while j < n and text[j] != c and text[j] != "\n":
                    j += 2 if text[j] == "\\" else 1
                j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + (text[j - 1] if j - 1 > i
                                                                        else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def device_lines(code):
    """The set of line numbers (1-based) that only device code covers."""
    device = set()
    lines = code.split("\n")
    # `#if __CUDA_ARCH__` branches: a stack of [this branch is device code, the #else will be].
    stack = []
    pre_device = [False] * (len(lines) + 2)
    for number, line in enumerate(lines, 1):
        d = line.strip()
        if re.match(r"#\s*if", d):
            negative = bool(re.match(r"#\s*ifndef\s+__CUDA_ARCH__\b", d) or
                            re.search(r"!\s*defined\s*\(?\s*__CUDA_ARCH__", d))
            positive = not negative and bool(
                re.match(r"#\s*(ifdef\s+__CUDA_ARCH__\b|if\b.*__CUDA_ARCH__)", d))
            stack.append([positive, negative])
        elif re.match(r"#\s*else", d) and stack:
            stack[-1][0] = stack[-1][1]
        elif re.match(r"#\s*elif", d) and stack:
            stack[-1][0] = False
        elif re.match(r"#\s*endif", d) and stack:
            stack.pop()
        pre_device[number] = any(branch for branch, _ in stack)
    # Function bodies declared __device__/__global__ without __host__.
    depth_device = []  # per open brace: whether it opened device code
    header_start = 0
    number = 1
    for i, c in enumerate(code):
        if c == "\n":
            number += 1
            continue
        inside = any(depth_device)
        if inside or pre_device[number]:
            device.add(number)
        if c == "{":
            header = code[header_start:i]
            header = "\n".join(l for l in header.split("\n") if not l.strip().startswith("#"))
            opens = (re.search(r"\b(__device__|__global__)\b", header) is not None
                     and "__host__" not in header and "(" in header)
            depth_device.append(opens)
            header_start = i + 1
        elif c == "}":
            if depth_device:
                depth_device.pop()
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
    return device


def fs_path_names(code):
    """Names declared as std::filesystem::path (fs::path, std::filesystem::path, path)."""
    return set(re.findall(r"\b(?:std::)?(?:filesystem|fs)::path\s*&?\s+(\w+)", code))


def scan_file(path, root):
    text = path.read_text(encoding="utf-8", errors="replace")
    code = strip_comments_and_strings(text)
    device = device_lines(code)
    rel = path.relative_to(root).as_posix()
    found = []
    paths = fs_path_names(code)
    for number, (line, original) in enumerate(zip(code.split("\n"), text.split("\n")), 1):
        if number in device:
            continue
        # (what is written there, as written: the blanked line keeps every column)
        hits = [(original[m.start():m.end()], what, fix) for regex, what, fix in SPELLINGS
                for m in re.finditer(regex, line)]
        for m in re.finditer(r"\bfopen\s*\(\s*(\(?[^,]*?)\.c_str\(\)", line):
            expr = m[1]
            if expr.rstrip().endswith((".string()", ".u8string()")):
                continue  # the path made a std::string first: portable
            if "/" in expr or expr.strip("( ") in paths:
                hits.append((original[m.start():m.end()], *FS_PATH_FOPEN))
        for spelled, what, fix in hits:
            if any(rel == a and re.search(r, spelled) for a, r, _ in ALLOWED):
                continue
            found.append(f"{rel}:{number}: {spelled.strip()}: {what}; portable: {fix}")
    return found


def scan(args):
    found = []
    files = list(sources(args.root))
    for path in files:
        found += scan_file(path, args.root)
    for line in found:
        print(line)
    if found:
        print(f"check_host_code: {len(found)} GCC-only spelling(s) in host code; MSVC cannot "
              f"build them (see above for the portable spelling)")
        return 1
    print(f"check_host_code: {len(files)} files, no GCC-only spelling in host code")
    return 0


def host_headers(programs, root):
    """The .h headers the host programs include, directly or through other headers (quoted
    includes, found beside the including file or in common/)."""
    seen, todo = set(), list(programs)
    while todo:
        path = todo.pop()
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
            for folder in (path.parent, root / "common"):
                found = (folder / name).resolve()
                if found.is_file():
                    if found not in seen:
                        seen.add(found)
                        todo.append(found)
                    break
    return sorted(p for p in seen if p.suffix in (".h", ".hpp"))


def compile_all(args):
    # (not scripts/gpu_time/: it needs CUPTI's headers, which CUDA 12 keeps outside the toolkit's
    # include folder; the scan reads it)
    cpp = [p for p in sources(args.root) if p.suffix in (".cpp", ".cc")
           and p.relative_to(args.root).parts[0] != "scripts"]
    headers = host_headers(cpp, args.root)
    flags = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2", "-c", "-o",
             os.devnull, "-I", str(args.root / "common")]
    for d in args.cuda_include:
        flags += ["-isystem", d]
    work = Path(args.work or tempfile.mkdtemp(prefix="host_pedantic_"))
    work.mkdir(parents=True, exist_ok=True)
    jobs = []
    for p in cpp:
        jobs.append((p, [args.cxx, *flags, "-I", str(p.parent), str(p)]))
    for p in headers:
        tu = work / (p.relative_to(args.root).as_posix().replace("/", "__") + ".cpp")
        tu.write_text(f'#include "{p.as_posix()}"\n', encoding="utf-8")
        jobs.append((p, [args.cxx, *flags, "-I", str(p.parent), str(tu)]))

    def one(job):
        path, command = job
        r = subprocess.run(command, capture_output=True, encoding="utf-8", errors="replace")
        return path, r.returncode, r.stdout + r.stderr

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for path, code, output in pool.map(one, jobs):
            rel = path.relative_to(args.root).as_posix()
            print(f"{'ok  ' if code == 0 else 'FAIL'} {rel}", flush=True)
            if code:
                failed += 1
                print(output, flush=True)
    print(f"check_host_code: {len(jobs)} host files as C++17 with -Wall -Wextra -Wpedantic "
          f"-Werror: {failed} failed")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("scan", help="GCC-only spellings in host code")
    c = sub.add_parser("compile", help="host programs and headers with -Werror -pedantic")
    c.add_argument("--cxx", default="c++", help="the C++ compiler (GCC or Clang)")
    c.add_argument("--cuda-include", action="append", default=[],
                   help="the toolkit's include folder (cuda_runtime.h), as a system folder")
    c.add_argument("--work", help="folder for the headers' one-line files")
    c.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--root", type=Path, default=REPO,
                        help="the tree to check (default: this repository)")
    args = parser.parse_args()
    args.root = args.root.resolve()
    return scan(args) if args.mode == "scan" else compile_all(args)


if __name__ == "__main__":
    sys.exit(main())
