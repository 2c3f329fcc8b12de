#!/usr/bin/env python3
"""What this machine has for the examples, and one line for each thing to fix.

    python3 scripts/doctor.py

Run it first, from anywhere. It checks Python (and matplotlib, for the plots), CMake (3.25 or
later), Ninja, a C++ compiler, the CUDA toolkit's nvcc, the driver and each GPU (compute
capability and memory), compute-sanitizer, Nsight Compute (ncu), and the CUDA architectures the
build will use, decided by cmake/CudaArchitectures.cmake itself. Each line starts with

    ok     found and good enough
    note   missing or limited, but the README's commands still work (what it costs is said)
    fix    the README's commands will fail until this is fixed: the line says how

and the exit status is 1 when there is a `fix` line, else 0. It needs no GPU, no build and
nothing beyond Python's standard library; it changes nothing.
"""
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIN_CMAKE = (3, 25)
MIN_CC = (7, 0)  # cmake/CudaArchitectures.cmake says why
MIN_NVCC = (12, 0)
# Where NVIDIA's installers put the toolkit; CMake does not look there by itself (only on the
# PATH and in $CUDA_PATH/bin), so an nvcc found only here needs the PATH extended.
DEFAULT_CUDA_BINS = ["/usr/local/cuda/bin"]
# The oldest Linux driver each CUDA major version runs on (its release notes: 525.60.13 for 12.x
# by minor version compatibility, 580.65.06 for 13.0).
MIN_DRIVER = {12: "525.60.13", 13: "580.65.06"}
# The largest default-size tests (ch10 at 2^31 elements) hold 8 GiB on the device.
LARGE_TEST_MIB = 9 * 1024


class Report:
    def __init__(self):
        self.fixes = 0

    def line(self, kind, text):
        if kind == "fix":
            self.fixes += 1
        # Wrapped at 100 columns, the continuation indented under the text (never inside a
        # `command`, so that it can be copied whole).
        whole = re.sub(r"`[^`]*`", lambda m: m[0].replace(" ", "\0"), f"{kind:<5}  {text}")
        print(textwrap.fill(whole, 100, subsequent_indent=" " * 7, break_long_words=False,
                            break_on_hyphens=False).replace("\0", " "), flush=True)


def run(command, env=None):
    """(exit status, stdout, stderr) of a command, or None where it cannot be started."""
    try:
        r = subprocess.run(command, capture_output=True, encoding="utf-8", errors="replace",
                           env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.returncode, r.stdout, r.stderr


def version_of(text):
    """(major, minor) of the first dotted version in text, or None."""
    m = re.search(r"(\d+)\.(\d+)", text or "")
    return (int(m[1]), int(m[2])) if m else None


def dotted(v):
    return "%d.%d" % v


def check_python(report):
    report.line("ok", "Python %d.%d.%d (%s)" % (*sys.version_info[:3], sys.executable))
    try:
        import matplotlib  # noqa: F401  (only asked whether it is there)
        report.line("ok", f"matplotlib {matplotlib.__version__} (the benchmark plots)")
    except ImportError:
        report.line("note", "no matplotlib: the benchmark scripts print their tables but draw no "
                            "plot: `pip install matplotlib`")


def check_cmake(report):
    """The CMake on the PATH, or None."""
    cmake = shutil.which("cmake")
    if cmake is None:
        report.line("fix", "no CMake: `pip install cmake` (3.25 or later), then open a new shell")
        return None
    r = run([cmake, "--version"])
    v = version_of(r[1]) if r else None
    if v is None:
        report.line("fix", f"{cmake} --version gives no version: `pip install cmake`")
        return None
    full = re.search(r"\d+\.\d+[.\w-]*", r[1])[0]
    if v < MIN_CMAKE:
        report.line("fix", f"CMake {dotted(v)} is older than {dotted(MIN_CMAKE)}: `pip install "
                           f"cmake`, then `hash -r` (a user install goes to ~/.local/bin, which "
                           f"must come before {os.path.dirname(cmake)} on the PATH; Ubuntu "
                           f"22.04's apt has 3.22, whose `cmake --workflow` answers 'Unknown "
                           f"argument')")
    else:
        report.line("ok", f"CMake {full} ({cmake})")
    return cmake


def check_ninja(report):
    ninja = shutil.which("ninja")
    r = run([ninja, "--version"]) if ninja else None
    if r is None or r[0] != 0:
        report.line("fix", "no Ninja (the build's generator): `pip install ninja`, or "
                           "`apt install ninja-build`")
    else:
        report.line("ok", f"Ninja {r[1].strip()} ({ninja})")


def check_cxx(report):
    for name in ("c++", "g++", "clang++"):
        cxx = shutil.which(name)
        if cxx:
            report.line("ok", f"C++ compiler {cxx}")
            return
    report.line("fix", "no C++ compiler (nvcc needs one for the host code): "
                       "`apt install g++` (or your system's C++17 compiler)")


def find_nvcc():
    """(nvcc, how it was found) as CMake will find it: $CUDACXX, the PATH, $CUDA_PATH/bin."""
    given = os.environ.get("CUDACXX")
    if given:
        return given, "$CUDACXX"
    on_path = shutil.which("nvcc")
    if on_path:
        return on_path, "the PATH"
    cuda_path = os.environ.get("CUDA_PATH")
    if cuda_path and os.access(os.path.join(cuda_path, "bin", "nvcc"), os.X_OK):
        return os.path.join(cuda_path, "bin", "nvcc"), "$CUDA_PATH"
    return None, None


def check_nvcc(report):
    """(nvcc, its (major, minor)) or (None, None)."""
    nvcc, how = find_nvcc()
    if nvcc is None:
        for folder in DEFAULT_CUDA_BINS:
            if os.access(os.path.join(folder, "nvcc"), os.X_OK):
                report.line("fix", f"nvcc is in {folder}, which is not on the PATH, so CMake "
                                   f"will not find it: `export PATH={folder}:$PATH` (add it to "
                                   f"~/.bashrc to keep it)")
                return os.path.join(folder, "nvcc"), None
        report.line("fix", "no CUDA toolkit (nvcc): install CUDA 12.x or 13.x from "
                           "https://developer.nvidia.com/cuda-downloads (the README's 'What to "
                           "install' has a pip route too)")
        return None, None
    r = run([nvcc, "--version"])
    m = re.search(r"release (\d+)\.(\d+)", r[1]) if r else None
    if m is None:
        report.line("fix", f"{nvcc} (from {how}) does not run or gives no release: check "
                           f"the toolkit's installation, or set CUDACXX to a working nvcc")
        return None, None
    v = (int(m[1]), int(m[2]))
    if v < MIN_NVCC:
        report.line("fix", f"nvcc {dotted(v)} is older than {dotted(MIN_NVCC)}: install CUDA 12.x "
                           f"or 13.x (https://developer.nvidia.com/cuda-downloads)")
    else:
        report.line("ok", f"nvcc {dotted(v)} ({nvcc}, from {how})")
    return nvcc, v


def check_gpus(report, nvcc_version):
    """The GPUs' compute capabilities [(major, minor)], [] where there is none."""
    smi = shutil.which("nvidia-smi")
    no_gpu = ("everything still builds, the host programs and the host tests run, and each GPU "
              "program says SKIP and is counted as skipped. To run them: the Colab notebook (the "
              "README's badge), or a machine with an NVIDIA GPU of compute capability 7.0 or "
              "later")
    if smi is None:
        report.line("note", "no GPU (no nvidia-smi): " + no_gpu)
        return []
    r = run([smi, "--query-gpu=name,compute_cap,memory.total,driver_version",
             "--format=csv,noheader,nounits"])
    if r is None or r[0] != 0:
        said = (r[1] + r[2]).strip().splitlines()[:1] if r else []
        report.line("fix", "nvidia-smi is here but fails (%s): the driver is not loaded; reboot "
                           "after installing it, or see `dmesg | grep -i nvidia`"
                    % (said[0] if said else "no output"))
        return []
    ccs = []
    for row in r[1].strip().splitlines():
        fields = [f.strip() for f in row.split(",")]
        if len(fields) < 4 or version_of(fields[1]) is None:
            continue
        name, cc, mib, driver = fields[0], version_of(fields[1]), fields[2], fields[3]
        ccs.append(cc)
        sm = "sm_%d%d" % cc
        memory = f"{int(mib) / 1024:.0f} GiB" if mib.isdigit() else mib
        if cc < MIN_CC:
            report.line("fix", f"GPU {sm} ({name}): the examples need compute capability "
                               f"{dotted(MIN_CC)} or later (Volta; __nanosleep, "
                               f"__match_any_sync); use a newer GPU, or the Colab notebook (the "
                               f"README's badge; its T4 is 7.5)")
            continue
        report.line("ok", f"GPU {name}, {sm}, {memory}, driver {driver}")
        if mib.isdigit() and int(mib) < LARGE_TEST_MIB:
            report.line("note", f"{name} has {memory}: the tests at 2^31 elements (ch10) need "
                                f"8 GiB of free device memory and fail here; everything else runs")
    if not ccs:
        report.line("note", "no GPU (nvidia-smi lists none): " + no_gpu)
        return []
    # The driver's CUDA version, from nvidia-smi's banner ("CUDA Version: 13.0").
    banner = run([smi])
    driver_cuda = None
    if banner and banner[0] == 0:
        m = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", banner[1])
        driver_cuda = (int(m[1]), int(m[2])) if m else None
    if driver_cuda and nvcc_version:
        if driver_cuda[0] < nvcc_version[0]:
            need = MIN_DRIVER.get(nvcc_version[0], "a newer one")
            report.line("fix", f"the driver runs CUDA {dotted(driver_cuda)} programs, older than "
                               f"the toolkit's {dotted(nvcc_version)}: every GPU program would "
                               f"fail; install driver {need} or later, or a CUDA "
                               f"{driver_cuda[0]}.x toolkit")
        elif driver_cuda < nvcc_version:
            report.line("note", f"the driver is for CUDA {dotted(driver_cuda)}, the toolkit "
                                f"{dotted(nvcc_version)}: this works (minor version "
                                f"compatibility) while the build makes machine code for this "
                                f"GPU, as it does by default")
        else:
            report.line("ok", f"the driver runs CUDA {dotted(driver_cuda)} programs (the toolkit "
                              f"is {dotted(nvcc_version)})")
    return ccs


def check_tool(report, name, nvcc, sub, missing):
    """A tool of the toolkit: on the PATH, beside nvcc, or in nvcc's ../<sub>."""
    found = shutil.which(name)
    if found is None and nvcc:
        bin_dir = Path(nvcc).resolve().parent
        for candidate in (bin_dir / name, bin_dir.parent / sub / name):
            if os.access(candidate, os.X_OK):
                found = str(candidate)
                break
    if found:
        report.line("ok", f"{name} ({found})")
    else:
        report.line("note", missing)


def check_architectures(report, cmake, nvcc, gpu_too_old):
    """What cmake/CudaArchitectures.cmake decides here, run as a script."""
    if cmake is None:
        report.line("note", "CUDA architectures: decided by CMake, once it is installed")
        return
    env = dict(os.environ)
    if nvcc and "CUDACXX" not in env:
        env["CUDACXX"] = nvcc  # the nvcc found above, as the build will use it
    r = run([cmake, "-P", str(REPO / "cmake" / "CudaArchitectures.cmake")], env=env)
    if r is None:
        report.line("note", "CUDA architectures: cmake -P did not run")
        return
    m = re.search(r"CUDA architectures: (\S+)", r[1])
    if r[0] == 0 and m:
        report.line("ok", f"CUDA architectures the build will use: {m[1]} "
                          f"(-DCMAKE_CUDA_ARCHITECTURES=... chooses others)")
        return
    if gpu_too_old:
        return  # the GPU's line above says what to do; the configure stops for that reason
    said = r[2].split("(message):", 1)[-1]
    said = " ".join(said.split()).split(" Call Stack")[0]
    report.line("fix", f"the configure will stop: {said}")


def main():
    print(f"PMPP CUDA examples: what this machine has ({REPO})", flush=True)
    report = Report()
    check_python(report)
    cmake = check_cmake(report)
    check_ninja(report)
    check_cxx(report)
    nvcc, nvcc_version = check_nvcc(report)
    ccs = check_gpus(report, nvcc_version)
    toolkit = ("cuda-%s-%d-%d" % ("%s", *nvcc_version)) if nvcc_version else "cuda-%s-<version>"
    check_tool(report, "compute-sanitizer", nvcc, "compute-sanitizer",
               "no compute-sanitizer: the tests labelled sanitize are left out; it comes with "
               "NVIDIA's toolkit (package %s)" % (toolkit % "sanitizer"))
    check_tool(report, "ncu", nvcc, "nsight-compute",
               "no ncu (Nsight Compute): only the profiler counters need it; it comes with "
               "NVIDIA's toolkit (package %s)" % (toolkit % "nsight-compute"))
    check_architectures(report, cmake, nvcc, bool(ccs) and all(cc < MIN_CC for cc in ccs))
    if report.fixes:
        print(f"doctor: {report.fixes} thing(s) to fix before the README's commands work "
              f"(the `fix` lines)", flush=True)
        return 1
    if not ccs:
        print("doctor: ready to build and run everything that needs no GPU; the GPU programs "
              "will say SKIP", flush=True)
    else:
        print("doctor: ready: `cmake --workflow --preset examples`", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
