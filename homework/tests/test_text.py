#!/usr/bin/env python3
"""The homework scheme's text handling (grader/hwtext.py, grade.py's splice), without a GPU
(label homework_scheme):

    python3 homework/tests/test_text.py [--cxx <C++ compiler>] [--nvcc <nvcc>]

  - line ends: split_lines() ends a line exactly where the compilers do. With --cxx and --nvcc
    the compilers themselves are asked: each character that might end a line is put in a `//`
    comment, before a `#define`, and the preprocessed text says whether the definition took;
  - the generator on its fixtures: the expected bytes for a good file, the line (a number, not
    a message's wording) for a bad one;
  - the rules of a student's part, case by case (means 1 to 4 of issue 18 where text decides);
  - the splice: the solution and a student's own answer come back exactly; a changed line, a
    library, a directive, a brace that closes the function are refused at their line.
Every check compares values (line numbers, kinds of problem), never text that a tool formats.
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "grader"))
sys.path.insert(0, os.path.dirname(HERE))
import export  # noqa: E402
import grade  # noqa: E402
import hwtext  # noqa: E402
from checks import check, finish, run  # noqa: E402

# Characters that might end a line, and whether the compilers end one there (what they did when
# asked: GCC 12 and nvcc 13; --cxx and --nvcc ask again).
CANDIDATES = [("LF", "\n", True), ("CRLF", "\r\n", True), ("lone CR", "\r", True),
              ("form feed", "\f", False), ("vertical tab", "\v", False),
              ("NEL U+0085", "\u0085", False), ("line separator U+2028", "\u2028", False),
              ("paragraph separator U+2029", "\u2029", False), ("NUL", "\0", False)]


def compiler_ends_line(command, ch, suffix):
    """Whether `command` (a preprocessor run) ends a `//` comment at `ch`."""
    text = "int a; // x" + ch + "#define HIDDEN 1\n#ifdef HIDDEN\nint hidden_was_defined;\n#endif\n"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "probe" + suffix)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8"))
        done = subprocess.run(command + [path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return b"hidden_was_defined" in done.stdout


def compiler_splices(command, tail, suffix):
    """Whether `command` joins the next line to a `//` comment ending in `tail`."""
    text = "int a; // x" + tail + "\n#define HIDDEN 1\n#ifdef HIDDEN\nint hidden_was_defined;\n" \
        "#endif\n"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "probe" + suffix)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8"))
        done = subprocess.run(command + [path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return b"hidden_was_defined" not in done.stdout


def test_line_ends(compilers):
    for name, ch, ends in CANDIDATES:
        lines = hwtext.split_lines("a" + ch + "b")
        check((len(lines) == 2) == ends, "split_lines: %s %s a line" % (
            name, "ends" if ends else "does not end"))
        for label, command, suffix in compilers:
            check(compiler_ends_line(command, ch, suffix) == ends,
                  "%s: %s %s a line, as split_lines says" % (label, name,
                                                              "ends" if ends else "does not end"))
        if not ends and ch != "\0":
            problem = hwtext.region_check(["x = 1; // a" + ch + "b"], 1)
            check(problem is not None, "region rules: %s in a part is refused" % name)
    # Line splices: a backslash at the end of a line, blanks after it or not, joins the next line
    # (GCC and nvcc both); the rules refuse every one. A trigraph ??/ would be one in C++14.
    for tail in ("\\", "\\  ", "\\\t", "\\\f"):
        for label, command, suffix in compilers:
            check(compiler_splices(command, tail, suffix),
                  "%s: a backslash followed by %r ends in a splice" % (label, tail[1:]))
        check(hwtext.region_check(["x = 1; // a" + tail], 1) is not None,
              "region rules: a line ending %r is refused" % tail)
    check(hwtext.region_check(["x = 1; // ??/"], 1) is not None, "region rules: trigraph refused")


def test_generator():
    for name in ("good", "good_prose"):
        with open(os.path.join(HERE, name + ".cu"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(HERE, name + ".student.cu"), encoding="utf-8") as f:
            expected = f.read()
        out1, _ = hwtext.generate(text, name)
        out2, _ = hwtext.generate(text, name)
        check(out1 == expected and out2 == expected, "generator: %s gives the expected bytes, "
              "twice" % name)
    for case in ("unclosed:2 nested:4 misspelt_begin:2 misspelt_end:4 solution_word:3 "
                 "end_alone:3 no_region:1 stub_outside:2 stub_misspelt:4").split():
        name, line = case.split(":")
        with open(os.path.join(HERE, "bad_%s.cu" % name), encoding="utf-8") as f:
            text = f.read()
        try:
            hwtext.generate(text, "bad_%s.cu" % name)
            check(False, "generator: bad_%s.cu refused" % name)
        except hwtext.MarkError as e:
            check(e.line == int(line), "generator: bad_%s.cu refused at line %s (got %d: %s)"
                  % (name, line, e.line, e.message))


HOST_ALLOW = ["BLOCK_DIM", "n"]
HOST_CALLS = ["common::ceil_div"]
# (lines, kind, forbid, line of the problem or None, what its reason must mention)
RULES = [
    (["int x = 1;  // a { in a comment, a \"}\" in a string: \"{\"", "if (x) { x++; }"],
     "device", (), None, ""),
    (["#pragma unroll 4", "for (int i = 0; i < 4; ++i) {}", "  #  pragma unroll (N)"],
     "device", (), None, ""),
    (["x = 1;  // éte, 中文 in a comment", 'const char* s = "ü";'], "device", (), None, ""),
    (["x = 1; // note", "#define kExitWrong kExitOk"], "device", (), 2, "preprocessor"),
    (["%:define kExitWrong kExitOk"], "device", (), 1, "preprocessor"),
    (["x = 1; %>"], "device", (), 1, "closes a brace"),
    (["}", "int evil() {"], "device", (), 1, "closes a brace"),
    (["if (x) {"], "device", (), 1, "not closed"),
    (["/* open", "still open"], "device", (), 1, "comment"),
    (['const char* s = R"(x)";'], "device", (), 1, "raw string"),
    (['const char* s = "abc;'], "device", (), 1, "literal"),
    (["e\\u0078it(0);"], "device", (), 1, "backslash"),
    (["int é = 1;"], "device", (), 1, "ASCII"),
    (["x = 1; // \u202e evil"], "device", (), 1, "U+202E"),
    (['asm("trap;");'], "device", (), 1, "asm"),
    (['__asm__ volatile("");'], "device", (), 1, "__asm__"),
    (['_Pragma("unroll")'], "device", (), 1, "_Pragma"),
    (["#pragma unroll 4 /*", "*/"], "device", (), 1, "preprocessor"),
    (["#pragma unroll 4 // }"], "device", (), 1, "preprocessor"),
    (["thrust::reduce(a, b);"], "device", (), 1, "THRUST"),
    (["cublasSgemm(h);"], "device", (), 1, "CUBLAS"),
    (["int npp_mine = 0;"], "device", (), None, ""),
    (["return ch10::block_reduce(v, op);"], "device", ("block_reduce",), 1, "block_reduce"),
    (["return __match_any_sync(active, key);"], "device", ("__match_any_sync",), 1,
     "__match_any_sync"),
    (["return (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);"], "host", (), None, ""),
    (["return common::ceil_div(n, 2 * BLOCK_DIM);"], "host", (), None, ""),
    (["return n == 0 ? 1u : static_cast<unsigned int>((n - 1) / (2 * BLOCK_DIM) + 1);",
      "// a comment"], "host", (), None, ""),
    # A host part is one return statement: no declaration (the block-scope declaration of a C
    # library function was the way out), no other statement, no call but the worked example's.
    (["const unsigned int per = 2 * BLOCK_DIM;", "return (n + per - 1) / per;"], "host", (),
     1, "expected `return`"),
    (['extern "C" int system(const char*);', 'return system("sh") + 1;'], "host", (), 1,
     "expected `return`"),
    (["int (*f)(const char*) = nullptr;", "return 1;"], "host", (), 1, "expected `return`"),
    (["return 1;", "return 2;"], "host", (), 2, "after the return"),
    (["return segmented_sum_blocks(n);"], "host", (), 1, "calls `segmented_sum_blocks`"),
    (["return common::ceil_div(n, 2 * per);"], "host", (), 1, "uses `per`"),
    (["return 1.5;"], "host", (), 1, "integer literals"),
    (["return static_cast<float>(n);"], "host", (), 1, "integer type"),
    (["return " + "(" * 40 + "n" + ")" * 40 + ";"], "host", (), 1, "nested"),
    (["return n" + " + n" * 5000 + ";"], "host", (), None, ""),
    (["int x = 0;"] * 401, "device", (), 401, "longer than 400 lines"),
    (["std::exit(0);"], "host", (), 1, "expected `return`"),
    (["return (::exit(0), 1u);"], "host", (), 1, "`::`"),
    (["return __builtin_exit(0), 1u;"], "host", (), 1, "__builtin_exit"),
    (["return main(0, nullptr);"], "host", (), 1, "main"),
    (["struct X { ~X() { _exit(0); } };", "static X x;", "return 1;"], "host", (), 1, "struct"),
    (['system("sleep 100 &");', "return 1;"], "host", (), 1, "system"),
    (["return std::atexit(nullptr);"], "host", (), 1, "std::atexit"),
    (["return ch10::block_reduce;"], "host", (), 1, "block_reduce"),
]


def test_rules():
    for lines, kind, forbid, line, what in RULES:
        problem = hwtext.region_check(lines, 1, kind, forbid, HOST_ALLOW, HOST_CALLS)
        name = " / ".join(lines)[:200]
        if line is None:
            check(problem is None, "rules: accepted (%s): %s" % (kind, name) +
                  (" -- but %s" % (problem,) if problem else ""))
        else:
            check(problem is not None and problem[0] == line and what in problem[1],
                  "rules: refused at line %d, naming %s (%s): %s -- got %s"
                  % (line, what, kind, name, problem))


def test_kinds():
    text = "\n".join([
        "namespace a {", "struct Lock {", "  __device__ void lock() const {", "    x;", "  }",
        "};", "template <class T, class Trace = int>",
        "__device__ T get(T key, Trace trace = {}) {", "  y;", "}", "}",
        "unsigned int blocks(unsigned int n) {", "  z;", "}",
        "__host__ __device__ int both() {", "  w;", "}",
        "template <int R> __global__ void k(const float* N) {", "  if (1) {", "    v;", "  }",
        "}", "int outside;"])
    lines = hwtext.split_lines(text)
    functions = hwtext.enclosing_functions(lines)
    for line, kind in ((4, "device"), (9, "device"), (13, "host"), (16, "host"), (20, "device"),
                       (23, "host")):
        check(hwtext.region_kind(functions[line]) == kind,
              "kinds: line %d is %s code (%s)" % (line, kind, functions[line]))


def test_splice():
    with open(os.path.join(HERE, "good.cu"), encoding="utf-8") as f:
        marked = f.read()
    template, found = hwtext.generate(marked, "good.cu")
    functions = hwtext.enclosing_functions(hwtext.split_lines(template))
    regions = []
    for r in found:
        kind = hwtext.region_kind(functions[r.first])
        allow, calls = export.host_names(r, functions[r.first], {"n", "unsigned", "int"}) \
            if kind == "host" else ([], [])
        regions.append({"first": r.first, "last": r.last, "kind": kind, "allow": allow,
                        "calls": calls})
    check([r["kind"] for r in regions] == ["device", "host"], "splice: good.cu's regions are "
          "device code and host code")

    def splice(name):
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            return grade.splice(template, regions, f.read())

    text, problem = grade.splice(template, regions, marked)
    check(problem is None and text == marked, "splice: the solution comes back as it is")
    with open(os.path.join(HERE, "submission_own.graded.cu"), encoding="utf-8") as f:
        expected = f.read()
    text, problem = splice("submission_own.cu")
    check(problem is None and text == expected, "splice: a student's own answer (CRLF-free, "
          "blanks, #pragma unroll, braces in a comment and a string) comes back exactly (%s)"
          % (problem,))
    text, problem = grade.splice(template, regions, template)
    check(problem is None and text == template + "\n" * (not template.endswith("\n")),
          "splice: the unanswered file is accepted as handed out")
    crlf = marked.replace("\n", "\r\n")
    text, problem = grade.splice(template, regions, crlf)
    check(problem is None and text == marked, "splice: CRLF line ends are taken as line ends")
    for name, line, what in (("submission_library.cu", 12, "THRUST"),
                             ("submission_directive.cu", 20, "preprocessor"),
                             ("submission_braces.cu", 21, "closes a brace")):
        text, problem = splice(name)
        check(text is None and problem.startswith("line %d: " % line) and what in problem,
              "splice: %s refused at line %d for %s (%s)" % (name, line, what, problem))
    text, problem = splice("submission_changed.cu")
    check(text is None and "line 8 of the exercise as handed out" in problem,
          "splice: submission_changed.cu refused: its line 8 changed (%s)" % problem)
    cr = marked.replace("return (n + 255) / 256;", "return (n + 255) / 256; // x\r}\rint f() {")
    text, problem = grade.splice(template, regions, cr)
    check(text is None and "closes a brace" in problem,
          "splice: a lone CR ends a line for the splice as for the compiler (%s)" % problem)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cxx")
    parser.add_argument("--nvcc")
    args = parser.parse_args()
    compilers = []
    if args.cxx:
        for std in ("-std=gnu++17", "-std=c++17"):
            compilers.append(("%s %s" % (os.path.basename(args.cxx), std),
                              [args.cxx, std, "-E", "-x", "c++"], ".cpp"))
    if args.nvcc:
        compilers.append(("nvcc", [args.nvcc, "-std=c++17", "-E", "-x", "cu"], ".cu"))
    test_line_ends(compilers)
    test_generator()
    test_rules()
    test_kinds()
    test_splice()
    return finish("text handling")


if __name__ == "__main__":
    run(main)
