// write_hlo_proto and write_hlo_proto_buffers (hloroof/hlo_proto_writer.h) in pieces, for a
// writer that hands them on in turn.
#ifndef HLOROOF_EXPORT_HLO_PROTO_PIECES_H_
#define HLOROOF_EXPORT_HLO_PROTO_PIECES_H_

#include <string>
#include <vector>

#include "hloroof/memory.h"
#include "hloroof/module.h"

namespace hloroof::proto_internal {

// The bytes of write_hlo_proto(module), in pieces of about WirePieces::kPieceBytes
// (export/wire_writer.h; their concatenation is that string): none for a module whose proto
// would reach 2 GiB. Pieces need no hole of the whole's size in the heap (gemma3 4b: 2.8 MB).
std::vector<std::string> write_hlo_proto_pieces(const Module& module);
// The same of write_hlo_proto_buffers(module, memory) (its heap traces are most of it).
std::vector<std::string> write_hlo_proto_buffers_pieces(const Module& module,
                                                        const MemoryReport& memory);

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_EXPORT_HLO_PROTO_PIECES_H_
