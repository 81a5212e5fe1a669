#include <catch2/catch.hpp>

#include "hloroof/text_table.h"

namespace hloroof {
namespace {

TEST_CASE("columns align, long cells are cut, no trailing spaces") {
  TextTable t({{"op", TextTable::Align::kLeft, 8}, {"time"}, {"share"}});
  t.add_row({"fusion.1", "1.2 ms", "50.0%"});
  t.add_row({"all-gather-start.12", "850 us"});  // cut to 8 characters, share missing
  CHECK(t.render() ==
        "op          time  share\n"
        "--------  ------  -----\n"
        "fusion.1  1.2 ms  50.0%\n"
        "all-gat~  850 us\n");
}

}  // namespace
}  // namespace hloroof
