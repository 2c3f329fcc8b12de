#!/usr/bin/env python3
"""cmake/CudaArchitectures.cmake's decision, run as a script (cmake -P) with stand-ins for
nvidia-smi and nvcc: a Pascal GPU stops the configure with the true minimum, 7.0, and why (with
CUDA 12, which can target Pascal, it used to configure and then fail to compile); so does an
explicit list below 7.0, and CMake's keywords where they would include one (`all` and
`all-major` with CUDA 12, `native` beside a Pascal GPU); a GPU nvcc does not know gets PTX; no GPU
gets the fallback list."""
import argparse
import shutil
import tempfile
from pathlib import Path

import stubs
from stubs import check

CUDA12 = [50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90]
CUDA13 = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]


def decide(work, name, gpus, archs=CUDA12, given=None, env_archs=None):
    """(exit status, what it printed) for nvidia-smi listing gpus ("name, cc" rows; None: no
    nvidia-smi) and an nvcc that can target archs."""
    folder = Path(work) / name
    nvcc = stubs.nvcc(folder, "12.4" if 60 in archs else "13.0", archs)
    if gpus is not None:
        stubs.nvidia_smi(folder, [g + ", 16384, 550.54.15" for g in gpus], "12.4")
    extra = {"CUDACXX": nvcc}
    if env_archs is not None:
        extra["CUDAARCHS"] = env_archs
    command = [stubs.REAL_CMAKE]
    if given is not None:
        command.append(f"-DCMAKE_CUDA_ARCHITECTURES={given}")
    command += ["-P", stubs.REPO / "cmake" / "CudaArchitectures.cmake"]
    code, out, err = stubs.run(command, stubs.fake_env([folder], **extra))
    return code, " ".join((out + err).split())  # CMake wraps its messages: words, not lines


def chosen(text):
    return text.split("CUDA architectures: ", 1)[-1].split(" ")[0] if "CUDA architectures: " \
        in text else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="arch_test_"))
    shutil.rmtree(work, ignore_errors=True)

    code, text = decide(work, "pascal", ["Tesla P100-PCIE-16GB, 6.0"])
    check(code != 0, "a Pascal GPU (6.0) with CUDA 12 stops the configure")
    check("compute capability 7.0 (Volta) or later" in text and "__nanosleep" in text,
          "... naming the minimum, 7.0, and why (%s)" % text[:200])
    check("7.5" not in text.split("T4 is")[0], "... not the old message's 7.5")

    code, text = decide(work, "pascal61", ["NVIDIA GeForce GTX 1080, 6.1"])
    check(code != 0 and "sm_61" in text, "a GTX 1080 (6.1) too, by its sm_61")

    code, text = decide(work, "mixed", ["Tesla P100, 6.1", "Tesla V100-SXM2-16GB, 7.0"])
    check(code == 0 and chosen(text) == "70", "Pascal beside Volta: builds for the Volta (70)")
    check("Not building for the GPU 'Tesla P100'" in text, "... and says the Pascal is left out")

    code, text = decide(work, "given", ["NVIDIA H200, 9.0"], given="61;90")
    check(code != 0 and "CUDA architecture 61 was asked for" in text and "7.0" in text,
          "-DCMAKE_CUDA_ARCHITECTURES=61;90 is refused with the minimum")
    code, text = decide(work, "env", None, env_archs="60")
    check(code != 0 and "CUDA architecture 60 was asked for" in text, "CUDAARCHS=60 too")
    code, text = decide(work, "given_ok", None, given="70;89-real")
    check(code == 0 and chosen(text) == "70;89-real", "a given list of 7.0 and later is kept")

    # CMake's keywords: `all` and `all-major` take nvcc's oldest target, `native` every GPU here.
    for keyword in ("all", "all-major"):
        code, text = decide(work, keyword + "12", None, given=keyword)
        check(code != 0 and f"'{keyword}' was asked for" in text and "includes 50" in text,
              f"{keyword} with CUDA 12 (oldest target 5.0) is refused, naming 50 (%s)" % text[:200])
        code, text = decide(work, keyword + "13", None, archs=CUDA13, given=keyword)
        check(code == 0 and chosen(text) == keyword, f"{keyword} with CUDA 13 (oldest 7.5) is kept")
    code, text = decide(work, "native_pascal", ["NVIDIA H200, 9.0", "Tesla P100, 6.0"],
                        given="native")
    check(code != 0 and "'native' was asked for" in text and "'Tesla P100'" in text,
          "native beside a Pascal GPU is refused, naming it")
    code, text = decide(work, "native_h200", ["NVIDIA H200, 9.0"], given="native")
    check(code == 0 and chosen(text) == "native", "native on an H200 is kept")

    code, text = decide(work, "h200", ["NVIDIA H200, 9.0"])
    check(code == 0 and chosen(text) == "90", "an H200 builds for 90")
    code, text = decide(work, "volta13", ["Tesla V100-SXM2-16GB, 7.0"], archs=CUDA13)
    check(code != 0 and "targets 75 and later only" in text,
          "a Volta with CUDA 13 (oldest target 7.5) stops, naming nvcc's oldest")
    code, text = decide(work, "future", ["NVIDIA Future GPU, 15.0"], archs=CUDA13)
    check(code == 0 and chosen(text) == "121-virtual", "a GPU newer than nvcc gets its newest PTX")
    code, text = decide(work, "nogpu", None)
    check(code == 0 and chosen(text) == "75;90-real", "no GPU: the fallback 75;90-real")
    return stubs.finish()


if __name__ == "__main__":
    raise SystemExit(main())
