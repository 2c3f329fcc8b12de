#!/usr/bin/env python3
"""Checks, without a GPU, that readme_numbers.py fills every block of the README once a GPU run
has written its files, and says "not yet measured" in every block while they are missing.

    python3 warp_aggregation/readme_numbers_test.py

It writes every data file the README quotes, in the formats the programs print them (the printf
formats of 01-04 and scripts/gpu_check.sh's `record`), with made-up times, into a folder of its
own, runs readme_numbers.py --data on a copy of the README, and checks each block: filled, with no
"No measurement" and no "(not yet measured)" left; with a benchmark run that lacks the blog's own
bar (masks given + CAS, which older runs did not time) every block filled too, that bar left out of
the blocks and of plot_benchmark.py's speed-up plot. Then the same with an empty data folder: every
block that needs data must say that it has none. plot_sweep.py draws the made-up sweep too (where
matplotlib is installed). Exit 0 when every check holds.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ORDERS = ["sorted", "partially sorted", "random"]
VARIANTS = ["atomicAdd", "atomicCAS loop", "shared-memory hashing", "warp get_peers",
            "warp get_peers + CAS", "warp match_any", "cg labeled_partition",
            "get_peers search only", "match_any search only", "reduce_peers masks given",
            "reduce_peers masks given + CAS", "warp segmented scan 4/lane",
            "warp segmented scan 8/lane"]
# The blog's own bar (masks given, adding with the atomicCAS loop): runs before 03 timed it lack it.
BLOG_BAR = "reduce_peers masks given + CAS"
SWEEP_D = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 28, 32]
failures = []


def expect(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def made_up_ms(*parts):
    """A time in ms that differs from one row to the next and stays in 0.03-0.7."""
    h = sum((i + 1) * ord(c) for i, c in enumerate("/".join(map(str, parts))))
    return 0.03 + (h % 6700) / 10000.0


def bench_rows(orders, precisions, without=()):
    rows = []
    for p in precisions:
        for o in orders:
            variants = [v for v in VARIANTS if v not in without] + (["CUB ReduceByKey"] if "random" not in o and
                                   "scattered" not in o and "partially" not in o else [])
            variants += ["CUB sort + ReduceByKey"]
            for v in variants:
                t = made_up_ms(p, o, v)
                rows.append(f"{p},{o},{v},10000000,{t:.6f},1000.00,20.00,1.000000,1.000000,,"
                            f"{t * 0.98:.6f},{t * 1.02:.6f},1000000,84000000,4.000")
    header = ("precision,order,variant,n,ms,gb_per_s,pct_of_peak,vs_atomicadd,vs_cas,"
              "vs_cub_sorted,ms_min,ms_max,bins,bytes,keys_per_warp")
    return "\n".join([header] + rows) + "\n"


def text_row(p, o, v):
    """One row of 03's text output (print_results' format)."""
    t = made_up_ms(p, o, v)
    return ("%-6s %-17s %-30s %10.4f %10.4f .. %7.4f %8.1f %6.1f%% %8s %7s %6s"
            % (p, o, v, t, t * 0.98, t * 1.02, 1000.0, 20.0, "1.00", "1.00", "-"))


def reporter_line(program, variant, n, ms):
    """common::Reporter's result line, with the peak."""
    name = f"{program} {variant}"
    return f"{name:<40} n={n:<11} {ms:10.4f} ms {1000.0:9.1f} GB/s  {20.0:5.1f}% of peak 4814 GB/s"


def sources_txt(changed=()):
    """sources.txt as scripts/gpu_check.sh writes it, for the chapter's sources as they are now,
    but with a wrong sha256 for those in `changed` (data older than them)."""
    lines = ["commit 0123456789abcdef0123456789abcdef01234567 2026-01-01"]
    for name in ["01_get_peers.cu", "02_reduce_peers.cu", "03_reduction_by_key_benchmark.cu",
                 "04_warp_aggregated_increment.cu", "warp_peers.cuh", "warp_agg.h"]:
        digest = hashlib.sha256(open(os.path.join(HERE, name), "rb").read()).hexdigest()
        lines.append(f"{'0' * 64 if name in changed else digest}  {name}")
    return "\n".join(lines) + "\n"


def put(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def write_data(folder):
    def put(name, text):  # noqa: F811  (the folder's file)
        globals()["put"](folder, name, text)

    put("sources.txt", sources_txt())
    put("key_orders.txt", "\n".join(
        ["$ build/bin/warp_host_checks --orders"]
        + [f"{o}: 4.00 distinct keys per warp (4 to 4 in 100.0% of the warps), 1000000 bins, at "
           "most 10 values a bin" for o in ORDERS]
        + [f"{d} keys/warp {a}: {d}.00 distinct keys per warp ({d} to {d} in 100.0% of the "
           "warps), 312500 bins, at most 32 values a bin" for a in ["in runs", "scattered"]
           for d in SWEEP_D] + ["[exit 0]", ""]))

    put("env.txt", "date: 2026-01-01\nname, driver_version\nNVIDIA H200, 580.00.00, 143771 MiB\n"
        "Cuda compilation tools, release 13.0, V13.0.88\n")
    keys = "3 4 2 3 5 1 6 7 3 3 7 7 5 0 6 7 6 2 2 2 1 6 6 6 4 5 4 1 3 7 6 1 "
    put("traces.txt", "\n".join([
        "$ build/bin/01_get_peers --n 64 --trace",
        "device 0: NVIDIA H200, sm_90, 132 SMs, 4814 GB/s peak memory bandwidth", "",
        "get_peers, round by round, first warp of '8 keys' (lane 0 on the left)",
        "  keys     " + keys,
        "  round leader key   peers (ballot)                    unclaimed after",
        "  0     0      3     1..1....11..................1...  .11.1111..111111111111111111.111",
        reporter_line("01_get_peers", "get_peers/8 keys", 64, 0.0038),
        "[exit 0]",
        "$ build/bin/02_reduce_peers --n 64 --trace",
        "device 0: NVIDIA H200, sm_90, 132 SMs, 4814 GB/s peak memory bandwidth", "",
        "reduce_peers, round by round, first warp of '8 keys' (2 rounds; x after each)",
        "  lane  key  rel_pos  value  round 0  round 1  result",
        "     0    3        0   0.75     1.25     4.50    4.50  <- first",
        "     3    3        1   0.50        .        .    4.50",
        "     8    3        2   0.25     3.25        .    4.50",
        reporter_line("02_reduce_peers", "reduce_peers/float/8 keys", 64, 0.0042),
        "[exit 0]", ""]))
    put("get_peers.csv", "program,variant,n,ms,gb_per_s,pct_of_peak\n" + "".join(
        f"01_get_peers,{v}/{p},1000003,{made_up_ms(v, p):.6f},1000.00,20.00\n"
        for p in ["all equal", "all distinct", "runs", "8 keys"]
        for v in ["get_peers", "__match_any_sync"]))
    put("reduce_peers.csv", "program,variant,n,ms,gb_per_s,pct_of_peak\n" + "".join(
        f"02_reduce_peers,reduce_peers/{t}/{p},1000003,{made_up_ms(t, p):.6f},1000.00,20.00\n"
        for t in ["float", "double"] for p in ["all equal", "all distinct", "runs", "8 keys"]))
    put("benchmark.csv", bench_rows(ORDERS, ["float", "double"]))
    put("benchmark_log.txt",
        "device 0: NVIDIA H200, sm_90, 132 SMs, 4814 GB/s peak memory bandwidth\n"
        "sorted: 4.00 distinct keys per warp (4 to 4 in 100.0% of the warps), 1000000 bins, at "
        "most 10 values a bin; checking, then timing\nevery variant's bins match the CPU "
        "exactly\n")
    put("scan.txt", "\n".join(
        ["$ build/bin/03_reduction_by_key_benchmark --order sorted --precision double",
         "device 0: NVIDIA H200, sm_90, 132 SMs, 4814 GB/s peak memory bandwidth",
         "sorted: 4.00 distinct keys per warp (4 to 4 in 100.0% of the warps), 1000000 bins, at "
         "most 10 values a bin; checking, then timing",
         "type   order             variant                                ms         ms min .. max"]
        + [text_row("double", "sorted", v) for v in VARIANTS + ["CUB ReduceByKey"]]
        + ["[exit 0]", ""]))
    put("sweep.csv", bench_rows([f"{d} keys/warp {a}" for a in ["in runs", "scattered"]
                                 for d in SWEEP_D], ["double"]))
    repeat = ["precision,order,variant,n,bins,most_per_bin,keys_per_warp,runs,distinct_results,"
              "bins_that_differ,identical"]
    for p in ["float", "double"]:
        for o in ORDERS:
            for i, v in enumerate([v for v in VARIANTS if "search only" not in v]
                                  + ["CUB sort + ReduceByKey"]):
                same = i % 3 != 0
                repeat.append(f"{p},{o},{v},10000000,1000000,10,4.000,20,{1 if same else 3},"
                              f"{0 if same else 1234},{'yes' if same else 'no'}")
    put("determinism.csv", "\n".join(repeat) + "\n")
    put("determinism_4096.csv", "\n".join(
        repeat[:1] + [f"double,sorted,{v},10000000,2442,4096,1.000,20,2,17,no"
                      for v in ["atomicAdd", "CUB ReduceByKey", "CUB sort + ReduceByKey"]]) + "\n")
    variants04 = ["plain atomicAdd", "warp-aggregated", "coalesced_threads", "block-aggregated",
                  "CUB DeviceSelect::If"]
    put("filter.csv", "program,variant,n,ms,gb_per_s,pct_of_peak\n" + "".join(
        f"04_warp_aggregated_increment,{v}/{pct}%,16777216,{made_up_ms(v, pct):.6f},500.00,"
        "10.00\n" for pct in [1, 50] for v in variants04))
    put("filter.txt", "\n".join(
        ["$ build/bin/04_warp_aggregated_increment",
         "device 0: NVIDIA H200, sm_90, 132 SMs, 4814 GB/s peak memory bandwidth"]
        + [reporter_line("04_warp_aggregated_increment", f"{v}/{pct}%", 16777216,
                         made_up_ms(v, pct)) for pct in [1, 50] for v in variants04]
        + ["every filtered output matches the CPU as a multiset", "[exit 0]", ""]))


def sweep_row(ms, slowest=None):
    return {"ms": f"{ms:.6f}", "ms_min": f"{ms * 0.98:.6f}",
            "ms_max": f"{(slowest or ms * 1.02):.6f}"}


def check_disturbed_point():
    """A sweep point whose slowest run took over plot_sweep.TAIL times its median stays out of the
    crossover verdict and is named beside it; with a tight spread the same median counts."""
    import plot_sweep
    base = {d: sweep_row(0.07) for d in SWEEP_D}
    match = {d: sweep_row(0.06 if d < 20 else 0.08) for d in SWEEP_D}
    match[20] = sweep_row(0.10, slowest=0.22)
    match[24] = sweep_row(0.069)
    rows = {"atomicAdd": base, "warp match_any": match}
    verdict = plot_sweep.verdict(rows, "warp match_any")
    expect(plot_sweep.slower_from(rows, "warp match_any") == 28 and "*d* = 20: its runs took"
           in verdict and plot_sweep.DOUBTFUL in plot_sweep.table(
               {"double": {"in runs": rows}}, ""),
           "a disturbed sweep point is left out of the verdict, named and marked: " + verdict)
    match[20] = sweep_row(0.10)
    expect(plot_sweep.slower_from(rows, "warp match_any") == 28 and
           plot_sweep.doubtful_ds(rows, "warp match_any") == [],
           "a slower point with a tight spread is no disturbed one; a faster d after it moves "
           "the crossover past it")
    match[24] = sweep_row(0.08)
    expect(plot_sweep.slower_from(rows, "warp match_any") == 20,
           "a slower point with a tight spread counts in the verdict")
    faster = {d: sweep_row(0.06) for d in SWEEP_D}
    faster[32] = sweep_row(0.08, slowest=0.2)
    verdict = plot_sweep.verdict({"atomicAdd": base, "warp match_any": faster}, "warp match_any")
    expect(verdict.startswith("faster than `atomicAdd` at every *d* but 32;"),
           "a variant faster at every d but a disturbed one names that d: " + verdict)
    table = plot_sweep.table({"double": {"in runs": rows}}, "")
    expect(f"the table shows {len(plot_sweep.TABLE_D)} of the {len(SWEEP_D)} *d* measured"
           in table.replace("\n", " "), "the sweep's table says how many d it leaves out")


def check_plot_benchmark(csv_path, with_bar):
    """plot_benchmark.py's speed-up plot (the blog's Figure 1) shows the blog's own bar where the
    run has it, third as in the blog's figure, and leaves it out, with no empty slot, where not."""
    import plot_benchmark
    rows, _ = plot_benchmark.load(csv_path)
    shown, bars = plot_benchmark.speedup_bars(rows)
    if with_bar:
        expect(len(shown) == 7 and shown[2] == BLOG_BAR and
               sum(b[0] == BLOG_BAR for b in bars) == len(plot_benchmark.BLOG_ORDERS),
               "benchmark_speedup.png: the blog's own bar, third, for both orders")
    else:
        expect(len(shown) == 6 and BLOG_BAR not in shown and
               all(b[0] in shown for b in bars),
               "benchmark_speedup.png: a run without the blog's own bar leaves it out")


def check_ncu_names():
    """plot_benchmark.py's Nsight Compute tables tell the two masks-given kernels apart, in an
    older export (before masks_given_kernel took its Atomic) too."""
    import plot_benchmark
    names = {"void masks_given_kernel<0, double>(const int *, const double *)":
             "reduce_peers masks given",
             "void masks_given_kernel<1, double>(const int *, const double *)": BLOG_BAR,
             "void masks_given_kernel<(Atomic)1, double>(const int *)": BLOG_BAR,
             "void masks_given_kernel<double>(const int *, const double *)":
             "reduce_peers masks given"}
    got = {name: plot_benchmark.kernel_variant(name, {}) for name in names}
    expect(got == names, f"Nsight Compute's masks_given_kernel names: {got}")


def check_draw_traces():
    """draw_get_peers.py --check and draw_reduce_peers.py --check replay the loops of
    warp_peers.cuh in Python: their tables must be the GPU's, as data/traces.txt holds them."""
    gpu = [line.rstrip() for line in open(os.path.join(HERE, "data", "traces.txt"))]
    for script in ("draw_get_peers.py", "draw_reduce_peers.py"):
        done = subprocess.run([sys.executable, os.path.join(HERE, script), "--check"],
                              capture_output=True, text=True)
        mine = [line.rstrip() for line in done.stdout.splitlines()]
        found = any(gpu[i:i + len(mine)] == mine for i in range(len(gpu)))
        expect(done.returncode == 0 and len(mine) > 3 and found,
               f"{script} --check prints, line for line, the trace in data/traces.txt")


def blocks(readme):
    """{name: text} of every generated block."""
    text = open(readme).read()
    return dict(re.findall(r"<!-- ([a-z0-9-]+):begin -->(.*?)<!-- \1:end -->", text, re.S))


def run(data, readme):
    """readme_numbers.py on the README and, beside it, RESULTS.md."""
    results = os.path.join(os.path.dirname(readme), "RESULTS.md")
    return subprocess.run([sys.executable, os.path.join(HERE, "readme_numbers.py"), "--readme",
                           readme, "--results", results, "--data", data],
                          capture_output=True, text=True)


def main():
    import readme_numbers  # the block names
    with tempfile.TemporaryDirectory() as tmp:
        readme = os.path.join(tmp, "README.md")
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        shutil.copy(os.path.join(HERE, "README.md"), readme)
        results = os.path.join(tmp, "RESULTS.md")
        shutil.copy(os.path.join(HERE, "RESULTS.md"), results)
        open(os.path.join(tmp, "sweep.png"), "wb").close()

        # No data: every block runs, and says what it lacks.
        done = run(data, readme)
        expect(done.returncode == 0, "readme_numbers.py runs with no data (" +
               done.stderr.strip()[-200:] + ")")
        empty = blocks(readme)
        expect(set(readme_numbers.BLOCKS) <= set(empty),
               "the README has a block for each of readme_numbers.py's: missing "
               + ", ".join(sorted(set(readme_numbers.BLOCKS) - set(empty))))
        for name in readme_numbers.BLOCKS:
            text = empty.get(name, "")
            expect(name == "sweep-figure" and text.strip() == "" or
                   "No measurement" in text or "not yet measured" in text,
                   f"with no data, block {name} says it has none")

        # Every file: every block filled.
        write_data(data)
        done = run(data, readme)
        expect(done.returncode == 0, "readme_numbers.py runs on a GPU run's files (" +
               done.stderr.strip()[-200:] + ")")
        full = blocks(readme)
        full_results = blocks(results)
        expect(set(readme_numbers.RESULTS_BLOCKS) <= set(full_results),
               "RESULTS.md has a block for each of readme_numbers.py's RESULTS_BLOCKS: missing "
               + ", ".join(sorted(set(readme_numbers.RESULTS_BLOCKS) - set(full_results))))
        for name in readme_numbers.RESULTS_BLOCKS:
            text = full_results.get(name, "")
            expect(text.strip() != "" and "No measurement" not in text and
                   "not yet measured" not in text and " None" not in text,
                   f"with a GPU run's files, RESULTS.md's block {name} is filled")
        expect("scattered over the lanes" in full_results.get("sweep-full", "") and
               "scattered over the lanes" not in full.get("sweep-table", "").split("RESULTS.md")[0],
               "the README's sweep table is the keys in runs; RESULTS.md's has both")
        for name in readme_numbers.BLOCKS:
            text = full.get(name, "")
            expect(text.strip() != "" and "No measurement" not in text and
                   "not yet measured" not in text and " None" not in text,
                   f"with a GPU run's files, block {name} is filled")
        expect("sweep.png" in full.get("sweep-figure", ""), "the sweep's plot shows once drawn")
        expect("8 keys" in full.get("prints-01", "") and "8 keys" in full.get("prints-02", ""),
               "01's and 02's traces are those of the '8 keys' pattern")
        expect("every lane still holding a partial sum after round 0" in full.get("prints-02", "")
               and re.search(r"and key \d+'s lanes? [\d, and]+\)", full.get("prints-02", "")),
               "02's excerpt says which lanes it shows")
        expect("all distinct as on keys all equal" in full.get("number-02", "") and
               "reduce_peers.csv" in full.get("number-02", "") and
               "benchmark.csv" not in full.get("number-02", "") and
               "RESULTS.md#02s-timing" in full.get("number-02", ""),
               "02's number comes from 02's own run (all distinct over all equal, in double) and "
               "links its table")
        expect(all("four of its ten columns" in full.get(name, "") and
                   "xatomic    xCAS" in full.get(name, "") and "%peak" not in full.get(name, "")
                   for name in ("prints-03", "prints-scan", "prints-cg", "prints-library")),
               "03's excerpts show four columns (variant, ms, xatomic, xCAS) and say so")
        expect("prints-cg" in full and "cg labeled_partition" in full.get("prints-cg", ""),
               "the cooperative-groups section prints its benchmark rows")
        expect("scattered" in full.get("which-to-use", ""),
               "the advice on scattered keys quotes the scattered sweep")
        # One ratio of one kind a cell (× as fast), and one search a row in the blog's table.
        advice = [line.split("|")[3] for line in full.get("which-to-use", "").splitlines()
                  if line.startswith("| ") and "your keys" not in line and "---" not in line]
        expect("| use |" in full.get("which-to-use", "") and len(advice) == 6 and
               all(cell.count("×") == 1 and "time" not in cell for cell in advice),
               "which-to-use: every measured cell is one ratio, × as fast")
        # One baseline a ratio column, named in its header: one `atomicAdd` per value.
        expect("× as fast as one `atomicAdd` a value" in full.get("which-to-use", "") and
               not any("atomicAdd" in cell or "plain kernel" in cell for cell in advice),
               "which-to-use: one baseline for the measured column, named in its header")
        ratios = [line.split("|")[3] for line in full.get("blog-table", "").splitlines()
                  if line.startswith("| ") and "the blog says" not in line]
        expect("| × as fast as `atomicAdd` |" in full.get("blog-table", "") and
               not any("loop" in cell or "%" in cell for cell in ratios),
               "the blog's table: one baseline for its ratio column, `atomicAdd`")
        table = full.get("blog-table", "")
        expect(("for no k measured" in table or re.search(
                   r"pays from k = (\d+),.*\| search \+ k reductions < k `atomicAdd` passes: "
                   r"[0-9.]+ \+ k × [0-9.]+ < k × [0-9.]+ ms ⇒ k ≥ \1 ", table)) and
               table.count("〃 (the same)") == 1,
               "the blog's table: the reuse inequality in its cell, each search its own row, "
               "one reuse row for both searches")
        expect(not any(re.search(r"ha(s|ve) changed since", text) for text in full.values()),
               "data whose sources are those of today: no block calls it older")
        expect("312,500 bins" in full.get("sweep-bins", ""),
               "the sweep's bins come from key_orders.txt")
        expect(BLOG_BAR in full.get("prints-03", "") and
               "own bar" not in full.get("blog-table", "") and
               "the blog's own bar" in full_results.get("blog-table", ""),
               "a run with the blog's own bar prints its row under 03 and quotes it in "
               "RESULTS.md's table of the blog's conclusions (the README's: one number a cell)")
        check_plot_benchmark(os.path.join(data, "benchmark.csv"), with_bar=True)

        # A run made before 03 timed the blog's own bar: every block filled all the same, the bar
        # left out, not reported missing.
        full_csv = open(os.path.join(data, "benchmark.csv")).read()
        put(data, "benchmark.csv", bench_rows(ORDERS, ["float", "double"], without=[BLOG_BAR]))
        done = run(data, readme)
        older = blocks(readme)
        older_results = blocks(results)
        expect(done.returncode == 0 and all(
            older.get(name, "").strip() and "No measurement" not in older.get(name, "")
            and " None" not in older.get(name, "") for name in readme_numbers.BLOCKS),
               "a run without the blog's own bar fills every block (" +
               done.stderr.strip()[-200:] + ")")
        expect(BLOG_BAR not in older.get("prints-03", "") and
               "own bar" not in older.get("blog-table", "") and
               "own bar" not in older_results.get("blog-table", ""),
               "a run without the blog's own bar leaves its row and its ratio out")
        check_plot_benchmark(os.path.join(data, "benchmark.csv"), with_bar=False)
        put(data, "benchmark.csv", full_csv)

        # Data older than the code: the provenance, the data-state and the excerpts of the
        # programs whose sources changed say so; the others do not.
        put(data, "sources.txt", sources_txt(changed=["01_get_peers.cu"]))
        traces = open(os.path.join(data, "traces.txt")).read()
        put(data, "traces.txt", traces.replace("'8 keys'", "'random'"))
        done = run(data, readme)
        stale = blocks(readme)
        expect(done.returncode == 0 and "older than the code" in done.stderr,
               "data older than the code is flagged, not refused")
        expect("`01_get_peers.cu`" in stale.get("prints-01", "") and
               "'random'" in stale.get("prints-01", "") and
               "changed since" not in stale.get("prints-02", "") and
               "changed since" in stale.get("provenance", "") and
               "changed since" in stale.get("data-state", "") and
               "commit 0123456" in stale.get("provenance", ""),
               "the stale blocks name the commit, the changed source and the old pattern name")
        put(data, "traces.txt", traces)

        # A GPU run's files without sources.txt: refused, the README left as it was.
        os.remove(os.path.join(data, "sources.txt"))
        before = open(readme).read()
        done = run(data, readme)
        expect(done.returncode != 0 and "sources.txt" in done.stderr and
               open(readme).read() == before,
               "data that does not say which build made it is refused")
        put(data, "sources.txt", sources_txt())

        # The sweep's plot script on the same file.
        png = os.path.join(tmp, "plot", "sweep.png")
        done = subprocess.run([sys.executable, os.path.join(HERE, "plot_sweep.py"),
                               os.path.join(data, "sweep.csv"), "--env",
                               os.path.join(data, "env.txt"), "--png", png],
                              capture_output=True, text=True)
        expect(done.returncode == 0 and "in runs (increasing in each warp)" in done.stdout and
               "scattered over the lanes" in done.stdout,
               "plot_sweep.py tabulates both arrangements (" + done.stderr.strip()[-200:] + ")")
    check_disturbed_point()
    check_ncu_names()
    check_draw_traces()
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
