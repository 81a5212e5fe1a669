"""The sweep's output files: written whole (a temporary file beside the target, renamed over
it), never over an input, and CSV cells that a spreadsheet would run as formulas neutralized."""

from __future__ import annotations

import os
import secrets
import stat
from typing import Any, Callable, Iterable, Optional

# The first characters that make a spreadsheet read a CSV cell as a formula (OWASP's list).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def same_file(a: Any, b: Any) -> bool:
    """Whether two paths name one file (the same device and inode, however spelled)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError, TypeError):
        return False


def check_output(path: Any, what: str, inputs: Iterable[Any] = ()) -> str:
    """`path` as a string, refused (ValueError) when it is empty, a directory, or one of
    `inputs`, which writing it would overwrite."""
    text = os.fspath(path) if path is not None else ""
    if not text or "\0" in text:
        raise ValueError(f"cannot write the {what}: the path is empty; name a file")
    if os.path.isdir(text):
        raise ValueError(f"cannot write the {what} to {text!r}: it is a directory; name a file "
                         f"in it")
    for given in inputs:
        if given is not None and same_file(text, given):
            raise ValueError(f"cannot write the {what} to {text!r}: it is an input of this "
                             f"command ({os.fspath(given)!r}), which would be overwritten; "
                             f"write to another file")
    return text


def write_output(path: Any, write: Callable[[str], None], what: str = "output") -> str:
    """Calls `write` with a temporary path beside `path` (the real file's, through links), then
    renames it over `path`: a write that fails (a full disk, a file-size limit) leaves the old
    file as it was and no temporary behind. A path that is no regular file (a pipe,
    /dev/stdout) is written directly. Errors: OSError with one line naming `path`."""
    text = check_output(path, what)
    real = os.path.realpath(text)
    try:
        mode = os.stat(real).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        try:
            write(text)
        except OSError as error:
            raise OSError(f"cannot write the {what} to {text!r}: {_reason(error)}") from None
        return text
    temp = os.path.join(os.path.dirname(real), f".{os.path.basename(real)}."
                        f"{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        # Created as the target would be (0666 less the umask), then written by `write`.
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        write(temp)
        os.replace(temp, real)
    except BaseException as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise OSError(f"cannot write the {what} to {text!r}: {_reason(error)}") from None
        raise
    return text


def write_text(path: Any, text: str, what: str = "output") -> str:
    """`text` written to `path` (UTF-8) as write_output writes."""
    def write(temp: str) -> None:
        with open(temp, "w", encoding="utf-8") as f:
            f.write(text)
    return write_output(path, write, what)


def _number_text(text: str) -> bool:
    """Whether `text` is a number written out ("-2", "+1.5e3"): a spreadsheet reads it as the
    number, never as a formula."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def csv_safe(value: Any) -> Any:
    """A cell as written to CSV: a string a spreadsheet would run as a formula (=, +, -, @, a
    tab or a carriage return first, and not a number such as "-2") gets a leading apostrophe;
    anything else as it is."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS) and \
            not _number_text(value):
        return "'" + value
    return value


def csv_safe_frame(frame: Any) -> Any:
    """A pandas DataFrame with csv_safe applied to its column names and the cells of its text
    columns."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype) in ("string", "str"):
            out[column] = out[column].map(csv_safe)
    out.columns = [csv_safe(c) for c in out.columns]
    return out


def write_csv(frame: Any, path: Any, what: str = "rows",
              inputs: Optional[Iterable[Any]] = None) -> str:
    """`frame` written to `path` as CSV, whole, formulas neutralized, never over `inputs`."""
    check_output(path, what, inputs or ())
    safe = csv_safe_frame(frame)
    return write_output(path, lambda p: safe.to_csv(p, index=False), what)
