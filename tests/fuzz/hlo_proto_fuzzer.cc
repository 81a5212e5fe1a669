// Fuzzes the HLO proto reader: any bytes read as an HloProto or HloModuleProto, and XLA's
// buffer assignment from them. What reads must print, write back to a proto, and read again
// to the same text (the writer and reader agree on everything a reader can produce); the
// messages detect_input_kind hands on must read as the bytes do. No input may crash, trip a
// sanitizer or hang (libFuzzer's -timeout).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/hlo_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  hloroof::ParsedHloProto parsed;
  const hloroof::InputKind kind = hloroof::detect_input_kind(bytes, &parsed);
  if (parsed.ok() != (kind == hloroof::InputKind::kHloProto) ||
      parsed.ok() != hloroof::is_hlo_proto(bytes)) {
    std::abort();
  }
  if (parsed.xla_buffer_assignment().status() !=
      hloroof::read_xla_buffer_assignment(bytes).status()) {
    std::abort();
  }
  absl::StatusOr<hloroof::Module> m = hloroof::parse_hlo_proto(bytes);
  absl::StatusOr<hloroof::Module> kept = parsed.module();
  if (kept.ok() != m.ok() || (!m.ok() && kept.status() != m.status())) std::abort();
  if (!m.ok()) return 0;
  std::string text = hloroof::print(*m);
  if (hloroof::print(*kept) != text) std::abort();
  absl::StatusOr<hloroof::Module> back = hloroof::parse_hlo_proto(hloroof::write_hlo_proto(*m));
  if (!back.ok() || hloroof::print(*back) != text) std::abort();
  return 0;
}
