// The buffer assignment of an HloProto (write_hlo_proto's field 3), written apart from the
// module so that write_hlo_proto and write_hlo_proto_buffers share it.
#ifndef HLOROOF_EXPORT_HLO_PROTO_BUFFERS_H_
#define HLOROOF_EXPORT_HLO_PROTO_BUFFERS_H_

#include "export/instruction_ids.h"
#include "hloroof/memory.h"
#include "hloroof/module.h"

namespace hloroof::proto_internal {

class WireWriter;
class WirePieces;

// The buffer assignment of `memory` (write_hlo_proto's): a BufferAssignmentProto's fields
// written into `out`, its buffers defined at the instruction ids of `ids` (the ids the
// module's HloModuleProto gives). With `pieces`, `out` writes into the string `pieces` hands
// over as pieces.
void write_buffer_assignment(const MemoryReport& memory, const InstructionIds& ids,
                             const Module& module, WireWriter& out,
                             WirePieces* pieces = nullptr);

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_EXPORT_HLO_PROTO_BUFFERS_H_
