"""Stand-ins for the tools scripts/doctor.py and cmake/CudaArchitectures.cmake ask (nvidia-smi,
nvcc, cmake, ninja, ...): small shell scripts in a folder that becomes the whole PATH, each
printing the answer a test chose, so that every decision is tested on a machine without (or
with any) GPU and toolkit."""
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REAL_CMAKE = shutil.which("cmake")
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def finish():
    if failures:
        print(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    print("all checks passed")
    return 0


def script(path, body):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def echo(text):
    """Shell lines that print text as it is (no expansion)."""
    return "".join("printf '%s\\n' '" + line.replace("'", "'\\''") + "'\n"
                   for line in text.splitlines())


def nvcc(folder, release, archs):
    """An nvcc of this release (e.g. "12.4") that can target archs ([50, ..., 90])."""
    listing = "".join(f"compute_{a}\n" for a in archs)
    return script(Path(folder) / "nvcc", f"""case "$1" in
--version) {echo(f"Cuda compilation tools, release {release}, V{release}.99")};;
--list-gpu-arch) {echo(listing)};;
*) exit 1;;
esac
""")


def nvidia_smi(folder, rows, cuda):
    """An nvidia-smi whose GPUs are rows ("NVIDIA H200, 9.0, 143771, 580.95.05": name,
    compute capability, MiB, driver) and whose banner says CUDA Version: cuda."""
    names_ccs = "\n".join(", ".join(r.split(", ")[:2]) for r in rows)
    return script(Path(folder) / "nvidia-smi", f"""case "$1" in
--query-gpu=name,compute_cap) {echo(names_ccs)};;
--query-gpu=*) {echo(chr(10).join(rows))};;
*) {echo(f"| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: {cuda} |")};;
esac
""")


def cmake(folder, version):
    """A cmake that says it is `version` and runs scripts with the real CMake."""
    return script(Path(folder) / "cmake", f"""case "$1" in
--version) {echo(f"cmake version {version}")};;
*) exec '{REAL_CMAKE}' "$@";;
esac
""")


def tool(folder, name, answer="1.0"):
    return script(Path(folder) / name, echo(answer))


def fake_env(path_dirs, **extra):
    """The environment with only path_dirs on the PATH and no CUDA settings of the caller's."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDACXX", "CUDA_PATH", "CUDAARCHS", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(str(d) for d in path_dirs)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(command, env, cwd=None):
    r = subprocess.run([str(c) for c in command], env=env, cwd=cwd, capture_output=True,
                       encoding="utf-8", errors="replace")
    return r.returncode, r.stdout, r.stderr


def python():
    return sys.executable
