// Standard output that says when it could not be written: a report cut short by a full disk
// (`> /dev/full`), a closed descriptor (`>&-`) or an I/O error must not end with exit 0.
#ifndef HLOROOF_TOOLS_STANDARD_OUTPUT_H_
#define HLOROOF_TOOLS_STANDARD_OUTPUT_H_

namespace hloroof::cli {

// Called first in main. Standard streams the caller closed are held open on /dev/null for
// reading only, so that no file the command opens takes their number (a trace opened as
// descriptor 1 would receive the report) and a write to a closed standard output fails
// (EBADF). std::cout then writes to descriptor 1 through a buffer that keeps the first error.
void take_standard_output();

// Called last in main with the command's exit code: flushes std::cout; where anything written
// to it was lost, says `error: cannot write standard output: REASON` and returns 1 (or the
// command's own failing code), else `exit_code`.
int finish_standard_output(int exit_code);

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_STANDARD_OUTPUT_H_
