// The attributes an instruction's line carries after its operands, by opcode, in the order
// XLA prints them (HloInstruction::ExtraAttributesToStringImpl and its subclasses', then the
// called computations): TextBuilder::opcode_attributes (proto/text_builder.h).
#include <optional>
#include <string>
#include <string_view>

#include "hloroof/opcode.h"
#include "proto/dot_algorithms.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"
#include "proto/proto_text.h"
#include "proto/text_builder.h"
#include "hloroof/absl_compat.h"
#include "util/wire_reader.h"

namespace hloroof::proto_internal {

bool TextBuilder::called_attribute(const Comp& c, const pb::HloInstructionProto& i,
                                   std::string_view name, int k) {
  std::string callee;
  if (!called(c, i, k, &callee)) return false;
  attr(name, callee);
  return true;
}

void TextBuilder::channel_attribute(const pb::HloInstructionProto& i) {
  if (i.channel_id() > 0) attr("channel_id", str_cat(i.channel_id()));
}

void TextBuilder::replica_groups_attribute(const pb::HloInstructionProto& i) {
  std::string groups;
  if (i.has_collective_device_list() &&
      i.collective_device_list().has_iota_replica_group_list()) {
    const auto& g = i.collective_device_list().iota_replica_group_list();
    groups = str_cat("[", g.num_replica_groups(), ",", g.num_devices_per_group(), "]<=",
                     iota_text(g.iota_reshape_dims(), g.iota_transpose_perm()));
  } else {
    const auto& list = i.has_collective_device_list()
                           ? i.collective_device_list().replica_groups()
                           : i.replica_groups();
    groups.push_back('{');  // empty here (an assignment from "{" trips GCC 12's -Wrestrict)
    for (int k = 0; k < list.size(); ++k) {
      if (k > 0) groups += ",";
      append_ints(&groups, list[k].replica_ids());
    }
    groups += "}";
  }
  attr("replica_groups", groups);
}

bool TextBuilder::precision_attributes(const Comp& c, const pb::HloInstructionProto& i) {
  const pb::PrecisionConfig& p = i.precision_config();
  bool all_default = true;
  for (int x : p.operand_precision()) all_default = all_default && x == 0;
  if (!all_default) {
    std::string words = "{";
    for (int k = 0; k < p.operand_precision_size(); ++k) {
      std::string_view w = precision_word(p.operand_precision(k));
      if (w.empty()) return fail_at(*c.proto, i, "unknown operand precision");
      if (k > 0) words += ",";
      words += std::string(w);
    }
    attr("operand_precision", words + "}");
  }
  if (p.algorithm() != 0) {
    std::string_view w = dot_algorithm_word(p.algorithm());
    if (w.empty()) return fail_at(*c.proto, i, str_cat("unknown algorithm ", p.algorithm()));
    attr("algorithm", std::string(w));
  }
  return true;
}

bool TextBuilder::convolution_attributes(const Comp& c, const pb::HloInstructionProto& i) {
  if (i.has_window() && i.window().dimensions_size() > 0) attr("window", window_text(i.window()));
  if (i.has_convolution_dimension_numbers()) {
    std::string labels, error;
    if (!dim_labels_text(i.convolution_dimension_numbers(), &labels, &error)) {
      return fail_at(*c.proto, i, error);
    }
    attr("dim_labels", labels);
  }
  if (i.feature_group_count() > 1) attr("feature_group_count", str_cat(i.feature_group_count()));
  if (i.batch_group_count() > 1) attr("batch_group_count", str_cat(i.batch_group_count()));
  return true;
}

void TextBuilder::dot_attributes(const pb::DotDimensionNumbers& d) {
  if (d.lhs_batch_dimensions_size() > 0) attr("lhs_batch_dims", ints(d.lhs_batch_dimensions()));
  attr("lhs_contracting_dims", ints(d.lhs_contracting_dimensions()));
  if (d.rhs_batch_dimensions_size() > 0) attr("rhs_batch_dims", ints(d.rhs_batch_dimensions()));
  attr("rhs_contracting_dims", ints(d.rhs_contracting_dimensions()));
}

void TextBuilder::aliasing_attribute(const pb::HloInstructionProto& i) {
  if (i.output_operand_aliasing_size() == 0) return;
  std::string s = "{";
  for (int k = 0; k < i.output_operand_aliasing_size(); ++k) {
    const auto& x = i.output_operand_aliasing(k);
    if (k > 0) s += ", ";
    str_append(&s, ints(x.output_shape_index()), ": (", x.operand_index(), ", ",
               ints(x.operand_shape_index()), ")");
  }
  attr("output_to_operand_aliasing", s + "}");
}

// Shapes, dimensions and the element-wise ops' own fields.
std::optional<bool> TextBuilder::array_attributes(const Comp& c,
                                                  const pb::HloInstructionProto& i, Opcode op) {
  auto add = [&](std::string_view name, std::string_view value) { attr(name, value); };
  auto comp = [&](std::string_view name, int k) { return called_attribute(c, i, name, k); };
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
    case Opcode::kMap:
      add("dimensions", ints(i.dimensions()));
      if (op == Opcode::kMap && !comp("to_apply", 0)) return false;
      return true;
    case Opcode::kReduce:
      add("dimensions", ints(i.dimensions()));
      return comp("to_apply", 0);
    case Opcode::kSort:
      add("dimensions", ints(i.dimensions()));
      if (i.is_stable()) add("is_stable", "true");
      return comp("to_apply", 0);
    case Opcode::kTopK:
      add("k", str_cat(i.k()));
      if (i.largest()) add("largest", "true");
      return true;
    case Opcode::kIota:
      if (i.dimensions_size() != 1) return fail_at(*c.proto, i, "an iota has one dimension");
      add("iota_dimension", str_cat(i.dimensions(0)));
      return true;
    case Opcode::kGetTupleElement:
      add("index", str_cat(i.tuple_index()));
      return true;
    case Opcode::kSlice: {
      std::string s = "{";
      bool strides = false;
      for (const auto& d : i.slice_dimensions()) strides = strides || d.stride() != 1;
      for (int k = 0; k < i.slice_dimensions_size(); ++k) {
        const auto& d = i.slice_dimensions(k);
        if (k > 0) s += ", ";
        str_append(&s, "[", d.start(), ":", d.limit());
        if (strides) str_append(&s, ":", d.stride());
        s += "]";
      }
      add("slice", s + "}");
      return true;
    }
    case Opcode::kDynamicSlice:
      add("dynamic_slice_sizes", ints(i.dynamic_slice_sizes()));
      return true;
    case Opcode::kPad: {
      std::string s;
      bool interior = false;
      for (const auto& d : i.padding_config().dimensions()) {
        interior = interior || d.interior_padding() != 0;
      }
      for (int k = 0; k < i.padding_config().dimensions_size(); ++k) {
        const auto& d = i.padding_config().dimensions(k);
        if (k > 0) s += "x";
        str_append(&s, d.edge_padding_low(), "_", d.edge_padding_high());
        if (interior) str_append(&s, "_", d.interior_padding());
      }
      add("padding", s);
      return true;
    }
    case Opcode::kReducePrecision:
      add("exponent_bits", str_cat(i.exponent_bits()));
      add("mantissa_bits", str_cat(i.mantissa_bits()));
      return true;
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      add("epsilon", float_text(i.epsilon(), 11));
      add("feature_index", str_cat(i.feature_index()));
      return true;
    case Opcode::kRng:
      if (i.distribution() != 1 && i.distribution() != 2) {
        return fail_at(*c.proto, i, "unknown random distribution");
      }
      add("distribution", i.distribution() == 1 ? "rng_uniform" : "rng_normal");
      return true;
    case Opcode::kRngBitGenerator: {
      static constexpr std::string_view kAlgorithms[] = {"rng_default", "rng_three_fry",
                                                         "rng_philox"};
      if (i.rng_algorithm() < 0 || i.rng_algorithm() > 2) {
        return fail_at(*c.proto, i, "unknown random algorithm");
      }
      add("algorithm", std::string(kAlgorithms[i.rng_algorithm()]));
      return true;
    }
    case Opcode::kRngGetAndUpdateState:
      add("delta", str_cat(i.delta()));
      return true;
    case Opcode::kFft: {
      static constexpr std::string_view kTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
      if (i.fft_type() < 0 || i.fft_type() > 3) return fail_at(*c.proto, i, "unknown fft type");
      add("fft_type", std::string(kTypes[i.fft_type()]));
      add("fft_length", ints(i.fft_length()));
      return true;
    }
    case Opcode::kTriangularSolve: {
      const auto& t = i.triangular_solve_options();
      static constexpr std::string_view kTranspose[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE",
                                                        "TRANSPOSE", "ADJOINT"};
      if (t.transpose_a() < 0 || t.transpose_a() > 3) {
        return fail_at(*c.proto, i, "unknown transpose_a");
      }
      add("left_side", t.left_side() ? "true" : "false");
      add("lower", t.lower() ? "true" : "false");
      add("unit_diagonal", t.unit_diagonal() ? "true" : "false");
      add("transpose_a", std::string(kTranspose[t.transpose_a()]));
      return true;
    }
    case Opcode::kCholesky:
      add("lower", i.cholesky_options().lower() ? "true" : "false");
      return true;
    case Opcode::kCompare: {
      add("direction", i.comparison_direction());
      // The type prints when it is not the default of the operands' element type.
      const pb::HloInstructionProto* lhs = operand(c, i, 0);
      if (!i.comparison_type().empty() && lhs != nullptr) {
        int t = element_type_of(*lhs);
        std::string_view name = primitive_name_of(t);
        std::string_view def = proto_internal::is_float_type(t)          ? "FLOAT"
                               : (!name.empty() && name[0] == 's')      ? "SIGNED"
                                                                        : "UNSIGNED";
        if (i.comparison_type() != def) add("type", i.comparison_type());
      }
      return true;
    }
    default:
      return std::nullopt;
  }
}

// Convolutions, dots, gathers, scatters and windows.
std::optional<bool> TextBuilder::computation_attributes(const Comp& c,
                                                        const pb::HloInstructionProto& i,
                                                        Opcode op) {
  auto add = [&](std::string_view name, std::string_view value) { attr(name, value); };
  auto comp = [&](std::string_view name, int k) { return called_attribute(c, i, name, k); };
  auto precision = [&] { return precision_attributes(c, i); };
  auto conv = [&] { return convolution_attributes(c, i); };
  auto dot_dims = [&](const pb::DotDimensionNumbers& d) { dot_attributes(d); };
  // A gather's or scatter's batching dims, the operand's and the indices' (each where there
  // are any), and its index vector dim.
  using Dims = google::protobuf::RepeatedField<int64_t>;
  auto indexing = [&](std::string_view operand_name, const Dims& operand_dims,
                      std::string_view indices_name, const Dims& indices_dims,
                      int64_t index_vector_dim) {
    if (operand_dims.size() > 0) add(operand_name, ints(operand_dims));
    if (indices_dims.size() > 0) add(indices_name, ints(indices_dims));
    add("index_vector_dim", str_cat(index_vector_dim));
  };
  // A flag the proto holds, true or written false.
  auto flag = [&](std::string_view name, bool present, bool value) {
    if (present) add(name, value ? "true" : "false");
  };
  switch (op) {
    case Opcode::kConvolution:
      if (!conv()) return false;
      return precision();
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
      if (op == Opcode::kRaggedDot) {
        const auto& r = i.ragged_dot_dimension_numbers();
        dot_dims(r.dot_dimension_numbers());
        if (r.lhs_ragged_dimensions_size() > 0) {
          add("lhs_ragged_dims", ints(r.lhs_ragged_dimensions()));
        }
        if (r.rhs_group_dimensions_size() > 0) {
          add("rhs_group_dims", ints(r.rhs_group_dimensions()));
        }
      } else {
        dot_dims(i.dot_dimension_numbers());
      }
      return precision();
    case Opcode::kGather: {
      const auto& g = i.gather_dimension_numbers();
      add("offset_dims", ints(g.offset_dims()));
      add("collapsed_slice_dims", ints(g.collapsed_slice_dims()));
      add("start_index_map", ints(g.start_index_map()));
      indexing("operand_batching_dims", g.operand_batching_dims(),
               "start_indices_batching_dims", g.start_indices_batching_dims(),
               g.index_vector_dim());
      add("slice_sizes", ints(i.gather_slice_sizes()));
      flag("indices_are_sorted", i.has_indices_are_sorted(), i.indices_are_sorted());
      return true;
    }
    case Opcode::kScatter: {
      const auto& s = i.scatter_dimension_numbers();
      add("update_window_dims", ints(s.update_window_dims()));
      add("inserted_window_dims", ints(s.inserted_window_dims()));
      add("scatter_dims_to_operand_dims", ints(s.scatter_dims_to_operand_dims()));
      indexing("input_batching_dims", s.input_batching_dims(), "scatter_indices_batching_dims",
               s.scatter_indices_batching_dims(), s.index_vector_dim());
      flag("indices_are_sorted", i.has_indices_are_sorted(), i.indices_are_sorted());
      flag("unique_indices", i.has_unique_indices(), i.unique_indices());
      return comp("to_apply", 0);
    }
    case Opcode::kReduceWindow:
      add("window", window_text(i.window()));
      return comp("to_apply", 0);
    case Opcode::kSelectAndScatter:
      add("window", window_text(i.window()));
      return comp("select", 0) && comp("scatter", 1);
    default:
      return std::nullopt;
  }
}

// Calls, loops, conditionals, fusions and custom calls.
std::optional<bool> TextBuilder::control_attributes(const Comp& c,
                                                    const pb::HloInstructionProto& i, Opcode op) {
  auto add = [&](std::string_view name, std::string_view value) { attr(name, value); };
  auto comp = [&](std::string_view name, int k) { return called_attribute(c, i, name, k); };
  auto precision = [&] { return precision_attributes(c, i); };
  auto conv = [&] { return convolution_attributes(c, i); };
  auto aliasing = [&] { aliasing_attribute(i); };
  switch (op) {
    case Opcode::kCall:
      if (!comp("to_apply", 0)) return false;
      if (i.is_composite()) add("is_composite", "true");
      return true;
    case Opcode::kWhile:
      // XLA keeps the body first and the condition second.
      return comp("condition", 1) && comp("body", 0);
    case Opcode::kConditional: {
      const pb::HloInstructionProto* pred = operand(c, i, 0);
      if (pred != nullptr && element_type_of(*pred) == 1 &&
          i.called_computation_ids_size() == 2) {
        return comp("true_computation", 0) && comp("false_computation", 1);
      }
      std::string list = "{";
      for (int k = 0; k < i.called_computation_ids_size(); ++k) {
        std::string name;
        if (!called(c, i, k, &name)) return false;
        if (k > 0) list += ", ";
        list += name;
        if (out_.size() + list.size() > text_limit()) return fail_too_long(*c.proto, i);
      }
      add("branch_computations", list + "}");
      return true;
    }
    case Opcode::kFusion:
      add("kind", i.fusion_kind());
      aliasing();
      return comp("calls", 0);
    case Opcode::kCustomCall: {
      if (!conv()) return false;
      if (!precision()) return false;
      add("custom_call_target", quote_text(i.custom_call_target()));
      if (i.constrain_layout()) {
        std::string s = "{";
        bool first = true;
        const bool ok = wire::for_each_field(set_aside(i), [&](const wire::Field& f) {
          if (f.number != 57 || f.type != 2) return true;
          if (!first) s += ", ";
          first = false;
          return append_shape_bytes(&s, f.payload, 0, &error_);
        });
        if (!ok) return fail_at(*c.proto, i, error_);
        add("operand_layout_constraints", s + "}");
      }
      if (i.custom_call_has_side_effect()) add("custom_call_has_side_effect", "true");
      aliasing();
      if (i.custom_call_schedule() == 1) add("schedule", "SCHEDULE_LATEST");
      if (i.custom_call_schedule() == 2) add("schedule", "SCHEDULE_EARLIEST");
      if (i.padding_type() == 1) add("padding_type", "PADDING_VALID");
      if (i.padding_type() == 2) add("padding_type", "PADDING_SAME");
      static constexpr std::string_view kVersions[] = {
          "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
          "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
      int v = i.custom_call_api_version();
      if (v < 0 || v > 4) return fail_at(*c.proto, i, str_cat("unknown api version ", v));
      if (v != 1 && v != 0) add("api_version", std::string(kVersions[v]));
      if (i.called_computation_ids_size() > 0) {
        std::string list = "{";
        for (int k = 0; k < i.called_computation_ids_size(); ++k) {
          std::string name;
          if (!called(c, i, k, &name)) return false;
          if (k > 0) list += ", ";
          list += name;
        }
        add("called_computations", list + "}");
      }
      return true;
    }
    default:
      return std::nullopt;
  }
}

// Collectives, transfers, parameters and async ops.
std::optional<bool> TextBuilder::transfer_attributes(const Comp& c,
                                                     const pb::HloInstructionProto& i, Opcode op) {
  auto add = [&](std::string_view name, std::string_view value) { attr(name, value); };
  auto comp = [&](std::string_view name, int k) { return called_attribute(c, i, name, k); };
  auto channel = [&] { channel_attribute(i); };
  auto replica_groups = [&] { replica_groups_attribute(i); };
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kReduceScatter:
      channel();
      replica_groups();
      if (i.constrain_layout()) add("constrain_layout", "true");
      if (i.use_global_device_ids()) add("use_global_device_ids", "true");
      if (op == Opcode::kReduceScatter) add("dimensions", ints(i.dimensions()));
      return comp("to_apply", 0);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      channel();
      replica_groups();
      if (i.constrain_layout()) add("constrain_layout", "true");
      add("dimensions", ints(i.dimensions()));
      if (i.use_global_device_ids()) add("use_global_device_ids", "true");
      return true;
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectiveBroadcast:
      channel();
      replica_groups();
      if (i.constrain_layout()) add("constrain_layout", "true");
      if (op == Opcode::kAllToAll && i.dimensions_size() > 0) {
        add("dimensions", ints(i.dimensions()));
      }
      return true;
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: {
      channel();
      std::string pairs = "{";
      for (int k = 0; k < i.source_target_pairs_size(); ++k) {
        if (k > 0) pairs += ",";
        str_append(&pairs, "{", i.source_target_pairs(k).source(), ",",
                   i.source_target_pairs(k).target(), "}");
      }
      add("source_target_pairs", pairs + "}");
      return true;
    }
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kSendDone:
    case Opcode::kRecvDone:
      channel();
      if (i.is_host_transfer()) add("is_host_transfer", "true");
      return true;
    case Opcode::kInfeed:
      if (!i.infeed_config().empty()) add("infeed_config", quote_text(i.infeed_config()));
      return true;
    case Opcode::kOutfeed: {
      int outfeed_shapes = 0;
      std::string storage;
      merged_payload(set_aside(i), 29, &storage, &outfeed_shapes);
      if (outfeed_shapes > 0) {
        std::string s;
        if (!append_field_shape(&s, i, 29)) return fail_at(*c.proto, i, error_);
        add("outfeed_shape", s);
      }
      if (!i.outfeed_config().empty()) add("outfeed_config", quote_text(i.outfeed_config()));
      return true;
    }
    case Opcode::kCopyStart:
      if (i.has_cross_program_prefetch_index()) {
        add("cross_program_prefetch_index", str_cat(i.cross_program_prefetch_index()));
      }
      return true;
    case Opcode::kParameter:
      if (i.has_parameter_replication() &&
          i.parameter_replication().replicated_at_leaf_buffers_size() > 0) {
        std::string s = "{";
        const auto& leaves = i.parameter_replication().replicated_at_leaf_buffers();
        for (int k = 0; k < leaves.size(); ++k) {
          if (k > 0) s += ",";
          s += leaves[k] ? "true" : "false";
        }
        add("parameter_replication", s + "}");
      }
      return true;
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      if (i.called_computation_ids_size() > 0 && !comp("calls", 0)) return false;
      if (!i.async_execution_thread().empty() && i.async_execution_thread() != "main") {
        add("async_execution_thread", quote_text(i.async_execution_thread()));
      }
      return true;
    default:
      return std::nullopt;
  }
}

bool TextBuilder::opcode_attributes(const Comp& c, const pb::HloInstructionProto& i,
                                    Opcode op) {
  for (auto group : {&TextBuilder::array_attributes, &TextBuilder::computation_attributes,
                     &TextBuilder::control_attributes, &TextBuilder::transfer_attributes}) {
    if (std::optional<bool> written = (this->*group)(c, i, op)) return *written;
  }
  if (i.called_computation_ids_size() == 1) return called_attribute(c, i, "to_apply", 0);
  return true;
}

}  // namespace hloroof::proto_internal
