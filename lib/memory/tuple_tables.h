// The pointer tables of tuple-shaped temporaries, as the TPU compiler's heap holds them
// (docs/memory.md, "On TPU").
#ifndef HLOROOF_PREDICT_TUPLE_TABLES_H_
#define HLOROOF_PREDICT_TUPLE_TABLES_H_

#include <cstdint>
#include <optional>

#include "hloroof/module.h"

namespace hloroof::detail {

// The tables of the tuple-shaped buffers the program makes and keeps in device memory: every
// tuple value of the entry computation and of the loops, calls and branches it runs, except
// those of the entry's parameters, constants and result, where values that alias (a loop's
// state and its body's parameter and root, a get-tuple-element and its source, ...) are one
// buffer and empty tuples hold nothing.
struct TupleTables {
  int64_t count = 0;  // the buffers
  int64_t bytes = 0;  // each table: 4 bytes an element, rounded up to `granule`, then `slot`
};

// nullopt when the module's tuples are too many to walk (more than a few million tuple
// shapes, which only a hostile input has).
std::optional<TupleTables> temporary_tuple_tables(const Module& module, int64_t granule,
                                                  int64_t slot);

}  // namespace hloroof::detail

#endif  // HLOROOF_PREDICT_TUPLE_TABLES_H_
