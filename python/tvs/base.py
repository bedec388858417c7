"""base.py - the exceptions of the tvs package and the check that turns the C
API's status codes into them (with the diagnostic text as the message)."""
from . import _ffi


class TVMError(RuntimeError):
    """An error reported by TVS (TVM's name, so that `except tvm.TVMError` works)."""


class ParseError(TVMError, SyntaxError):
    """The script text does not parse or elaborate; the message carries
    file:line:col and the caret."""

    def __init__(self, msg):
        TVMError.__init__(self, msg)
        # SyntaxError's fields, from the first diagnostic, so that tracebacks and
        # notebooks point at the line: file:line:col: error: message / source / caret.
        import re
        lines = msg.split("\n")
        m = re.match(r"(.*?):(\d+):(\d+): error: (.*)", lines[0])
        self.msg = msg
        if m:
            self.filename, self.lineno, self.offset = m.group(1), int(m.group(2)), int(m.group(3))
            self.text = lines[1] + "\n" if len(lines) > 1 else None
            self.msg = m.group(4)
            self.end_lineno = self.end_offset = None

    def __str__(self):
        return self.args[0] if self.args else ""


class ScheduleError(TVMError):
    """An illegal schedule step (TVM's tvm.tir.ScheduleError)."""


class BuildError(TVMError):
    """Lowering, code generation or linking failed."""


class RunError(TVMError, ValueError):
    """A compiled function refused its arguments (dtype, shape, count...)."""


_BY_STATUS = {
    _ffi.ERR_ARGUMENT: TVMError,
    _ffi.ERR_PARSE: ParseError,
    _ffi.ERR_SCHEDULE: ScheduleError,
    _ffi.ERR_BUILD: BuildError,
    _ffi.ERR_RUN: RunError,
    _ffi.ERR_IO: OSError,
}


def check(rc):
    """Raises the exception for a failed call's status (rc < 0)."""
    if rc < 0:
        raise _BY_STATUS.get(rc, TVMError)(_ffi.last_error())
    return rc
