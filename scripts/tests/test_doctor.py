#!/usr/bin/env python3
"""scripts/doctor.py on faked machines: the PATH holds only stand-ins (nvidia-smi, nvcc, cmake,
ninja, ...) that print chosen versions, and matplotlib is present or hidden through PYTHONPATH;
each machine's problems must come out as `fix` lines with their fix, its limits as `note` lines,
and the exit status must say whether anything needs fixing."""
import argparse
import shutil
import tempfile
from pathlib import Path

import stubs
from stubs import check

CUDA12 = [50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90]
CUDA13 = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]


def machine(work, name, cmake="3.28.3", ninja=True, cxx=True, nvcc=("12.4", CUDA12),
            nvcc_on_path=True, gpus=None, driver_cuda="12.4", sanitizer=True, ncu=True,
            matplotlib=True):
    """Runs the doctor on a machine made of stand-ins: (exit status, its lines)."""
    root = Path(work) / name
    bin_dir, cuda_bin = root / "bin", root / "cuda" / "bin"
    bin_dir.mkdir(parents=True)
    if cmake:
        stubs.cmake(bin_dir, cmake)
    if ninja:
        stubs.tool(bin_dir, "ninja", "1.11.1")
    if cxx:
        stubs.tool(bin_dir, "c++")
    if nvcc:
        stubs.nvcc(cuda_bin, *nvcc)
    if gpus is not None:
        stubs.nvidia_smi(bin_dir, gpus, driver_cuda)
    if sanitizer:  # where the toolkit puts it: <cuda>/compute-sanitizer/, not on the PATH
        stubs.tool(root / "cuda" / "compute-sanitizer", "compute-sanitizer")
    if ncu:
        stubs.tool(cuda_bin, "ncu")
    py = root / "python"
    py.joinpath("matplotlib").mkdir(parents=True)
    py.joinpath("matplotlib", "__init__.py").write_text(
        '__version__ = "3.8.0"\n' if matplotlib else 'raise ImportError("hidden by the test")\n')
    path = [bin_dir] + ([cuda_bin] if nvcc_on_path else [])
    # DEFAULT_CUDA_BINS points at the stand-in toolkit: the machine's own /usr/local/cuda is not
    # part of the fake.
    code = ("import sys; sys.path.insert(0, %r); import doctor; doctor.DEFAULT_CUDA_BINS = [%r]; "
            "sys.exit(doctor.main())" % (str(stubs.REPO / "scripts"), str(cuda_bin)))
    status, out, err = stubs.run([stubs.python(), "-c", code],
                                 stubs.fake_env(path, PYTHONPATH=py))
    print(f"--- {name}: exit {status}\n{out}{err}", end="", flush=True)
    lines = []  # a wrapped line joined again
    for line in out.splitlines():
        if line.startswith(" " * 7) and lines:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return status, lines


def has(lines, kind, text):
    return any(line.startswith(kind) and text in line for line in lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="doctor_test_"))
    shutil.rmtree(work, ignore_errors=True)

    # Ubuntu 22.04 as apt leaves it, with a CUDA 12 toolkit and no GPU.
    status, lines = machine(work, "ubuntu2204", cmake="3.22.1", ninja=False, sanitizer=False,
                            ncu=False, matplotlib=False)
    check(status == 1, "ubuntu2204: exit 1 (things to fix)")
    check(has(lines, "fix", "CMake 3.22 is older than 3.25: `pip install cmake`"),
          "ubuntu2204: CMake 3.22's fix line")
    check(has(lines, "fix", "no Ninja") and has(lines, "fix", "`pip install ninja`"),
          "ubuntu2204: Ninja's fix line")
    check(has(lines, "note", "no GPU (no nvidia-smi): everything still builds"),
          "ubuntu2204: no GPU, and what runs anyway")
    check(has(lines, "note", "no matplotlib") and has(lines, "note", "`pip install matplotlib`"),
          "ubuntu2204: matplotlib's note")
    check(has(lines, "note", "no compute-sanitizer") and has(lines, "note", "cuda-sanitizer-12-4"),
          "ubuntu2204: compute-sanitizer's note names the toolkit's package")
    check(has(lines, "ok", "CUDA architectures the build will use: 75;90-real"),
          "ubuntu2204: the architectures, from cmake/CudaArchitectures.cmake")

    # A Pascal GPU: the one line that says what to do, not the configure's error a second time.
    status, lines = machine(work, "pascal", gpus=["Tesla P100-PCIE-16GB, 6.1, 16384, 550.54.15"])
    check(status == 1, "pascal: exit 1")
    check(has(lines, "fix", "GPU sm_61 (Tesla P100-PCIE-16GB): the examples need compute "
                            "capability 7.0"), "pascal: the GPU's fix line")
    check(not has(lines, "fix", "the configure will stop"), "pascal: said once")

    # The machine the results come from: everything found, the sanitizer and ncu beside nvcc.
    status, lines = machine(work, "h200", nvcc=("13.0", CUDA13), nvcc_on_path=False,
                            gpus=["NVIDIA H200, 9.0, 143771, 580.95.05"], driver_cuda="13.0")
    check(status == 1 and has(lines, "fix", "export PATH="),
          "h200 without the toolkit on the PATH: the PATH's fix line")
    shutil.rmtree(work / "h200")
    status, lines = machine(work, "h200", nvcc=("13.0", CUDA13),
                            gpus=["NVIDIA H200, 9.0, 143771, 580.95.05"], driver_cuda="13.0")
    check(status == 0, "h200: exit 0")
    check(not any(line.startswith(("fix", "note")) for line in lines), "h200: nothing to say")
    check(has(lines, "ok", "GPU NVIDIA H200, sm_90, 140 GiB, driver 580.95.05"), "h200: the GPU")
    check(has(lines, "ok", "compute-sanitizer (") and has(lines, "ok", "ncu ("),
          "h200: compute-sanitizer and ncu found beside nvcc")
    check(has(lines, "ok", "CUDA architectures the build will use: 90 "), "h200: builds for 90")

    # A driver older than the toolkit, on a GPU too small for the 2^31 tests.
    status, lines = machine(work, "old_driver", nvcc=("13.0", CUDA13),
                            gpus=["NVIDIA GeForce RTX 3070, 8.6, 8192, 550.54.15"])
    check(status == 1, "old_driver: exit 1")
    check(has(lines, "fix", "the driver runs CUDA 12.4 programs, older than the toolkit's 13.0")
          and has(lines, "fix", "install driver 580.65.06 or later"), "old_driver: its fix line")
    check(has(lines, "note", "the tests at 2^31 elements (ch10) need 8 GiB"),
          "old_driver: the 8 GiB GPU's note")

    # A Volta with CUDA 13, whose oldest target is 7.5: the configure's own reason.
    status, lines = machine(work, "volta13", nvcc=("13.0", CUDA13),
                            gpus=["Tesla V100-SXM2-16GB, 7.0, 16384, 580.95.05"],
                            driver_cuda="13.0")
    check(status == 1 and has(lines, "fix", "the configure will stop: The GPU "
                                            "'Tesla V100-SXM2-16GB' has compute capability 7.0"),
          "volta13: the configure's reason as a fix line")

    # No toolkit, no compiler.
    status, lines = machine(work, "bare", cxx=False, nvcc=None, gpus=[])
    check(status == 1 and has(lines, "fix", "no CUDA toolkit (nvcc)")
          and has(lines, "fix", "no C++ compiler"), "bare: the toolkit's and the compiler's fix")
    return stubs.finish()


if __name__ == "__main__":
    raise SystemExit(main())
