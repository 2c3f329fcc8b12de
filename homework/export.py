#!/usr/bin/env python3
"""Writes the student tree of the exercises registered with add_example(... HOMEWORK).

    python3 homework/export.py --manifest build/homework_exercises.json --dest DIR
                               [--chapters a,b] [--programs x,y] [--solution-lines FILE]

The `homework_export` target runs this (cmake/Homework.cmake). --chapters and --programs default
to the environment variables HOMEWORK_CHAPTERS and HOMEWORK_PROGRAMS (empty or unset: all). The
tree holds common/, cmake/ (without the instructor's Homework.cmake), the chosen exercises with
every file of the repository they include (each marked file in its student form: hwtext.generate),
each chapter's README, RESULTS.md, pictures and data, the glossary and the timings, a CMakeLists.txt per chapter with the
exercises' add_example() calls, the grader (grader/, with the regions of every marked file in
grader/regions.json and those files as handed out in grader/handed_out/), a GitHub Classroom
workflow and a README for students. DEST is replaced, so it must be empty, absent, or an earlier export whose marked
files nobody has edited since. --solution-lines (tests of the scheme) receives, per region, a line
that only the solution has; it must stay out of the student tree.
"""

import argparse
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "grader"))
import hwtext  # noqa: E402

GRADER_FILES = ["grade.py", "hwtext.py", "sandbox.py", "results.py", "exec_as.py"]
SOURCE_SUFFIXES = (".h", ".hpp", ".cuh", ".cu", ".cpp", ".cc")
# Words of a function's header that name nothing a host region may use.
NOT_NAMES = set("""template typename class struct static inline extern constexpr const volatile
__host__ __device__ __global__ __forceinline__ __noinline__ noexcept operator""".split())


class ExportError(Exception):
    pass


def read(path):
    with open(path, "rb") as f:
        text = hwtext.decode(f.read())
    if text is None:
        raise ExportError("%s: not UTF-8 text" % path)
    return text


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def needed_files(src, files):
    """The files an exercise needs: its own, and what they include from the repository outside
    common/ (copied whole), followed to the end."""
    queue, seen = list(files), []
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.append(path)
        for included in hwtext.INCLUDE.findall(read(path)):
            target = os.path.normpath(os.path.join(os.path.dirname(path), included))
            rel = os.path.relpath(target, src)
            if os.path.isfile(target) and not rel.startswith(("..", "common" + os.sep)):
                queue.append(target)
    return seen


def tree_names(dest):
    """Every identifier in the exported tree's sources: what a student can read anyway."""
    found = set()
    for root, _, files in os.walk(dest):
        for name in files:
            if name.endswith(SOURCE_SUFFIXES):
                found.update(hwtext.IDENT.findall(read(os.path.join(root, name))))
    return found


def host_names(region, head, shown):
    """What a region in host code may use (hwtext.host_part_check): the parameters of its
    function's header, and the names its worked example uses there whose every part the student
    tree shows anyway (no hint leaks); of those, the ones it calls. Never the function's own name:
    a part that calls its own function recurses until the stack is gone."""
    words = [word for word in head or [] if hwtext.IDENT.fullmatch(word)]
    own = next((a for a, b in zip(head or [], (head or [])[1:]) if b == "(" and
                hwtext.IDENT.fullmatch(a)), None)
    allow = set(word for word in words if word not in NOT_NAMES and word != own and
                word not in hwtext.HOST_TYPES)
    code = [t for t in hwtext.lex(region.solution, 1) if t.kind in ("ident", "punct")]
    calls = set()
    for name, _ in hwtext.names(code):
        name = name.lstrip(":")
        if name in ("return", "static_cast") or name in hwtext.HOST_TYPES or name == own or \
                not all(part in shown for part in name.split("::")):
            continue
        allow.add(name)
    # A name is called where `(` follows its last part.
    for i, tok in enumerate(code):
        if tok.kind == "ident" and i + 1 < len(code) and code[i + 1].text == "(":
            for name in allow:
                if name.split("::")[-1] == tok.text:
                    calls.add(name)
    return sorted(allow - calls), sorted(calls)


def classroom_workflow(template, exercises):
    steps, env, ids = [], [], []
    for ex in exercises:
        step = "ex-" + re.sub(r"[^A-Za-z0-9]+", "-", ex["name"]).strip("-").lower()
        ids.append(step)
        steps.append(
            "      - name: %s\n"
            "        id: %s\n"
            "        uses: classroom-resources/autograding-command-grader@v1\n"
            "        with:\n"
            "          test-name: %s\n"
            "          command: ctest --test-dir build -L homework -R '^%s/%s(/|$)' "
            "--output-on-failure\n"
            "          timeout: 10\n"
            "          max-score: %s\n" % (ex["name"], step, ex["name"], ex["chapter"],
                                        ex["name"], format_points(ex["points"])))
        env.append('          %s_RESULTS: "${{steps.%s.outputs.result}}"\n' % (step.upper(), step))
    return (template.replace("@STEPS@", "".join(steps).rstrip("\n"))
            .replace("@REPORTER_ENV@", "".join(env).rstrip("\n"))
            .replace("@RUNNERS@", ",".join(ids)))


def format_points(points):
    return ("%g" % points)


def export(manifest, dest, chapters=(), programs=(), solution_lines=None):
    with open(manifest, encoding="utf-8") as f:
        data = json.load(f)
    src = data["source_dir"]
    exercises = data["exercises"]
    names = [ex["name"] for ex in exercises]
    all_chapters = []
    for ex in exercises:
        if ex["chapter"] not in all_chapters:
            all_chapters.append(ex["chapter"])
    for name in programs:
        if name not in names:
            raise ExportError("homework_export: %s is not an exercise of this build (the "
                              "exercises: %s)" % (name, " ".join(names)))
    for chapter in chapters:
        if chapter not in all_chapters:
            raise ExportError("homework_export: no exercise in chapter %s (chapters with "
                              "exercises: %s; -DCHAPTERS=... at configure time decides which "
                              "chapters the build has)" % (chapter, " ".join(all_chapters)))
    chosen = [ex for ex in exercises if (not chapters or ex["chapter"] in chapters) and
              (not programs or ex["name"] in programs)]
    if not chosen:
        raise ExportError("homework_export: nothing to export")
    marked = set()
    for ex in exercises:  # every marked file of the build, chosen or not: none leaves unstubbed
        marked.update(ex["files"])

    marker = hwtext.EXPORT_RECORD
    if os.path.exists(dest) and not os.path.exists(os.path.join(dest, marker)) and \
            os.listdir(dest):
        raise ExportError("homework_export: %s exists and is not an earlier export; choose an "
                          "empty or new folder" % dest)
    # An earlier export in which someone has started to write is kept.
    if os.path.exists(os.path.join(dest, marker)):
        for rel, digest in hwtext.read_export_record(dest).items():
            path = os.path.join(dest, rel)
            if os.path.exists(path) and sha256(path) != digest:
                raise ExportError(
                    "homework_export: %s has been edited since the last export; save that work "
                    "elsewhere and delete %s, or export to another folder "
                    "(-DHOMEWORK_EXPORT_DIR=...)" % (path, dest))
    new = dest + ".new"
    shutil.rmtree(new, ignore_errors=True)
    os.makedirs(new)
    write(os.path.join(new, ".gitignore"), "/build*/\n/graded*/\n__pycache__/\n")
    shutil.copytree(os.path.join(src, "common"), os.path.join(new, "common"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    os.makedirs(os.path.join(new, "cmake"))
    for name in sorted(os.listdir(os.path.join(src, "cmake"))):
        if name.endswith(".cmake") and name != "Homework.cmake":
            shutil.copy2(os.path.join(src, "cmake", name), os.path.join(new, "cmake", name))
    if os.path.exists(os.path.join(src, ".clang-format")):
        shutil.copy2(os.path.join(src, ".clang-format"), os.path.join(new, ".clang-format"))

    regions = {}
    calls = {}
    rows = []
    heads = {}
    for ex in chosen:
        calls.setdefault(ex["dir"], []).append(ex["call"])
        files = [os.path.join(src, rel) for rel in [ex["source"]] + ex["files"]]
        for path in needed_files(src, files):
            rel = os.path.relpath(path, src)
            out = os.path.join(new, rel)
            if rel not in marked:
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copy2(path, out)
            elif rel not in regions:
                try:
                    student, found = hwtext.generate(read(path), path)
                except hwtext.MarkError as e:
                    raise ExportError(str(e))
                write(out, student)
                lines = hwtext.split_lines(student)
                functions = hwtext.enclosing_functions(lines)
                for r in found:
                    r.kind = hwtext.region_kind(functions[r.first])
                regions[rel] = found
                heads[rel] = functions
        rows.append("| `%s` | `%s` | %s | `ctest --test-dir build -R '^%s/%s'` | %s |" % (
            ex["name"], "`, `".join(ex["files"]), format_points(ex["points"]), ex["chapter"],
            ex["name"], ", ".join("`%s`" % name for name in ex["forbid"]) or "-"))
    shown = tree_names(new)
    regions_json = {}
    only = {}
    for rel, found in regions.items():
        for r in found:
            if r.kind == "host":
                r.allow, r.calls = host_names(r, heads[rel][r.first], shown)
        regions_json[rel] = [{"first": r.first, "last": r.last, "kind": r.kind, "allow": r.allow,
                              "calls": r.calls}
                             for r in found]
        only[rel] = [{"line": r.begin_line, "only": r.only} for r in found]

    # Each chapter's lesson beside its exercises: its README, RESULTS.md and EXERCISES.md (the
    # book's end-of-chapter exercises, answered) with the pictures and the data they cite, and the
    # glossary and timings they link.
    for directory in calls:
        folder = os.path.join(src, directory)
        for name in sorted(os.listdir(folder)):
            if name in ("README.md", "RESULTS.md", "EXERCISES.md") or name.endswith(".png"):
                shutil.copy2(os.path.join(folder, name), os.path.join(new, directory, name))
        if os.path.isdir(os.path.join(folder, "data")):
            shutil.copytree(os.path.join(folder, "data"), os.path.join(new, directory, "data"))
    if os.path.exists(os.path.join(src, "GLOSSARY.md")):
        shutil.copy2(os.path.join(src, "GLOSSARY.md"), os.path.join(new, "GLOSSARY.md"))
    if os.path.isdir(os.path.join(src, "timings")):
        shutil.copytree(os.path.join(src, "timings"), os.path.join(new, "timings"))

    for directory, chapter_calls in calls.items():
        write(os.path.join(new, directory, "CMakeLists.txt"),
              "# The exercises of %s, as the worked examples register them.\nset(chapter %s)\n\n%s\n"
              % (directory, os.path.basename(directory), "\n".join(chapter_calls)))
    student = os.path.join(HERE, "student")
    languages = "CXX CUDA" if any(ex["kind"] == "gpu" for ex in chosen) else "CXX"
    with open(os.path.join(student, "CMakeLists.txt.in"), encoding="utf-8") as f:
        write(os.path.join(new, "CMakeLists.txt"),
              f.read().replace("@HOMEWORK_CHAPTER_DIRS@", " ".join(calls))
              .replace("@HOMEWORK_LANGUAGES@", languages)
              .replace("@HOMEWORK_GPU_PROGRAM@", chosen[0]["name"] if chosen[0]["kind"] == "gpu"
                       else ""))
    with open(os.path.join(student, "README.md.in"), encoding="utf-8") as f:
        write(os.path.join(new, "README.md"),
              f.read().replace("@HOMEWORK_TABLE@", "\n".join(rows) + "\n"))
    with open(os.path.join(student, "classroom.yml.in"), encoding="utf-8") as f:
        write(os.path.join(new, ".github", "workflows", "classroom.yml"),
              classroom_workflow(f.read(), chosen))
    os.makedirs(os.path.join(new, "grader"))
    for name in GRADER_FILES:
        shutil.copy2(os.path.join(HERE, "grader", name), os.path.join(new, "grader", name))
    forbid = {rel: sorted({name for ex in chosen for name in ex["forbid"]
                           if rel in ex["files"] or rel == ex["source"]}) for rel in regions}
    write(os.path.join(new, "grader", "regions.json"),
          json.dumps({"files": regions_json, "forbid": forbid}, indent=1, sort_keys=True) + "\n")
    # The marked files as handed out, for `grade.py --rules` in a tree the student has edited.
    for rel in regions:
        os.makedirs(os.path.dirname(os.path.join(new, "grader", "handed_out", rel)), exist_ok=True)
        shutil.copy2(os.path.join(new, rel), os.path.join(new, "grader", "handed_out", rel))
    if solution_lines:
        write(solution_lines, json.dumps(only, indent=1, sort_keys=True) + "\n")

    # The marker records each student file's hash as exported; one that no longer has it has
    # been edited since.
    lines = ["written by homework_export; replaced by the next export unless a file below "
             "changed"]
    lines += ["%s %s" % (sha256(os.path.join(new, rel)), rel) for rel in sorted(regions)]
    write(os.path.join(new, marker), "\n".join(lines) + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(new, dest)
    return [ex["name"] for ex in chosen]


def sha256(path):
    with open(path, "rb") as f:
        return hwtext.sha256(f.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--dest", required=True)
    parser.add_argument("--chapters", default=os.environ.get("HOMEWORK_CHAPTERS", ""))
    parser.add_argument("--programs", default=os.environ.get("HOMEWORK_PROGRAMS", ""))
    parser.add_argument("--solution-lines")
    args = parser.parse_args()
    split = lambda text: [item for item in text.split(",") if item]  # noqa: E731
    try:
        chosen = export(args.manifest, os.path.abspath(args.dest), split(args.chapters),
                        split(args.programs), args.solution_lines)
    except ExportError as e:
        print(e, file=sys.stderr)
        return 1
    print("homework_export: %d exercise(s) (%s) written to %s"
          % (len(chosen), " ".join(chosen), args.dest))
    return 0


if __name__ == "__main__":
    # Whatever the locale, printing never fails: what cannot be encoded is escaped.
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    sys.exit(main())
