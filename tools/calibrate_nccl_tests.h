// `hloroof calibrate LOG...` on nccl-tests logs (hloroof/nccl_tests.h): the network across nodes
// of a GPU cluster, fitted to its own collectives.
#ifndef HLOROOF_TOOLS_CALIBRATE_NCCL_TESTS_H_
#define HLOROOF_TOOLS_CALIBRATE_NCCL_TESTS_H_

#include <optional>

#include "cli.h"

namespace hloroof::cli {

// The flags of `hloroof calibrate` that are its own (both its inputs read them).
namespace calibrate_flags {
inline constexpr Flag kHlo{
    .name = "--hlo",
    .type = FlagType::kText,
    .value_name = "HLO",
    .help = "the module of each profile, in order (or one for all; --hlo a.hlo b.hlo gives "
            "two): a file or an XLA dump directory; without it each PROFILE is a capture folder "
            "of tools/capture holding module.hlo, or a profile that carries its module (JAX's "
            "XSpaces do, as `hloroof profile` reads them)",
    .repeatable = true};
inline constexpr Flag kModule{
    .name = "--module",
    .type = FlagType::kText,
    .value_name = "NAME",
    .help = "with dump directories: the module of each to read (default: the largest jit_* "
            "one); without --hlo, the profiles' module (default: the one that ran longest)"};
inline constexpr Flag kDevice{
    .name = "--device",
    .type = FlagType::kText,
    .value_name = "D",
    .help = "the device to start from, as `hloroof predict` takes it; a device of another "
            "platform than the profiles' is an error",
    .default_help = "the one the profiles name (device plane, meta.json), as `profile` infers "
                    "it, or the GPU of the nccl-tests logs' rank lines"};
inline constexpr Flag kSet{
    .name = "--set",
    .type = FlagType::kText,
    .value_name = "PATH=VALUE",
    .help = "a figure of the device set before the fit, in base units (`hloroof devices D` "
            "lists them): e.g. --set hbm.bandwidth=3e12; the written device keeps it, and its "
            "notes say so; repeat it for more",
    .repeatable = true};
inline constexpr Flag kOutput{.name = "--output",
                              .type = FlagType::kText,
                              .value_name = "OUT.json",
                              .help = "where the fitted device goes (without it: the report "
                                      "only)",
                              .alias = "-o"};
inline constexpr Flag kName{.name = "--name",
                            .type = FlagType::kText,
                            .value_name = "NAME",
                            .help = "the fitted device's name",
                            .default_help = "DEVICE_fitted"};
inline constexpr Flag kDeviceIndex{.name = "--device-index",
                                   .type = FlagType::kCount,
                                   .value_name = "N",
                                   .help = "the profiles' device plane GPU:N or TPU:N",
                                   .default_value = "0",
                                   .max = 1 << 20};
}  // namespace calibrate_flags

// When every positional input of `calibrate` is an nccl-tests log, fits the device's network
// across nodes to them (interconnect.nic_efficiency, interconnect.scale_out_latency) and
// returns the exit code; nullopt otherwise (profiles).
std::optional<int> calibrate_from_nccl_tests(const Args& args);

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_CALIBRATE_NCCL_TESTS_H_
