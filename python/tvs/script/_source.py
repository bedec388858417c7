"""_source.py - the source text of a decorated class or function, as TVM's
parser takes it: the lines of the definition (decorators included) and the
line it starts on in its file, so that diagnostics point into the user's .py
file.  Works in plain files and in Jupyter cells (through linecache)."""
import inspect
import linecache
import re
import textwrap


def _lines_from_code(code, name, is_class):
    """(lines, first_line) of class `name` around code, found in linecache."""
    lines = linecache.getlines(code.co_filename)
    if not lines:
        raise OSError(f"tvs: the source of '{name}' is not available")
    start = code.co_firstlineno - 1
    if is_class:
        pat = re.compile(r"^(\s*)class\s+" + re.escape(name) + r"\b")
        while start >= 0 and not pat.match(lines[start]):
            start -= 1
        if start < 0:
            raise OSError(f"tvs: cannot find 'class {name}' in {code.co_filename}")
    while start > 0 and lines[start - 1].lstrip().startswith("@"):
        start -= 1
    block = inspect.getblock(lines[start:])
    return block, start + 1


def source_of(obj, members=()):
    """(text, file name, first line) of a class or function."""
    try:
        lines, first = inspect.getsourcelines(obj)
        fname = inspect.getsourcefile(obj) or "<string>"
    except (OSError, TypeError):
        code = None
        if inspect.isfunction(obj):
            code = obj.__code__
        else:
            for m in members:
                code = getattr(m, "__code__", None)
                if code is not None:
                    break
        if code is None:
            raise OSError(f"tvs: the source of {getattr(obj, '__name__', obj)!r} is not available "
                          "(TVMScript is parsed from its text)")
        lines, first = _lines_from_code(code, obj.__name__, inspect.isclass(obj))
        fname = code.co_filename
    first = max(first, 1)
    return textwrap.dedent("".join(lines)), fname, first


def replace_decorators(text, wanted):
    """The text with its leading decorator lines replaced by `wanted` (one
    line each, so that line numbers stay): whatever the user imported TVS as
    (tvm.script.ir_module, tvs.script.ir_module), the C front end reads @I.ir_module."""
    lines = text.split("\n")
    i = 0
    while i < len(lines) and lines[i].lstrip().startswith("@"):
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines[i] = indent + wanted if i == 0 else ""
        i += 1
    return "\n".join(lines)
