// `hloroof calibrate LOG...` on nccl-tests logs (hloroof/nccl_tests.h): the network across nodes
// of a GPU cluster, fitted to its own collectives.
#ifndef HLOROOF_TOOLS_CALIBRATE_NCCL_TESTS_H_
#define HLOROOF_TOOLS_CALIBRATE_NCCL_TESTS_H_

#include <optional>

#include "cli.h"

namespace hloroof::cli {

// When every positional input of `calibrate` is an nccl-tests log, fits the device's
// interconnect.nic_efficiency to them and returns the exit code; nullopt otherwise (profiles).
std::optional<int> calibrate_from_nccl_tests(const Args& args);

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_CALIBRATE_NCCL_TESTS_H_
