"""Every public object has a docstring; the examples in docstrings (`>>>`)
and the Python examples of README.md, docs/python.md and docs/verify.md run
and print what they show."""

from __future__ import annotations

import contextlib
import doctest
import inspect
import io
import os
import re
import types
from typing import Iterator, List, Set, Tuple

import pytest

import xstore
from conftest import ROOT


def public(obj: object) -> Iterator[Tuple[str, object]]:
    for name in dir(obj):
        if not name.startswith("_"):
            yield name, getattr(obj, name)


def test_every_public_object_has_a_docstring() -> None:
    missing: List[str] = []
    seen = 0
    for mod in (xstore, xstore.neuron, xstore.pto, xstore.q7):
        assert mod.__doc__, mod.__name__
        for name, obj in public(mod):
            if isinstance(obj, types.ModuleType) or name == "annotations":
                continue
            if isinstance(obj, str):  # __version__-like constants
                continue
            seen += 1
            if not (obj.__doc__ or "").strip():
                missing.append(f"{mod.__name__}.{name}")
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    # Methods and attribute descriptors; a dataclass field's
                    # default (documented in its class's docstring) is data.
                    descriptor = (property, types.GetSetDescriptorType,
                                  types.MemberDescriptorType)
                    if not (callable(member) or isinstance(member, descriptor)):
                        continue
                    seen += 1
                    if not (getattr(member, "__doc__", None) or "").strip():
                        missing.append(f"{mod.__name__}.{name}.{attr}")
    assert seen > 100
    assert missing == []


def docstrings() -> Iterator[Tuple[str, str]]:
    """Every public object's docstring, and its members', by qualified name."""
    seen = set()
    for mod in (xstore, xstore.neuron, xstore.pto, xstore.q7):
        for name, obj in public(mod):
            if isinstance(obj, (types.ModuleType, str)) or name == "annotations":
                continue
            members = [(f"{mod.__name__}.{name}", obj)]
            if inspect.isclass(obj):
                members += [(f"{mod.__name__}.{name}.{a}", m) for a, m in vars(obj).items()
                            if not a.startswith("_")]
            for qual, member in members:
                doc = getattr(member, "__doc__", None) or ""
                if id(member) not in seen and doc.strip():
                    seen.add(id(member))
                    yield qual, doc


DOCSTRING_EXAMPLES = [(q, d) for q, d in docstrings() if ">>>" in d]


@pytest.mark.parametrize("name,doc", DOCSTRING_EXAMPLES, ids=[q for q, _ in DOCSTRING_EXAMPLES])
def test_docstring_examples_print_what_they_show(name: str, doc: str) -> None:
    test = doctest.DocTestParser().get_doctest(inspect.cleandoc(doc), {}, name, None, 0)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        runner.run(test, out=out.write)
    finally:
        os.chdir(cwd)
    assert runner.failures == 0, out.getvalue()


def test_the_main_entry_points_carry_an_example() -> None:
    with_example = {q for q, _ in DOCSTRING_EXAMPLES}
    want = {"xstore.Instruction", "xstore.InputError", "xstore.asm", "xstore.disasm",
            "xstore.explain", "xstore.validate", "xstore.run", "xstore.lint", "xstore.Memory",
            "xstore.neuron.decode", "xstore.neuron.decode_into", "xstore.neuron.check",
            "xstore.neuron.Machine", "xstore.pto.decode", "xstore.pto.Machine.tile",
            "xstore.pto.Tile", "xstore.q7.decode", "xstore.q7.assemble", "xstore.Fault",
            "xstore.isa_names", "xstore.gen", "xstore.campaign"}
    assert want <= with_example, sorted(want - with_example)


# Public callables whose docstring need not carry an example of its own, each
# with the reason. None today: even the errors' base class shows how it is
# caught. An entry must name a public callable (a stale one fails the test).
NO_EXAMPLE_NEEDED: Set[str] = set()


def public_callables() -> Iterator[Tuple[str, object]]:
    """Every public function and class of the four modules, and every public
    method of those classes (properties are shown by their class's example),
    by qualified name, each object once."""
    seen = set()
    for mod in (xstore, xstore.neuron, xstore.pto, xstore.q7):
        for name, obj in public(mod):
            if isinstance(obj, (types.ModuleType, str)) or name == "annotations":
                continue
            if not callable(obj):
                continue
            members = [(f"{mod.__name__}.{name}", obj)]
            if inspect.isclass(obj):
                members += [(f"{mod.__name__}.{name}.{a}", m) for a, m in vars(obj).items()
                            if not a.startswith("_")
                            and (callable(m) or isinstance(m, (staticmethod, classmethod)))]
            for qual, member in members:
                if id(member) not in seen:
                    seen.add(id(member))
                    yield qual, member


def test_every_public_callable_carries_an_example() -> None:
    names = [q for q, _ in public_callables()]
    missing = [q for q, m in public_callables()
               if ">>>" not in (getattr(m, "__doc__", None) or "") and q not in NO_EXAMPLE_NEEDED]
    assert len(names) > 100
    assert NO_EXAMPLE_NEEDED <= set(names)
    assert missing == [], f"{len(missing)} without an example: {', '.join(missing)}"


def python_blocks(path: str) -> List[Tuple[int, str]]:
    """The ```python blocks of a Markdown file, with their line numbers."""
    text = (ROOT / path).read_text()
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        out.append((text[: m.start()].count("\n") + 1, m.group(1)))
    return out


def run_block(code: str) -> None:
    """Run a block whose `print(...)` lines are each followed by `# -> …`
    comment lines holding what they print; check the printed text."""
    lines = code.splitlines()
    expected: List[str] = []
    program: List[str] = []
    for line in lines:
        m = re.match(r"\s*# -> ?(.*)$", line)
        if m:
            expected.append(m.group(1))
        else:
            program.append(line)
    buf = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile("\n".join(program), "<doc>", "exec"), {"__name__": "__doc__"})
    finally:
        os.chdir(cwd)
    assert buf.getvalue().splitlines() == expected


DOC_BLOCKS = [(p, n, c) for p in ("README.md", "docs/python.md", "docs/verify.md")
              for n, c in python_blocks(p)]


@pytest.mark.parametrize("path,line,code", DOC_BLOCKS, ids=[f"{p}:{n}" for p, n, _ in DOC_BLOCKS])
def test_doc_examples_print_what_they_show(path: str, line: int, code: str) -> None:
    run_block(code)


def test_the_docs_have_python_examples() -> None:
    assert len(python_blocks("README.md")) >= 2
    assert len(python_blocks("docs/python.md")) >= 9
    assert len(python_blocks("docs/verify.md")) >= 2


EXAMPLE_SCRIPTS = sorted((ROOT / "examples/python").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLE_SCRIPTS, ids=lambda p: p.name)
def test_example_scripts_run(script: "os.PathLike[str]") -> None:
    import subprocess
    import sys

    pytest.importorskip("numpy")
    out = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout


def test_there_are_three_example_scripts() -> None:
    assert [p.name for p in EXAMPLE_SCRIPTS] == ["campaign.py", "neuron_explain.py",
                                                 "pto_numpy.py", "q7_valign.py"]
