"""A check of JUnit XML against the common JUnit schema, the Jenkins xUnit plugin's junit-10.xsd
(the one most tools that read JUnit follow), written out here in Python because the standard
library has no XML Schema validator: the elements each element may hold, the attributes each may
carry and must carry, and the time pattern. On top of the schema, the counts must add up."""

import re
import xml.etree.ElementTree as ET

TIME = re.compile(r"^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$")  # SUREFIRE_TIME
ELEMENTS = {
    # element: (children allowed, attributes allowed, attributes required)
    "testsuites": ({"testsuite"}, {"name", "time", "tests", "failures", "errors"}, set()),
    "testsuite": ({"testsuite", "properties", "testcase", "system-out", "system-err"},
                  {"name", "tests", "failures", "errors", "group", "time", "skipped",
                   "timestamp", "hostname", "id", "package", "file", "log", "url"},
                  {"name", "tests", "failures", "errors"}),
    "testcase": ({"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure",
                  "flakyError", "system-out", "system-err"},
                 {"name", "time", "classname", "group"}, {"name"}),
    "failure": (set(), {"type", "message"}, set()),
    "error": (set(), {"type", "message"}, set()),
    "skipped": (set(), {"type", "message"}, set()),
    "properties": ({"property"}, set(), set()),
    "property": (set(), {"name", "value"}, {"name", "value"}),
    "system-out": (set(), set(), set()),
    "system-err": (set(), set(), set()),
}


def validate(text):
    """The problems of a JUnit document (none: valid)."""
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as e:
        return ["not well-formed XML: %s" % e]
    problems = []
    if root.tag != "testsuites":
        problems.append("the root is <%s>, not <testsuites>" % root.tag)

    def visit(node, path):
        if node.tag not in ELEMENTS:
            problems.append("%s: unknown element" % path)
            return
        children, allowed, required = ELEMENTS[node.tag]
        for key in node.attrib:
            if key not in allowed:
                problems.append("%s: attribute %s is not in the schema" % (path, key))
        for key in required - set(node.attrib):
            problems.append("%s: attribute %s is missing" % (path, key))
        if node.tag in ("testsuites", "testsuite") and "time" in node.attrib and \
                not TIME.match(node.attrib["time"]):
            problems.append("%s: time %r is not the schema's number" % (path, node.attrib["time"]))
        for child in node:
            if child.tag not in children:
                problems.append("%s: <%s> may not hold <%s>" % (path, node.tag, child.tag))
            else:
                visit(child, "%s/%s" % (path, child.tag))
        if node.tag == "testsuite":
            cases = node.findall("testcase")
            for key, tag in (("tests", None), ("failures", "failure"), ("errors", "error")):
                want = len(cases) if tag is None else sum(1 for c in cases if c.find(tag) is not None)
                if node.get(key) != str(want):
                    problems.append("%s: %s=%s, but it holds %d" % (path, key, node.get(key), want))

    visit(root, root.tag)
    if root.tag == "testsuites":
        for key in ("tests", "failures", "errors"):
            total = sum(int(s.get(key, "0")) for s in root.findall("testsuite"))
            if key in root.attrib and root.get(key) != str(total):
                problems.append("testsuites: %s=%s, its suites add up to %d" % (
                    key, root.get(key), total))
    return problems


def counts(text):
    root = ET.fromstring(text.encode("utf-8"))
    return {key: int(root.get(key, "0")) for key in ("tests", "failures", "errors")}
