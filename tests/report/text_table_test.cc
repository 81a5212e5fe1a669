#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "hloroof/text_table.h"

namespace hloroof {
namespace {

TEST_CASE("columns align, no trailing spaces; a column with room is not cut") {
  TextTable t({{"op", TextTable::Align::kLeft, 8}, {"time"}, {"share"}});
  t.add_row({"fusion.1", "1.2 ms", "50.0%"});
  t.add_row({"all-gather-start.12", "850 us"});  // share missing
  // 19 + 2 + 6 + 2 + 5 = 34 columns: the name column grows past its 8 into the room left.
  CHECK(t.render() ==
        "op                     time  share\n"
        "-------------------  ------  -----\n"
        "fusion.1             1.2 ms  50.0%\n"
        "all-gather-start.12  850 us\n");
}

TEST_CASE("a table wider than 100 columns: text wraps by words, names keep start and end") {
  // The name column keeps 20, the detail 40, the figure takes 30: 20 + 2 + 40 + 2 + 30 = 94
  // columns, 6 to spare, which the name column (the first one cut) takes: 26.
  TextTable t({{"instruction", TextTable::Align::kLeft, 20},
               {"detail", TextTable::Align::kLeft, 40},
               {"figure", TextTable::Align::kLeft}});
  const std::string figure(30, 'x');
  t.add_row({"convolution_multiply_fusion.12",
             "transcendentals 1.81 Gops, bytes accessed 32.2 GiB (loops once)", figure});
  const std::string out = t.render();
  // The name in 26: its start up to a separator, its end from one ("fusion.12", at most half
  // the width); the detail in lines of at most 40, broken at spaces (the widest 32).
  CHECK(out == "instruction            detail                            figure\n"
               "---------------------  --------------------------------  " +
                   std::string(30, '-') + "\n"
                   "convolution~fusion.12  transcendentals 1.81 Gops, bytes  " + figure + "\n"
                   "                       accessed 32.2 GiB (loops once)\n");
}

TEST_CASE("shorten_name keeps a name's start and end, each cut at a separator") {
  CHECK(shorten_name("gemm_fusion_dot.general.51", 22) == "gemm_fusion~general.51");
  CHECK(shorten_name("convolution_multiply_fusion.1", 28) == "convolution~fusion.1");
  CHECK(shorten_name("fusion.1", 22) == "fusion.1");
  // No separator before the room: cut there, the one place left.
  CHECK(shorten_name("abcdefghijklmnopqrstuvwxyz.1", 10) == "abcdefgh~1");
}

}  // namespace
}  // namespace hloroof
