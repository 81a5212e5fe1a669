// The one writer for every output file (traces, roofline charts, fitted devices): the old file
// stays as it was unless the new one was written whole.
#ifndef HLOROOF_OUTPUT_FILE_H_
#define HLOROOF_OUTPUT_FILE_H_

#include <ostream>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"

namespace hloroof {

// Writes `contents` to `path`: into a temporary file beside it (same directory, so the same
// file system), flushed to the disk, then renamed over `path` in one step. A failure (a full
// disk, a file-size limit, a directory that cannot be written) leaves any old file at `path` as
// it was and no temporary behind; two writers of one path leave one whole file. A symbolic link
// at `path` is followed: the file it names is replaced. A path that exists and is not a regular
// file (/dev/null, /dev/stdout, a named pipe) is written in place, as it cannot be replaced.
// Where the file system has O_TMPFILE, the new file has no name until it is written whole:
// a run killed mid-write (SIGKILL, a file-size limit) leaves nothing behind. A path of "-" is
// standard output. Refused: an empty path, a directory, and a path that names one of `inputs`
// (the same file: the same device and inode, whatever the spelling; "-" names the file
// redirected to standard input, and "PATH:SUFFIX" that names no file names PATH, as a device
// spec with its topology does), which would destroy what was read. `what` names the output in
// errors ("the trace"): "cannot write the trace to 'PATH': ...". A file that can be written in
// a folder that cannot is refused, saying why; with HLOROOF_WRITE_IN_PLACE=1 in the
// environment it is written in place (a failed write then leaves it cut short).
absl::Status write_output_file(std::string_view path, std::string_view contents,
                               std::string_view what,
                               absl::Span<const std::string> inputs = {});
// The same, with the contents written by `produce` into a stream as they are made, so that a
// large output (a trace several times its module's size) is never held whole.
absl::Status write_output_file(std::string_view path,
                               absl::FunctionRef<void(std::ostream&)> produce,
                               std::string_view what,
                               absl::Span<const std::string> inputs = {});

}  // namespace hloroof

#endif  // HLOROOF_OUTPUT_FILE_H_
