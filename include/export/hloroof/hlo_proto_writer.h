// Writing XLA's serialized HLO: `HloModuleProto` and `HloProto` (with a buffer assignment) of
// a module, in the messages of lib/proto/hlo.proto that hloroof/hlo_proto.h reads.
#ifndef HLOROOF_HLO_PROTO_WRITER_H_
#define HLOROOF_HLO_PROTO_WRITER_H_

#include <string>

#include "hloroof/memory.h"
#include "hloroof/module.h"

namespace hloroof {

// A serialized `HloModuleProto` of `module`: ids numbered from 1 in print order, the schedule
// when the module is scheduled, the entry layout as the host program shape, the header's
// aliasing, frontend attributes and stack frames, and each instruction's attributes in XLA's
// fields. An async op written with sugar (`fusion-start`) gets its wrapped computation, as XLA
// holds it. parse_hlo_proto(write_hlo_module_proto(m)) prints as m does. The bytes are
// protobuf's deterministic serialization (the schedule's entries in order of their keys): the
// same module gives the same bytes. Written one instruction's message at a time, they take
// about their own size in memory. Empty for a module whose proto would reach 2 GiB (protobuf
// reads no larger message).
std::string write_hlo_module_proto(const Module& module);
// The same inside an `HloProto` (field 1; no buffer assignment), as XSpace metadata holds it.
std::string write_hlo_proto(const Module& module);
// The same with the buffer assignment (field 3) of `memory`, the analyze_memory report of
// `module`, in the fields XProf's memory viewer reads (docs/xspace.md, "Memory viewer"): one
// BufferAllocationProto per allocation (color: its memory space), one LogicalBufferProto per
// buffer of memory.largest_buffers with an allocation of its own (defined at the instruction id
// this writer gives), and per temp allocation a heap simulator trace: ALLOC, SHARE_WITH (a
// result over its dying operand's bytes) and FREE events in program order. The traces are
// written only when largest_buffers holds every buffer (analyze_memory with top_buffers 0, or
// at least buffer_count): without some temporaries a trace would understate the heap.
std::string write_hlo_proto(const Module& module, const MemoryReport& memory);
// That buffer assignment alone: the HloProto's field 3, its tag and length and all, such that
// write_hlo_proto(module) followed by these bytes is write_hlo_proto(module, memory), byte for
// byte (a message's fields may be written apart and put one after the other). Made apart, it
// can be written while the module's part is.
std::string write_hlo_proto_buffers(const Module& module, const MemoryReport& memory);

}  // namespace hloroof

#endif  // HLOROOF_HLO_PROTO_WRITER_H_
