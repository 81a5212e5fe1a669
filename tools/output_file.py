"""The one writer for every file the tools in tools/ write, as `write_output_file`
(hloroof/output_file.h) is the command's: the text goes to a temporary file beside the target,
flushed to the disk, then renamed over it in one step. A failure (a full disk, a file-size limit,
an exception while writing) leaves any old file as it was and no temporary behind.

Scripts in tools/ and its folders import it after putting tools/ on their path:

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tools/
    from output_file import write_output
"""

import os
import tempfile
from typing import Union


def write_output(path: Union[str, "os.PathLike[str]"], contents: Union[str, bytes]) -> None:
    """Writes `contents` (text as UTF-8, or bytes) to `path`, replacing it whole or not at all.
    A replaced file keeps its permissions; a new one gets 0666 less the umask."""
    path = os.path.realpath(os.fspath(path))  # a link: replace the file it names
    directory, name = os.path.split(path)
    data = contents.encode("utf-8") if isinstance(contents, str) else contents
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.tmp.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
