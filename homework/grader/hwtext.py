"""Text handling of the homework scheme: lines as the compiler sees them, the region marks, and
the rules a student's part must keep. Python 3 standard library only.

Lines: the C and C++ compilers (GCC's preprocessor, nvcc's front end) end a line at LF, at CRLF
and at a lone CR; form feed, vertical tab, NEL (U+0085) and the Unicode line and paragraph
separators (U+2028, U+2029) end none. split_lines() splits exactly there, so a line here is a line
to the compiler, and a character that could hide one (a lone CR in a `//` comment) cannot.
"""

import hashlib
import os
import re
import unicodedata

LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text):
    """The lines of `text` as the compiler sees them; the last is '' when the text ends a line."""
    return LINE_END.split(text)


def decode(data):
    """Bytes of a source file as text (UTF-8, a leading byte-order mark dropped), or None."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def strip(line):
    """How lines are compared: without the blanks at either end."""
    return line.strip(" \t")



# An `#include "file"` line: how an exercise's sources reach the files beside them.
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
# The export's record of each student file it wrote: "<sha256> <path in the tree>" a line.
EXPORT_RECORD = ".homework-export"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def read_export_record(tree):
    """{path in the tree: sha256} from the tree's EXPORT_RECORD (OSError where it has none)."""
    exported = {}
    with open(os.path.join(tree, EXPORT_RECORD), encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 1)
            if len(parts) == 2 and re.fullmatch(r"[0-9a-f]{64}", parts[0]):
                exported[parts[1]] = parts[0]
    return exported

# ---------------------------------------------------------------------------------------------
# The generator: the student version of a marked file.

WORD = "SOLUTION"  # spelt once, so that a search for the word finds only the marks' patterns
BEGIN = re.compile(r"^([ \t]*)// BEGIN " + WORD + r"[ \t]*$")
END = re.compile(r"^[ \t]*// END " + WORD + r"[ \t]*$")
LOOKS_LIKE_MARK = re.compile(r"^[ \t]*/[/*]+[ \t]*(begin|end)[ \t_-]*solution", re.IGNORECASE)
STUB = re.compile(r"^([ \t]*)// STUB:(?: (.*))?$")
# The lines around each part in the student version: where to write, and that nothing else is
# graded.
FENCE_BEGIN = "// >>>>>> your part: write it here, down to the <<<<<< line; the rest is fixed"
FENCE_END = "// <<<<<< end of your part"
MISSPELT_STUB = re.compile(r"^[ \t]*//[ \t]*stub(?:[^A-Za-z0-9_]|$)", re.IGNORECASE)


class MarkError(Exception):
    """A marked file that breaks the rules of the marks, at `line` (1-based)."""

    def __init__(self, path, line, message):
        super().__init__("%s:%d: %s" % (path, line, message))
        self.path, self.line, self.message = path, line, message


class Region:
    """One part the student writes: lines first..last of the student version (1-based), from
    the BEGIN mark at `begin_line` of the marked file."""

    def __init__(self, first, last, begin_line, solution):
        self.first, self.last, self.begin_line = first, last, begin_line
        self.solution = solution  # the worked example's lines of the region (marks excluded)
        self.only = ""  # a line of the solution that the student version does not show
        self.kind = "host"  # "device" when the region lies in a __global__ or __device__ function
        self.allow = []  # host regions: the names they may use (region_check)
        self.calls = []  # host regions: the functions they may call


def generate(text, path="<marked file>"):
    """The student version of a marked file and its regions.

    A region is what a student writes, between two whole-line comments (leading blanks allowed),
    `// BEGIN SOLUTION` and `// END SOLUTION`. In the student version it becomes its `// STUB:
    <code>` lines with "// STUB: " removed (each keeping its indentation), or, with none, one
    `// TODO` line at the BEGIN mark's indentation, between two fence lines (FENCE_BEGIN,
    FENCE_END) that show where the part begins and ends. Regions do not nest. A line that holds the
    upper-case word SOLUTION but is not a mark, a comment that starts like a mark in other case
    (`// end solution`), a misspelt STUB, a STUB outside a region, an unclosed region or a file
    with no region is a MarkError at its line; "solution" in lower or mixed case elsewhere is
    prose. The same text gives the same bytes on every run."""
    out = []
    regions = []
    region = None  # (begin line, indentation, stub lines, solution lines)
    lines = split_lines(text)
    for number, line in enumerate(lines, 1):
        begin = BEGIN.match(line)
        if begin:
            if region:
                raise MarkError(path, number, "nested BEGIN mark (the region opened at line %d "
                                "is not closed)" % region[0])
            region = (number, begin.group(1), [], [])
        elif END.match(line):
            if not region:
                raise MarkError(path, number, "END mark without a BEGIN mark")
            begin_line, indent, stubs, solution = region
            if not stubs:
                stubs = [indent + "// TODO: write this part (exercise %d of this file)"
                         % (len(regions) + 1)]
            # Visible fences, inside the part (the student may keep or drop them).
            stubs = [indent + FENCE_BEGIN] + stubs + [indent + FENCE_END]
            regions.append(Region(len(out) + 1, len(out) + len(stubs), begin_line, solution))
            out.extend(stubs)
            region = None
        elif WORD in line or LOOKS_LIKE_MARK.match(line):
            raise MarkError(path, number, "not an exact mark: `%s` (the marks are whole lines "
                            "`// BEGIN %s` and `// END %s`, no other line may contain the "
                            "upper-case word %s, and no comment may start like a mark in other "
                            "case)" % (line.strip(), WORD, WORD, WORD))
        elif STUB.match(line):
            if not region:
                raise MarkError(path, number, "STUB line outside a region")
            stub = STUB.match(line)
            region[2].append("" if not stub.group(2) else stub.group(1) + stub.group(2))
        elif MISSPELT_STUB.match(line):
            raise MarkError(path, number, "misspelt STUB line: `%s` (write `// STUB: <code>`)"
                            % line.strip())
        elif region:
            region[3].append(line)
        else:
            out.append(line)
    if region:
        raise MarkError(path, region[0], "unclosed region (no END mark before the end of the "
                        "file)")
    if not regions:
        raise MarkError(path, 1, "no region: a file registered as homework needs at least one "
                        "`// BEGIN %s` ... `// END %s` region" % (WORD, WORD))
    shown = set(strip(line) for line in out)
    for r in regions:
        candidates = [strip(line) for line in r.solution]
        candidates = [c for c in candidates if c and not c.startswith("//") and c not in shown]
        r.only = max(candidates, key=len) if candidates else ""
    return "\n".join(out), regions


# ---------------------------------------------------------------------------------------------
# A small C++ lexer: enough to tell code from comments and literals, line by line.

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PP_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*")
RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"')
STRING = re.compile(r'(?:u8|u|U|L)?"(?:[^"\\]|\\.)*"')
CHAR = re.compile(r"(?:u8|u|U|L)?'(?:[^'\\]|\\.)*'")
OPENS_LITERAL = re.compile(r"(?:u8|u|U|L)?[\"']")
PUNCTUATORS = sorted("%:%: ... <<= >>= ->* <=> :: -> ++ -- << >> <= >= == != && || += -= *= /= "
                     "%= &= |= ^= .* ## <: :> <% %> %: { } [ ] ( ) # ; : ? . ~ ! + - * / % ^ & "
                     "| = < > ,".split(), key=len, reverse=True)
PUNCTUATOR = re.compile("|".join(re.escape(p) for p in PUNCTUATORS))  # the longest first
BRACE_OPEN = {"{", "<%"}
BRACE_CLOSE = {"}", "%>"}
HASH = {"#", "%:", "##", "%:%:"}
# A whole line `#pragma unroll` with an optional count: no `/`, which could open a comment that
# the line, taken whole, would hide.
PRAGMA_UNROLL = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+unroll(?:[ \t(][A-Za-z0-9_()+* \t-]*)?$")
SPLICE = re.compile(r"\\[ \t\f\v]*$")
TRIGRAPH = re.compile(r"\?\?[=/'()!<>-]")


class Token:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return "%s(%r)@%d" % (self.kind, self.text, self.line)


class LexError(Exception):
    def __init__(self, line, message):
        super().__init__("%d: %s" % (line, message))
        self.line, self.message = line, message


def lex(lines, first=1, directives="refuse"):
    """Tokens of `lines` (line `first` of a file onwards), without comments. Literals are single
    tokens ("string", "char"). directives: "refuse" (a student's part: a `#` is a LexError, but a
    whole line `#pragma unroll`, which becomes a "pragma" token) or "skip" (a whole file:
    preprocessor lines are left out). LexError also for what could run past the lines: a raw
    string literal, a literal not closed on its line, a `/*` comment not closed by the last line."""
    tokens = []
    in_comment = None  # the line a `/*` comment opened at
    skipping_directive = False
    for number, line in enumerate(lines, first):
        if skipping_directive:
            skipping_directive = bool(SPLICE.search(line))
            continue
        if in_comment is None and PRAGMA_UNROLL.match(line):
            tokens.append(Token("pragma", line.strip(), number))
            continue
        if directives == "skip" and in_comment is None and re.match(r"^[ \t]*(#|%:)", line):
            skipping_directive = bool(SPLICE.search(line))
            continue
        i = 0
        while i < len(line):
            if in_comment is not None:
                end = line.find("*/", i)
                if end < 0:
                    break
                i = end + 2
                in_comment = None
                continue
            c = line[i]
            if c in " \t\f\v":
                i += 1
                continue
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_comment = number
                i += 2
                continue
            if RAW_STRING.match(line, i):
                raise LexError(number, "a raw string literal (`%s`): it may run past the line"
                               % line.strip())
            literal = STRING.match(line, i) or CHAR.match(line, i)
            if literal:
                kind = "string" if literal.group(0).rstrip("'").endswith('"') else "char"
                tokens.append(Token(kind, literal.group(0), number))
                i = literal.end()
                continue
            if OPENS_LITERAL.match(line, i):
                raise LexError(number, "a string or character literal that does not end on its "
                               "line (`%s`)" % line.strip())
            word = IDENT.match(line, i)
            if word:
                tokens.append(Token("ident", word.group(0), number))
                i = word.end()
                continue
            num = PP_NUMBER.match(line, i)
            if num:
                tokens.append(Token("number", num.group(0), number))
                i = num.end()
                continue
            punct = PUNCTUATOR.match(line, i)
            if punct:
                tokens.append(Token("punct", punct.group(0), number))
                i = punct.end()
            else:
                tokens.append(Token("other", c, number))
                i += 1
    if in_comment is not None:
        raise LexError(in_comment, "a `/*` comment that does not close in the part you write")
    return tokens


# ---------------------------------------------------------------------------------------------
# Where a region lies: in device code (a __global__ or __device__ function) or host code.

NOT_FUNCTIONS = {"namespace", "struct", "class", "union", "enum", "extern"}


def enclosing_functions(lines):
    """For each line (1-based index into a list of len(lines) + 1), the head of the function
    whose body is open at the start of that line: its tokens up to the `{`, or None at file or
    namespace scope. The file is trusted (the homework tree's own text)."""
    result = [None] * (len(lines) + 2)
    stack = []  # heads of the open braces, outermost first
    head = []
    parens = 0  # braces inside parentheses (`Trace trace = {}`) belong to the head
    tokens = lex(lines, 1, directives="skip")
    t = 0
    for number in range(1, len(lines) + 2):
        while t < len(tokens) and tokens[t].line < number:
            tok = tokens[t]
            t += 1
            if tok.kind == "punct" and tok.text in ("(", ")"):
                parens += 1 if tok.text == "(" else -1
            if parens > 0 or tok.kind != "punct":
                head.append(tok)
            elif tok.text in BRACE_OPEN:
                stack.append(head)
                head = []
            elif tok.text in BRACE_CLOSE:
                if stack:
                    stack.pop()
                head = []
            elif tok.text == ";":
                head = []
            else:
                head.append(tok)
        result[number] = function_head(stack)
    return result


def function_head(stack):
    for head in stack:
        words = [tok.text for tok in head]
        if not words or words[0] in NOT_FUNCTIONS or "(" not in words:
            continue
        if words[-1] == "=" or any(a == "=" and b == "[" for a, b in zip(words, words[1:])):
            return None  # an initializer or a lambda, at file scope
        return words
    return None


def region_kind(head):
    """'device' for a body of a __global__ or __device__ (not __host__) function, else 'host'."""
    if head and ("__global__" in head or ("__device__" in head and "__host__" not in head)):
        return "device"
    return "host"


def names(tokens):
    """The names of `tokens`: identifiers joined with the `::` between them ("common::ceil_div",
    "::exit"), each with the token it starts at."""
    found = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        lead = tok.kind == "punct" and tok.text == "::" and i + 1 < len(tokens) and \
            tokens[i + 1].kind == "ident"
        if tok.kind == "ident" or lead:
            start = i
            parts = ["::"] if lead else []
            if lead:
                i += 1
            parts.append(tokens[i].text)
            i += 1
            while i + 1 < len(tokens) and tokens[i].text == "::" and tokens[i + 1].kind == "ident":
                parts += ["::", tokens[i + 1].text]
                i += 2
            found.append(("".join(parts), tokens[start]))
            continue
        i += 1
    return found


# ---------------------------------------------------------------------------------------------
# The rules of a student's part.

LIBRARIES = re.compile(r"^(?:::)?(cub|thrust)(?:::|$)|^(?:::)?(cublas|cudnn|npp)[A-Za-z]")
ASM = {"asm", "__asm", "__asm__", "_Pragma", "__pragma"}
# The integer types a host part may convert to (static_cast<...>), spelt as host_part_check
# joins their words.
HOST_TYPES = {"int", "unsigned", "unsigned int", "long", "unsigned long", "long long",
              "unsigned long long", "size_t", "std::size_t", "int64_t", "std::int64_t",
              "uint64_t", "std::uint64_t", "int32_t", "std::int32_t", "uint32_t", "std::uint32_t"}
# A part longer than this is no answer to an exercise, and is not read further.
MAX_PART_LINES = 400
MAX_PART_CHARS = 32768
INTEGER = re.compile(r"(?:0[xX][0-9A-Fa-f]+|[0-9]+)(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?")
BINARY = [("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"),
          ("*", "/", "%")]


class HostPartError(Exception):
    def __init__(self, tok, message):
        super().__init__(message)
        self.tok, self.message = tok, message


def host_part_check(code, allow, calls, first=1):
    """A part in host code (the block counts of 10_13 and 10_15) is one statement,
    `return <expression>;` (or nothing, as handed out), where the expression is arithmetic on integer literals and the names
    of `allow` (its function's parameters and the constants its worked example uses), with calls
    only of the functions in `calls` (those its worked example calls) and conversions
    (static_cast) to the arithmetic types: no declaration, no other statement, nothing that could
    reach the operating system. Raises HostPartError at the first token that breaks it; linear in
    the part's length."""
    pos = [0]
    depth = [0]
    end = Token("punct", "the end of the part", code[-1].line if code else first)

    def peek(offset=0):
        i = pos[0] + offset
        return code[i] if i < len(code) else end

    def take(*texts):
        tok = peek()
        if texts and tok.text not in texts:
            expected = " or ".join("`%s`" % t for t in texts)
            raise HostPartError(tok, "expected %s where it has `%s`" % (expected, tok.text))
        pos[0] += 1
        return tok

    def name():
        parts = [take()]
        if parts[0].kind != "ident":
            raise HostPartError(parts[0], "`%s` where a name or a number belongs" % parts[0].text)
        while peek().text == "::" and peek(1).kind == "ident":
            take("::")
            parts.append(take())
        return parts[0], "::".join(p.text for p in parts)

    def primary():
        tok = peek()
        if tok.kind == "number":
            take()
            if not INTEGER.fullmatch(tok.text):
                raise HostPartError(tok, "`%s`: only integer literals" % tok.text)
            return
        if tok.text == "(":
            take("(")
            expression()
            take(")")
            return
        if tok.text == "static_cast":
            take()
            take("<")
            words = []
            while peek().kind == "ident" or peek().text == "::":
                words.append(take().text)
            spelt = " ".join(words).replace(" :: ", "::")
            if spelt not in HOST_TYPES:
                raise HostPartError(tok, "static_cast<%s>: only to an integer type" % spelt)
            take(">")
            take("(")
            expression()
            take(")")
            return
        first, text = name()
        if peek().text == "(":
            if text not in calls:
                raise HostPartError(first, "calls `%s`: this part may call only %s" % (
                    text, ", ".join("`%s`" % c for c in sorted(calls)) or "no function"))
            take("(")
            expression()
            while peek().text == ",":
                take(",")
                expression()
            take(")")
            return
        if text not in allow:
            raise HostPartError(first, "uses `%s`: this part may use only %s and integer "
                                "literals" % (text, ", ".join("`%s`" % a for a in sorted(allow))))

    def unary():
        while peek().text in ("+", "-", "~", "!"):
            take()
        primary()

    def binary(level):
        if level == len(BINARY):
            unary()
            return
        binary(level + 1)
        while peek().kind == "punct" and peek().text in BINARY[level]:
            take()
            binary(level + 1)

    def expression():
        depth[0] += 1
        if depth[0] > 32:
            raise HostPartError(peek(), "an expression nested more than 32 deep")
        binary(0)
        if peek().text == "?":
            take("?")
            expression()
            take(":")
            expression()
        depth[0] -= 1

    if not code:
        return  # as handed out, unanswered: nothing runs
    take("return")
    expression()
    take(";")
    if pos[0] < len(code):
        raise HostPartError(peek(), "`%s` after the return statement: this part is one "
                            "`return <expression>;`" % peek().text)


def region_check(lines, first, kind="device", forbid=(), allow=(), calls=()):
    """Checks what a student wrote in one region: `lines` are its lines, the first of them line
    `first` of the file. Returns None, or (line, reason). The rules:
      - characters: no control character but tab (a lone CR already ends a line: split_lines),
        no Unicode format, line or paragraph separator (bidirectional controls included), no
        trigraph (`??/`), and, outside comments and literals, nothing but ASCII and no backslash;
      - no line continuation (a backslash, blanks allowed after it, at the end of a line), no raw
        string literal, a `/*` comment closes and a literal ends within the region: each could
        swallow the lines after it;
      - no preprocessor directive: no `#` (nor `%:`) outside comments and literals, but a whole
        line `#pragma unroll` with an optional count; no `_Pragma`, no inline assembly (`asm`);
      - braces balance: the running count of `{` and `}` (and `<%`, `%>`) never drops below zero
        and ends at zero, so the region cannot close the function it is in;
      - no library that would do the work: CUB, Thrust, cuBLAS, cuDNN, NPP;
      - none of the names in `forbid` (the helpers that answer the exercise);
      - kind "host" (a region in host code, which could reach the operating system): one
        `return <expression>;` of integer arithmetic on the names of `allow`, calling only the
        functions of `calls` (host_part_check);
      - at most MAX_PART_LINES lines and MAX_PART_CHARS characters."""
    if len(lines) > MAX_PART_LINES:
        return first + MAX_PART_LINES, "the part you write is longer than %d lines" % \
            MAX_PART_LINES
    if sum(len(line) + 1 for line in lines) > MAX_PART_CHARS:
        return first, "the part you write is longer than %d characters" % MAX_PART_CHARS
    for number, line in enumerate(lines, first):
        for ch in line:
            if ch == "\t":
                continue
            category = unicodedata.category(ch)
            if category in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co"):
                return number, "the character U+%04X (%s): the parts you write may hold no " \
                    "control or format character but tab" % (ord(ch), unicodedata.name(ch, category))
        if SPLICE.search(line):
            return number, "a line continuation (`%s`): a line of yours may not end in a " \
                "backslash" % line.strip()
        if TRIGRAPH.search(line):
            return number, "a trigraph (`%s`) in `%s`" % (TRIGRAPH.search(line).group(0),
                                                          line.strip())
    try:
        tokens = lex(lines, first)
    except LexError as e:
        return e.line, e.message
    depth = []
    for tok in tokens:
        if tok.kind == "pragma":
            continue
        if tok.kind == "other":
            what = "a backslash" if tok.text == "\\" else "the character `%s`" % tok.text
            return tok.line, "%s outside a string or character literal: code is ASCII, and " \
                "`\\u` names are not allowed" % what
        if tok.kind == "punct" and tok.text in HASH:
            return tok.line, "a preprocessor directive (`%s`): the parts you write may hold no " \
                "`#` line but `#pragma unroll`" % line_text(lines, first, tok.line)
        if tok.kind == "ident" and tok.text in ASM:
            return tok.line, "`%s`: no inline assembly or pragma operator in the parts you " \
                "write" % tok.text
        if tok.kind == "punct" and tok.text in BRACE_OPEN:
            depth.append(tok.line)
        elif tok.kind == "punct" and tok.text in BRACE_CLOSE:
            if not depth:
                return tok.line, "this `}` closes a brace opened outside the part you write " \
                    "(`%s`)" % line_text(lines, first, tok.line)
            depth.pop()
    if depth:
        return depth[-1], "this `{` is not closed in the part you write (its braces must balance)"
    code = [tok for tok in tokens if tok.kind in ("ident", "punct", "number")]
    forbidden = set(forbid)
    for name, tok in names([tok for tok in code if tok.kind != "number"]):
        bare = name.lstrip(":")
        library = LIBRARIES.match(name)
        if library:
            return tok.line, "uses %s (`%s`): the exercises must be written without CUB, " \
                "Thrust, cuBLAS, cuDNN or NPP" % ((library.group(1) or library.group(2)).upper(),
                                                  line_text(lines, first, tok.line))
        last = bare.split("::")[-1]
        if bare in forbidden or last in forbidden:
            return tok.line, "uses `%s`, which answers this exercise: write it yourself" % bare
    if kind == "host":
        try:
            host_part_check(code, set(allow) - set(calls), set(calls), first)
        except HostPartError as e:
            return e.tok.line, "%s (this part runs on the host: it is one `return " \
                "<expression>;` of integer arithmetic)" % e.message
    return None


def line_text(lines, first, number):
    return lines[number - first].strip()
