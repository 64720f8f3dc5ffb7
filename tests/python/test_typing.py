"""The generated stubs (gi-stubs/repository/Ep.pyi): they are consistent,
they type every public name of the override precisely (no Any), a correct
script type-checks with mypy and runs, and wrong calls are caught where
expected and fail at run time too."""

import ast
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.join(os.path.dirname(__file__), "typing")
STUBS = os.environ.get("EP_STUBS_DIR")
EP_PYI = os.path.join(STUBS or "", "gi-stubs", "repository", "Ep.pyi")

pytestmark = pytest.mark.skipif(STUBS is None, reason="EP_STUBS_DIR (the stubs' build folder) not set")

# Names that stay Any in the stubs, and why. Everything else in Ep.pyi
# (every parameter and return of every function and method, every
# attribute) must have a type that is not Any, nor a Union with Any.
ALLOWED_ANY = {
    # nested lists of Python scalars, as deep as the tensor: NumPy's own
    # stubs type ndarray.tolist() as Any too
    "Tensor.tolist": "return",
    "Variable.tolist": "return",
    # a Tensor attribute of the current value; the stubs list Tensor's
    # methods on Variable, so this only answers names no stub declares
    "Variable.__getattr__": "return",
    # a variable or module registered under that name: typed code calls
    # self.fc1(x) (a Module) and reads self.w (a Variable) alike, as
    # PyTorch's attributes of a Module
    "Module.__getattr__": "return",
    # NumPy's protocols: any ufunc's or function's arguments and results
    # (NumPy's own stubs type ndarray's so too)
    "Tensor.__array_ufunc__": "inputs, kwargs, return",
    "Tensor.__array_function__": "return",
    "Variable.__array_ufunc__": "inputs, kwargs, return",
    "Variable.__array_function__": "return",
}


def mypy(*paths, flags=()):
    env = dict(os.environ, PYTHONPATH=STUBS, MYPY_CACHE_DIR=os.devnull)
    env.pop("LD_PRELOAD", None)
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
                             "--no-error-summary", "--show-error-codes", "--config-file", os.devnull,
                             *flags, *paths],
                            env=env, capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def test_stubs_exist():
    assert os.path.isfile(EP_PYI)


def test_stubs_type_check_on_their_own():
    """mypy silences errors inside an installed stub package: check it as
    a file of its own (names it uses are defined, overloads consistent,
    nothing shadowed in a class body)."""
    code, output = mypy(EP_PYI)
    assert code == 0, output


# No Any


def _aliases(tree):
    return {node.targets[0].id: node.value for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)}


def _is_any(node, aliases, seen=()):
    """Whether an annotation means Any: Any itself, an alias of it, or a
    Union or Optional with Any among its members."""
    if node is None:
        return True
    if isinstance(node, ast.Name):
        if node.id == "Any":
            return True
        if node.id in aliases and node.id not in seen:
            return _is_any(aliases[node.id], aliases, seen + (node.id,))
        return False
    if isinstance(node, ast.Attribute):
        return node.attr == "Any" and isinstance(node.value, ast.Name) and node.value.id == "typing"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _is_any(ast.parse(node.value, mode="eval").body, aliases, seen)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_any(node.left, aliases, seen) or _is_any(node.right, aliases, seen)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
            and node.value.id in ("Union", "Optional"):
        members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(_is_any(m, aliases, seen) for m in members)
    return False


def _untyped(tree):
    """{qualified name: [what is Any]} over every function, method and
    attribute of the stubs."""
    aliases = _aliases(tree)
    found = {}

    def visit(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.FunctionDef):
                name = prefix + node.name
                arguments = node.args
                positional = arguments.posonlyargs + arguments.args
                if prefix and not any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                      for d in node.decorator_list):
                    positional = positional[1:]   # self
                for arg in positional + arguments.kwonlyargs + [arguments.vararg, arguments.kwarg]:
                    if arg is not None and _is_any(arg.annotation, aliases):
                        found.setdefault(name, []).append(arg.arg)
                if _is_any(node.returns, aliases):
                    found.setdefault(name, []).append("return")
            elif isinstance(node, ast.AnnAssign) and _is_any(node.annotation, aliases):
                found.setdefault(prefix + ast.unparse(node.target), []).append("type")
    visit(tree.body, "")
    return found


def test_nothing_is_typed_any():
    with open(EP_PYI) as f:
        tree = ast.parse(f.read())
    found = {name: ", ".join(sorted(set(what))) for name, what in _untyped(tree).items()}
    unexpected = {name: what for name, what in found.items() if ALLOWED_ANY.get(name) != what}
    assert not unexpected, ("typed Any in Ep.pyi (annotate them in gi/overrides/Ep.py, or add them "
                            f"to ALLOWED_ANY with a reason): {unexpected}")
    stale = set(ALLOWED_ANY) - set(found)
    assert not stale, f"ALLOWED_ANY lists names that are no longer Any: {sorted(stale)}"


def test_the_any_check_sees_any():
    tree = ast.parse("A = Union[int, Any]\nB = int\n"
                     "def f(x: A, y: Optional[Any], *z, w: B = ...) -> Any: ...\n"
                     "class C:\n    def g(self, s: 'Any') -> int | Any: ...\n    v: Any\n"
                     "    @staticmethod\n    def h(t, u: B) -> B: ...\n")
    assert {k: sorted(v) for k, v in _untyped(tree).items()} == {
        "f": ["return", "x", "y", "z"], "C.g": ["return", "s"], "C.v": ["type"], "C.h": ["t"]}


def test_stubs_declare_every_public_name():
    """Every name the override exports, and every public member of its
    classes, is in the stubs (a missing one would be an error for mypy,
    or Any through a base class that the stubs do not know)."""
    import gi
    gi.require_version("Ep", "1.0")
    from gi.repository import Ep
    override = sys.modules["gi.overrides.Ep"]
    with open(EP_PYI) as f:
        tree = ast.parse(f.read())
    top = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            top[ast.unparse(node.target)] = node
        elif isinstance(node, ast.Assign):
            top[node.targets[0].id] = node
    missing = [name for name in override.__all__ if name not in top]
    for name in ("Tensor", "Variable", "GradientTape", "Device", "device"):
        cls = getattr(Ep, name)
        members = {n.name if isinstance(n, ast.FunctionDef) else ast.unparse(n.target)
                   for n in top[name].body if isinstance(n, (ast.FunctionDef, ast.AnnAssign))}
        for attribute, value in vars(cls).items():
            if callable(value) or isinstance(value, property):
                if not attribute.startswith("_") or (attribute.startswith("__") and attribute.endswith("__")
                                                     and attribute not in ("__init_subclass__", "__subclasshook__")):
                    if attribute not in members and attribute not in ("__dict__", "__weakref__"):
                        missing.append(f"{name}.{attribute}")
    assert not missing, missing


# User code


def test_user_script_type_checks():
    code, output = mypy(os.path.join(HERE, "good.py"), flags=["--strict-equality", "--warn-unreachable"])
    assert code == 0, output


def test_user_script_runs():
    """good.py is typed as it runs: every call in it works."""
    env = dict(os.environ)
    result = subprocess.run([sys.executable, os.path.join(HERE, "good.py")], env=env,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def _bad_lines():
    path = os.path.join(HERE, "bad.py")
    expected = {}
    with open(path) as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, 1):
        match = re.search(r"# E: ([\w-]+)", line)
        if match:
            expected[number] = match.group(1)
    return path, lines, expected


def test_wrong_calls_are_caught():
    path, _, expected = _bad_lines()
    code, output = mypy(path)
    assert code == 1, output
    got = {}
    for line in output.splitlines():
        match = re.match(r".*bad\.py:(\d+): error: .*\[([\w-]+)\]$", line)
        if match:
            got[int(match.group(1))] = match.group(2)
    assert got == expected, output


def test_wrong_calls_fail_at_run_time():
    """The stubs reject what would fail: each wrong call of bad.py, run
    after the lines before the first one, raises, except the lines that say
    why they run ("# runs: ...") and assignments to a wrongly annotated name,
    which are only wrong for a type checker."""
    _, lines, expected = _bad_lines()
    first = min(expected)
    prelude = compile("\n".join(lines[:first - 1]), "bad.py", "exec")
    namespace = {"__name__": "bad"}
    exec(prelude, namespace)
    wrong = []
    for number, code in sorted(expected.items()):
        line = lines[number - 1]
        if code == "assignment":
            continue
        try:
            exec(compile(line, f"bad.py:{number}", "exec"), dict(namespace))
            failed = False
        except Exception:  # noqa: B902 (any error will do)
            failed = True
        if failed == ("# runs:" in line):
            wrong.append(f"{number}: {line} ({'fails' if failed else 'runs'})")
    assert not wrong, "these lines of bad.py do not do what they say at run time:\n" + "\n".join(wrong)
