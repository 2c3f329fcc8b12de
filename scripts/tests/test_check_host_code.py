#!/usr/bin/env python3
"""scripts/check_host_code.py on a small tree made here: the scan reports each GCC-only spelling
in host code with its file, line and portable spelling, and nothing in device code, comments or
strings; the -Werror -pedantic compile fails on a variable-length array and passes clean code."""
import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import stubs
from stubs import check

SCRIPT = stubs.REPO / "scripts" / "check_host_code.py"

KERNELS = r"""// kernels.cuh: __builtin_popcount in this comment is not code
#pragma once
#include <filesystem>
#include <string>
__device__ int device_count(unsigned x) { return __builtin_popcount(x); }
__global__ void kernel(int* out) {
    auto f = [] __device__(unsigned v) { return __builtin_clz(v); };
    out[0] = f(1u);
}
__host__ __device__ inline int both(unsigned x) { return __builtin_ffs(x); }
inline int host_count(unsigned x) {
#ifdef __CUDA_ARCH__
    return __builtin_popcount(x);
#else
    return static_cast<int>(__builtin_popcount(x));
#endif
}
inline const char* text() { return "__int128 in a string"; }
inline void files(const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path where = fs::path(name) / "x";
    std::fopen(name.c_str(), "r");
    std::fopen(where.c_str(), "r");
    std::fopen((where / "y").c_str(), "r");
}
"""
EXPECTED = {  # line: the spelling reported there
    10: "__builtin_ffs",
    15: "__builtin_popcount",
    23: "fopen(where.c_str()",
    24: 'fopen((where / "y").c_str()',
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", default="c++")
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="host_code_test_"))
    shutil.rmtree(work, ignore_errors=True)
    tree = work / "tree"
    (tree / "common").mkdir(parents=True)
    (tree / "chapter").mkdir()
    (tree / "chapter" / "kernels.cuh").write_text(KERNELS)
    (tree / "chapter" / "posix.cpp").write_text(
        "#include <unistd.h>\n#include <cstdio>\nint main() { std::printf(\"%s\\n\", "
        "__PRETTY_FUNCTION__); return 0; }\n")

    r = subprocess.run([sys.executable, SCRIPT, "--root", tree, "scan"], capture_output=True,
                       encoding="utf-8")
    print(r.stdout + r.stderr)
    check(r.returncode == 1, "scan: exit 1 where host code has GCC-only spellings")
    reported = {}
    for line in r.stdout.splitlines():
        parts = line.split(":", 3)
        if len(parts) == 4 and parts[1].isdigit():
            reported.setdefault((parts[0], int(parts[1])), []).append(parts[2].strip())
    for number, spelled in EXPECTED.items():
        check(spelled in reported.get(("chapter/kernels.cuh", number), []),
              f"scan: kernels.cuh:{number} {spelled} reported")
    cuh = {n for (f, n) in reported if f == "chapter/kernels.cuh"}
    check(cuh == set(EXPECTED), f"scan: nothing else in kernels.cuh (device code, the "
                                f"__CUDA_ARCH__ branch, comments, strings, a std::string's "
                                f"c_str()): reported lines {sorted(cuh)}")
    check(("chapter/posix.cpp", 1) in reported and ("chapter/posix.cpp", 3) in reported,
          "scan: <unistd.h> and __PRETTY_FUNCTION__ in a host program")
    check("portable: __func__" in r.stdout, "scan: the portable spelling is named")

    (tree / "chapter" / "kernels.cuh").unlink()
    (tree / "chapter" / "posix.cpp").unlink()
    (tree / "common" / "common.h").write_text("#pragma once\ninline int twice(int x) "
                                              "{ return 2 * x; }\n")
    (tree / "chapter" / "good.cpp").write_text('#include "common.h"\nint main() '
                                               '{ return twice(0); }\n')
    r = subprocess.run([sys.executable, SCRIPT, "--root", tree, "scan"], capture_output=True,
                       encoding="utf-8")
    check(r.returncode == 0, "scan: exit 0 on clean code")

    command = [sys.executable, SCRIPT, "--root", tree, "compile", "--cxx", args.cxx, "--work",
               work / "tu"]
    r = subprocess.run(command, capture_output=True, encoding="utf-8")
    print(r.stdout + r.stderr)
    check(r.returncode == 0 and "ok   common/common.h" in r.stdout,
          "compile: clean code and the header it includes pass")
    (tree / "chapter" / "vla.cpp").write_text(
        "#include <cstdlib>\nint main(int argc, char**) { int a[argc]; a[0] = 0; "
        "return a[0]; }\n")
    r = subprocess.run(command, capture_output=True, encoding="utf-8")
    print(r.stdout + r.stderr)
    check(r.returncode == 1 and "FAIL chapter/vla.cpp" in r.stdout,
          "compile: a variable-length array fails (-Wpedantic -Werror)")
    return stubs.finish()


if __name__ == "__main__":
    raise SystemExit(main())
