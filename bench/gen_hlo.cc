// gen_hlo: writes a large, syntactically valid HLO module for the parser benchmarks.
//
//   gen_hlo OUT.hlo [--mb N]     (N MiB at least, default 100; fractions allowed)
//
// The module is the forward pass of a transformer on a TPU v5e 2x2 slice, unrolled into as many
// layers as it takes to reach the size: FSDP over 2 chips times tensor parallelism over 2, so
// each layer all-gathers its four weight shards and all-reduces two partial sums. Every layer
// brings 17 fused computations (tiled layouts, convolution and batched dot, reductions), six
// parameters, async collectives, metadata and backend_config JSON, i.e. the text a parser meets
// in real dumps. Names depend only on the layer index, so the output is deterministic and a
// layer can be written without knowing the others; a first pass counts bytes to pick the
// number of layers, a second pass writes the file.
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/substitute.h"

namespace {

// Per device: 4 sequences of 2048 tokens, d_model 1024, 4 of 8 heads (tensor parallel),
// 2048 of the 4096 MLP columns.
constexpr int kComputationsPerLayer = 17;
constexpr int kParamsPerLayer = 6;
constexpr absl::string_view kX = "bf16[8192,1024]{1,0:T(8,128)(2,1)}";
constexpr absl::string_view kFusionConfig =
    R"({"flag_configs":[],"scoped_memory_configs":[],"used_scoped_memory_configs":[],"aliasing_operands":{"lists":[]}})";
constexpr absl::string_view kCollectiveConfig =
    R"({"flag_configs":[],"barrier_config":{"barrier_type":"CUSTOM","id":"0"},"scoped_memory_configs":[],"used_scoped_memory_configs":[]})";
// FSDP peers share a tensor-parallel rank: {0,2},{1,3}. Tensor-parallel peers: {0,1},{2,3}.
constexpr absl::string_view kFsdpGroups = "[2,2]<=[2,2]T(1,0)";
constexpr absl::string_view kTensorGroups = "[2,2]<=[4]";

// The six per-layer parameters, in parameter order.
struct ParamSpec {
  absl::string_view name;
  absl::string_view shape;  // with layout
  absl::string_view sharding;
};
constexpr ParamSpec kLayerParams[kParamsPerLayer] = {
    {"attention_norm", "f32[1024]{0:T(1024)}", "{replicated}"},
    {"attention.qkv", "f32[512,1536]{1,0:T(8,128)}", "{devices=[2,2]<=[4]}"},
    {"attention.out", "f32[512,512]{1,0:T(8,128)}", "{devices=[2,2]<=[2,2]T(1,0)}"},
    {"mlp_norm", "f32[1024]{0:T(1024)}", "{replicated}"},
    {"mlp.up", "f32[512,2048]{1,0:T(8,128)}", "{devices=[2,2]<=[4]}"},
    {"mlp.down", "f32[2048,512]{1,0:T(8,128)}", "{devices=[2,2]<=[2,2]T(1,0)}"},
};

absl::string_view without_layout(absl::string_view shape) {
  return shape.substr(0, shape.find('{'));
}

// Where text goes: a file, or nowhere (the byte count is all that is wanted).
class Sink {
 public:
  explicit Sink(std::FILE* file = nullptr) : file_(file) {}
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  void write(absl::string_view text) {
    bytes_ += static_cast<int64_t>(text.size());
    if (file_ == nullptr) return;
    buffer_.append(text.data(), text.size());
    if (buffer_.size() >= (1 << 20)) flush();
  }
  // False when the file could not take the bytes.
  bool flush() {
    if (file_ != nullptr && !buffer_.empty()) {
      ok_ = ok_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
      buffer_.clear();
    }
    return ok_;
  }
  int64_t bytes() const { return bytes_; }

 private:
  std::FILE* file_;
  std::string buffer_;
  int64_t bytes_ = 0;
  bool ok_ = true;
};

int param_number(int layer, int j) { return 1 + kParamsPerLayer * layer + j; }

// `Arg_5.6`: JAX's spelling of parameter 5.
std::string param_name(int number) { return absl::StrCat("Arg_", number, ".", number + 1); }

// ", " before every list element but the first, and `/*index=N*/` before every fifth, as the
// printer does.
std::string list_separator(int index) {
  if (index == 0) return "";
  if (index % 5 == 0) return absl::StrCat(", /*index=", index, "*/");
  return ", ";
}

void write_header(Sink& out, int layers) {
  out.write("// Synthetic module written by gen_hlo for the hloroof parser benchmarks.\n\n");
  out.write("HloModule jit_forward, is_scheduled=true, entry_computation_layout={(");
  out.write(kX);
  for (int layer = 0; layer < layers; ++layer) {
    for (int j = 0; j < kParamsPerLayer; ++j) {
      out.write(list_separator(param_number(layer, j)));
      out.write(kLayerParams[j].shape);
    }
  }
  out.write(absl::StrCat(
      ")->", kX, "}, allow_spmd_sharding_propagation_to_output={true}, num_partitions=4\n\n"));
}

void write_reducers(Sink& out) {
  out.write(R"(%region_add.1 (lhs.1: f32[], rhs.1: f32[]) -> f32[] {
  %lhs.1 = f32[]{:T(128)} parameter(0)
  %rhs.1 = f32[]{:T(128)} parameter(1)
  ROOT %add.1 = f32[]{:T(128)} add(%lhs.1, %rhs.1)
}

%region_max.2 (lhs.2: f32[], rhs.2: f32[]) -> f32[] {
  %lhs.2 = f32[]{:T(128)} parameter(0)
  %rhs.2 = f32[]{:T(128)} parameter(1)
  ROOT %maximum.2 = f32[]{:T(128)} maximum(%lhs.2, %rhs.2)
}

%region_add_bf16.3 (lhs.3: bf16[], rhs.3: bf16[]) -> bf16[] {
  %lhs.3 = bf16[]{:T(256)} parameter(0)
  %rhs.3 = bf16[]{:T(256)} parameter(1)
  ROOT %add.3 = bf16[]{:T(256)} add(%lhs.3, %rhs.3)
}

)");
}

// Templates of the fused computations. $0 is the computation's number (it also makes the
// instruction names unique), $1 the op_name scope of the layer.
constexpr absl::string_view kConvertComputation = R"(%fused_computation.$0 (param_0.$0: $2) -> $3 {
  %param_0.$0 = $4 parameter(0)
  ROOT %convert.$0 = $5 convert(%param_0.$0), metadata={op_name="$1/convert_element_type" source_file="/workspace/model.py" source_line=$6}
}

)";

// RMSNorm's reciprocal root mean square: $2 is the norm's name.
constexpr absl::string_view kRmsComputation =
    R"(%fused_computation.$0 (param_0.$0: bf16[8192,1024]) -> f32[8192] {
  %param_0.$0 = bf16[8192,1024]{1,0:T(8,128)(2,1)} parameter(0)
  %convert.$0 = f32[8192,1024]{1,0:T(8,128)} convert(%param_0.$0), metadata={op_name="$1/$2/convert_element_type" source_file="/workspace/model.py" source_line=20}
  %multiply.$0 = f32[8192,1024]{1,0:T(8,128)} multiply(%convert.$0, %convert.$0), metadata={op_name="$1/$2/square" source_file="/workspace/model.py" source_line=21}
  %constant.$0 = f32[]{:T(128)} constant(0)
  %reduce.$0 = f32[8192]{0:T(1024)} reduce(%multiply.$0, %constant.$0), dimensions={1}, to_apply=%region_add.1, metadata={op_name="$1/$2/reduce_sum" source_file="/workspace/model.py" source_line=21}
  %constant.$0.1 = f32[]{:T(128)} constant(0.0009765625)
  %broadcast.$0 = f32[8192]{0:T(1024)} broadcast(%constant.$0.1), dimensions={}
  %multiply.$0.1 = f32[8192]{0:T(1024)} multiply(%reduce.$0, %broadcast.$0), metadata={op_name="$1/$2/div" source_file="/workspace/model.py" source_line=21}
  %constant.$0.2 = f32[]{:T(128)} constant(1e-06)
  %broadcast.$0.1 = f32[8192]{0:T(1024)} broadcast(%constant.$0.2), dimensions={}
  %add.$0 = f32[8192]{0:T(1024)} add(%multiply.$0.1, %broadcast.$0.1), metadata={op_name="$1/$2/add" source_file="/workspace/model.py" source_line=22}
  ROOT %rsqrt.$0 = f32[8192]{0:T(1024)S(1)} rsqrt(%add.$0), metadata={op_name="$1/$2/rsqrt" source_file="/workspace/model.py" source_line=22}
}

)";

// Normalizes x (RMSNorm with scale) and multiplies by a weight: $2 is the norm's name, $3 the
// output columns. The computation ends with kMatmulRoot, or with kGeluEpilogue for the MLP;
// in those two, $2 is the output columns, $3 the matmul's op_name and $4 its source line.
constexpr absl::string_view kNormMatmulPrologue =
    R"(%fused_computation.$0 (param_0.$0: bf16[8192,1024], param_1.$0: f32[8192], param_2.$0: f32[1024], param_3.$0: bf16[1024,$3]) -> bf16[8192,$3] {
  %param_0.$0 = bf16[8192,1024]{1,0:T(8,128)(2,1)} parameter(0)
  %convert.$0 = f32[8192,1024]{1,0:T(8,128)} convert(%param_0.$0)
  %param_1.$0 = f32[8192]{0:T(1024)S(1)} parameter(1)
  %broadcast.$0 = f32[8192,1024]{1,0:T(8,128)} broadcast(%param_1.$0), dimensions={0}
  %multiply.$0 = f32[8192,1024]{1,0:T(8,128)} multiply(%convert.$0, %broadcast.$0), metadata={op_name="$1/$2/mul" source_file="/workspace/model.py" source_line=22}
  %param_2.$0 = f32[1024]{0:T(1024)} parameter(2)
  %broadcast.$0.1 = f32[8192,1024]{1,0:T(8,128)} broadcast(%param_2.$0), dimensions={1}
  %multiply.$0.1 = f32[8192,1024]{1,0:T(8,128)} multiply(%multiply.$0, %broadcast.$0.1), metadata={op_name="$1/$2/mul" source_file="/workspace/model.py" source_line=22}
  %convert.$0.1 = bf16[8192,1024]{1,0:T(8,128)(2,1)} convert(%multiply.$0.1), metadata={op_name="$1/$2/convert_element_type" source_file="/workspace/model.py" source_line=22}
  %param_3.$0 = bf16[1024,$3]{1,0:T(8,128)(2,1)} parameter(3)
)";
constexpr absl::string_view kMatmulRoot =
    R"(  ROOT %convolution.$0 = bf16[8192,$2]{1,0:T(8,128)(2,1)} convolution(%convert.$0.1, %param_3.$0), dim_labels=bf_io->bf, metadata={op_name="$1/$3" source_file="/workspace/model.py" source_line=$4}
}

)";
constexpr absl::string_view kGeluEpilogue =
    R"(  %convolution.$0 = bf16[8192,$2]{1,0:T(8,128)(2,1)} convolution(%convert.$0.1, %param_3.$0), dim_labels=bf_io->bf, metadata={op_name="$1/$3" source_file="/workspace/model.py" source_line=$4}
  %convert.$0.2 = f32[8192,$2]{1,0:T(8,128)} convert(%convolution.$0)
  %multiply.$0.2 = f32[8192,$2]{1,0:T(8,128)} multiply(%convert.$0.2, %convert.$0.2), metadata={op_name="$1/mlp/gelu/integer_pow" source_file="/workspace/model.py" source_line=48}
  %multiply.$0.3 = f32[8192,$2]{1,0:T(8,128)} multiply(%multiply.$0.2, %convert.$0.2), metadata={op_name="$1/mlp/gelu/integer_pow" source_file="/workspace/model.py" source_line=48}
  %constant.$0 = f32[]{:T(128)} constant(0.044715)
  %broadcast.$0.2 = f32[8192,$2]{1,0:T(8,128)} broadcast(%constant.$0), dimensions={}
  %multiply.$0.4 = f32[8192,$2]{1,0:T(8,128)} multiply(%multiply.$0.3, %broadcast.$0.2), metadata={op_name="$1/mlp/gelu/mul" source_file="/workspace/model.py" source_line=48}
  %add.$0 = f32[8192,$2]{1,0:T(8,128)} add(%convert.$0.2, %multiply.$0.4), metadata={op_name="$1/mlp/gelu/add" source_file="/workspace/model.py" source_line=48}
  %constant.$0.1 = f32[]{:T(128)} constant(0.797884583)
  %broadcast.$0.3 = f32[8192,$2]{1,0:T(8,128)} broadcast(%constant.$0.1), dimensions={}
  %multiply.$0.5 = f32[8192,$2]{1,0:T(8,128)} multiply(%add.$0, %broadcast.$0.3), metadata={op_name="$1/mlp/gelu/mul" source_file="/workspace/model.py" source_line=48}
  %tanh.$0 = f32[8192,$2]{1,0:T(8,128)} tanh(%multiply.$0.5), metadata={op_name="$1/mlp/gelu/tanh" source_file="/workspace/model.py" source_line=48}
  %constant.$0.2 = f32[]{:T(128)} constant(1)
  %broadcast.$0.4 = f32[8192,$2]{1,0:T(8,128)} broadcast(%constant.$0.2), dimensions={}
  %add.$0.1 = f32[8192,$2]{1,0:T(8,128)} add(%tanh.$0, %broadcast.$0.4), metadata={op_name="$1/mlp/gelu/add" source_file="/workspace/model.py" source_line=48}
  %constant.$0.3 = f32[]{:T(128)} constant(0.5)
  %broadcast.$0.5 = f32[8192,$2]{1,0:T(8,128)} broadcast(%constant.$0.3), dimensions={}
  %multiply.$0.6 = f32[8192,$2]{1,0:T(8,128)} multiply(%convert.$0.2, %broadcast.$0.5), metadata={op_name="$1/mlp/gelu/mul" source_file="/workspace/model.py" source_line=48}
  %multiply.$0.7 = f32[8192,$2]{1,0:T(8,128)} multiply(%multiply.$0.6, %add.$0.1), metadata={op_name="$1/mlp/gelu/mul" source_file="/workspace/model.py" source_line=48}
  ROOT %convert.$0.3 = bf16[8192,$2]{1,0:T(8,128)(2,1)} convert(%multiply.$0.7), metadata={op_name="$1/mlp/gelu/convert_element_type" source_file="/workspace/model.py" source_line=48}
}

)";

// Splits q, k, v (4 local heads each) and moves heads before tokens; q is pre-scaled by
// 1/sqrt(128).
constexpr absl::string_view kSplitHeadsComputation =
    R"(%fused_computation.$0 (param_0.$0: bf16[8192,1536]) -> (bf16[4,4,2048,128], bf16[4,4,2048,128], bf16[4,4,2048,128]) {
  %param_0.$0 = bf16[8192,1536]{1,0:T(8,128)(2,1)} parameter(0)
  %slice.$0 = bf16[8192,512]{1,0:T(8,128)(2,1)} slice(%param_0.$0), slice={[0:8192], [0:512]}, metadata={op_name="$1/attention/split" source_file="/workspace/model.py" source_line=35}
  %reshape.$0 = bf16[4,2048,4,128]{3,2,1,0:T(4,128)(2,1)} reshape(%slice.$0), metadata={op_name="$1/attention/reshape" source_file="/workspace/model.py" source_line=35}
  %transpose.$0 = bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)} transpose(%reshape.$0), dimensions={0,2,1,3}, metadata={op_name="$1/attention/transpose" source_file="/workspace/model.py" source_line=35}
  %convert.$0 = f32[4,4,2048,128]{3,2,1,0:T(8,128)} convert(%transpose.$0)
  %constant.$0 = f32[]{:T(128)} constant(0.0883883461)
  %broadcast.$0 = f32[4,4,2048,128]{3,2,1,0:T(8,128)} broadcast(%constant.$0), dimensions={}
  %multiply.$0 = f32[4,4,2048,128]{3,2,1,0:T(8,128)} multiply(%convert.$0, %broadcast.$0), metadata={op_name="$1/attention/mul" source_file="/workspace/model.py" source_line=36}
  %convert.$0.1 = bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)} convert(%multiply.$0), metadata={op_name="$1/attention/convert_element_type" source_file="/workspace/model.py" source_line=36}
  %slice.$0.1 = bf16[8192,512]{1,0:T(8,128)(2,1)} slice(%param_0.$0), slice={[0:8192], [512:1024]}, metadata={op_name="$1/attention/split" source_file="/workspace/model.py" source_line=35}
  %reshape.$0.1 = bf16[4,2048,4,128]{3,2,1,0:T(4,128)(2,1)} reshape(%slice.$0.1), metadata={op_name="$1/attention/reshape" source_file="/workspace/model.py" source_line=35}
  %transpose.$0.1 = bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)} transpose(%reshape.$0.1), dimensions={0,2,1,3}, metadata={op_name="$1/attention/transpose" source_file="/workspace/model.py" source_line=35}
  %slice.$0.2 = bf16[8192,512]{1,0:T(8,128)(2,1)} slice(%param_0.$0), slice={[0:8192], [1024:1536]}, metadata={op_name="$1/attention/split" source_file="/workspace/model.py" source_line=35}
  %reshape.$0.2 = bf16[4,2048,4,128]{3,2,1,0:T(4,128)(2,1)} reshape(%slice.$0.2), metadata={op_name="$1/attention/reshape" source_file="/workspace/model.py" source_line=35}
  %transpose.$0.2 = bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)} transpose(%reshape.$0.2), dimensions={0,2,1,3}, metadata={op_name="$1/attention/transpose" source_file="/workspace/model.py" source_line=35}
  ROOT %tuple.$0 = (bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)}, bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)}, bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)}) tuple(%convert.$0.1, %transpose.$0.1, %transpose.$0.2)
}

)";

// Causal attention scores, then the softmax's row max, then exp and row sum, then the
// normalized weighted sum of values.
constexpr absl::string_view kAttentionComputations =
    R"(%fused_computation.$0 (param_0.$0: bf16[4,4,2048,128], param_1.$0: bf16[4,4,2048,128]) -> f32[4,4,2048,2048] {
  %param_0.$0 = bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  %param_1.$0 = bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)} parameter(1)
  %dot.$0 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} dot(%param_0.$0, %param_1.$0), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}, metadata={op_name="$1/attention/dot_general" source_file="/workspace/model.py" source_line=37}
  %iota.$0 = s32[4,4,2048,2048]{3,2,1,0:T(8,128)} iota(), iota_dimension=2, metadata={op_name="$1/attention/iota" source_file="/workspace/model.py" source_line=38}
  %iota.$0.1 = s32[4,4,2048,2048]{3,2,1,0:T(8,128)} iota(), iota_dimension=3, metadata={op_name="$1/attention/iota" source_file="/workspace/model.py" source_line=38}
  %compare.$0 = pred[4,4,2048,2048]{3,2,1,0:T(8,128)(4,1)} compare(%iota.$0, %iota.$0.1), direction=GE, metadata={op_name="$1/attention/ge" source_file="/workspace/model.py" source_line=38}
  %constant.$0 = f32[]{:T(128)} constant(-inf)
  %broadcast.$0 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} broadcast(%constant.$0), dimensions={}
  ROOT %select.$0 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} select(%compare.$0, %dot.$0, %broadcast.$0), metadata={op_name="$1/attention/select_n" source_file="/workspace/model.py" source_line=38}
}

%fused_computation.$2 (param_0.$2: f32[4,4,2048,2048]) -> f32[4,4,2048] {
  %param_0.$2 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} parameter(0)
  %constant.$2 = f32[]{:T(128)} constant(-inf)
  ROOT %reduce.$2 = f32[4,4,2048]{2,1,0:T(4,128)} reduce(%param_0.$2, %constant.$2), dimensions={3}, to_apply=%region_max.2, metadata={op_name="$1/attention/reduce_max" source_file="/workspace/model.py" source_line=39}
}

%fused_computation.$3 (param_0.$3: f32[4,4,2048,2048], param_1.$3: f32[4,4,2048]) -> (bf16[4,4,2048,2048], f32[4,4,2048]) {
  %param_0.$3 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} parameter(0)
  %param_1.$3 = f32[4,4,2048]{2,1,0:T(4,128)} parameter(1)
  %broadcast.$3 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} broadcast(%param_1.$3), dimensions={0,1,2}
  %subtract.$3 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} subtract(%param_0.$3, %broadcast.$3), metadata={op_name="$1/attention/sub" source_file="/workspace/model.py" source_line=39}
  %exponential.$3 = f32[4,4,2048,2048]{3,2,1,0:T(8,128)} exponential(%subtract.$3), metadata={op_name="$1/attention/exp" source_file="/workspace/model.py" source_line=39}
  %convert.$3 = bf16[4,4,2048,2048]{3,2,1,0:T(8,128)(2,1)} convert(%exponential.$3), metadata={op_name="$1/attention/convert_element_type" source_file="/workspace/model.py" source_line=39}
  %constant.$3 = f32[]{:T(128)} constant(0)
  %reduce.$3 = f32[4,4,2048]{2,1,0:T(4,128)} reduce(%exponential.$3, %constant.$3), dimensions={3}, to_apply=%region_add.1, metadata={op_name="$1/attention/reduce_sum" source_file="/workspace/model.py" source_line=39}
  ROOT %tuple.$3 = (bf16[4,4,2048,2048]{3,2,1,0:T(8,128)(2,1)}, f32[4,4,2048]{2,1,0:T(4,128)}) tuple(%convert.$3, %reduce.$3)
}

%fused_computation.$4 (param_0.$4: bf16[4,4,2048,2048], param_1.$4: bf16[4,4,2048,128], param_2.$4: f32[4,4,2048]) -> bf16[4,4,2048,128] {
  %param_0.$4 = bf16[4,4,2048,2048]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  %param_1.$4 = bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)} parameter(1)
  %dot.$4 = f32[4,4,2048,128]{3,1,2,0:T(4,128)} dot(%param_0.$4, %param_1.$4), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}, metadata={op_name="$1/attention/dot_general" source_file="/workspace/model.py" source_line=40}
  %param_2.$4 = f32[4,4,2048]{2,1,0:T(4,128)} parameter(2)
  %broadcast.$4 = f32[4,4,2048,128]{3,1,2,0:T(4,128)} broadcast(%param_2.$4), dimensions={0,1,2}
  %divide.$4 = f32[4,4,2048,128]{3,1,2,0:T(4,128)} divide(%dot.$4, %broadcast.$4), metadata={op_name="$1/attention/div" source_file="/workspace/model.py" source_line=40}
  ROOT %convert.$4 = bf16[4,4,2048,128]{3,1,2,0:T(4,128)(2,1)} convert(%divide.$4), metadata={op_name="$1/attention/convert_element_type" source_file="/workspace/model.py" source_line=40}
}

)";

// The output projection contracts heads and head_dim at once: heads are a spatial dimension
// whose window covers all 4 of them.
constexpr absl::string_view kOutProjectionComputation =
    R"(%fused_computation.$0 (param_0.$0: bf16[8192,4,128], param_1.$0: bf16[512,1024]) -> bf16[8192,1024] {
  %param_0.$0 = bf16[8192,4,128]{2,1,0:T(4,128)(2,1)} parameter(0)
  %param_1.$0 = bf16[512,1024]{1,0:T(8,128)(2,1)} parameter(1)
  %bitcast.$0 = bf16[4,128,1024]{2,1,0:T(8,128)(2,1)} bitcast(%param_1.$0)
  %convolution.$0 = bf16[8192,1024,1]{1,0,2:T(8,128)(2,1)} convolution(%param_0.$0, %bitcast.$0), window={size=4}, dim_labels=b0f_0io->bf0, metadata={op_name="$1/attention/out/dot_general" source_file="/workspace/model.py" source_line=41}
  ROOT %bitcast.$0.1 = bf16[8192,1024]{1,0:T(8,128)(2,1)} bitcast(%convolution.$0)
}

)";

constexpr absl::string_view kResidualComputation =
    R"(%fused_computation.$0 (param_0.$0: bf16[8192,1024], param_1.$0: bf16[8192,1024]) -> bf16[8192,1024] {
  %param_0.$0 = bf16[8192,1024]{1,0:T(8,128)(2,1)} parameter(0)
  %param_1.$0 = bf16[8192,1024]{1,0:T(8,128)(2,1)} parameter(1)
  ROOT %add.$0 = bf16[8192,1024]{1,0:T(8,128)(2,1)} add(%param_0.$0, %param_1.$0), metadata={op_name="$1/add" source_file="/workspace/model.py" source_line=$2}
}

)";

constexpr absl::string_view kMlpDownComputation =
    R"(%fused_computation.$0 (param_0.$0: bf16[8192,2048], param_1.$0: bf16[2048,1024]) -> bf16[8192,1024] {
  %param_0.$0 = bf16[8192,2048]{1,0:T(8,128)(2,1)} parameter(0)
  %param_1.$0 = bf16[2048,1024]{1,0:T(8,128)(2,1)} parameter(1)
  ROOT %convolution.$0 = bf16[8192,1024]{1,0:T(8,128)(2,1)} convolution(%param_0.$0, %param_1.$0), dim_labels=bf_io->bf, metadata={op_name="$1/mlp/down/dot_general" source_file="/workspace/model.py" source_line=49}
}

)";

// Numbers of the layer's fused computations, in the order they are written.
struct LayerIds {
  explicit LayerIds(int layer) : base(kComputationsPerLayer * layer + 10) {}
  int base;
  int convert(int weight) const { return base + weight; }  // 0 qkv, 1 out, 2 up, 3 down
  int rms(int norm) const { return base + 4 + 9 * norm; }  // 0 attention, 1 mlp
  int qkv() const { return base + 5; }
  int split() const { return base + 6; }
  int scores() const { return base + 7; }  // then row max, exp-sum, weighted sum
  int out_projection() const { return base + 11; }
  int residual(int which) const { return base + 12 + 4 * which; }
  int mlp_up() const { return base + 14; }
  int mlp_down() const { return base + 15; }
};

std::string layer_scope(int layer) {
  return absl::StrCat("jit(forward)/jit(main)/transformer/layers_", layer);
}

void write_layer_computations(Sink& out, int layer) {
  const LayerIds id(layer);
  const std::string scope = layer_scope(layer);
  // The four matmul weights: shard shape in f32 and bf16, and the source line that uses it.
  constexpr absl::string_view kWeights[4][2] = {{"f32[512,1536]", "bf16[512,1536]"},
                                                {"f32[512,512]", "bf16[512,512]"},
                                                {"f32[512,2048]", "bf16[512,2048]"},
                                                {"f32[2048,512]", "bf16[2048,512]"}};
  constexpr int kWeightLines[4] = {34, 41, 47, 49};
  for (int w = 0; w < 4; ++w) {
    out.write(absl::Substitute(kConvertComputation, id.convert(w), scope, kWeights[w][0],
                               kWeights[w][1], absl::StrCat(kWeights[w][0], "{1,0:T(8,128)}"),
                               absl::StrCat(kWeights[w][1], "{1,0:T(8,128)(2,1)}"),
                               kWeightLines[w]));
  }
  out.write(absl::Substitute(kRmsComputation, id.rms(0), scope, "attention_norm"));
  out.write(absl::Substitute(kNormMatmulPrologue, id.qkv(), scope, "attention_norm", 1536));
  out.write(absl::Substitute(kMatmulRoot, id.qkv(), scope, 1536, "attention/qkv/dot_general", 34));
  out.write(absl::Substitute(kSplitHeadsComputation, id.split(), scope));
  out.write(absl::Substitute(kAttentionComputations, id.scores(), scope, id.scores() + 1,
                             id.scores() + 2, id.scores() + 3));
  out.write(absl::Substitute(kOutProjectionComputation, id.out_projection(), scope));
  out.write(absl::Substitute(kResidualComputation, id.residual(0), scope, 55));
  out.write(absl::Substitute(kRmsComputation, id.rms(1), scope, "mlp_norm"));
  out.write(absl::Substitute(kNormMatmulPrologue, id.mlp_up(), scope, "mlp_norm", 2048));
  out.write(absl::Substitute(kGeluEpilogue, id.mlp_up(), scope, 2048, "mlp/up/dot_general", 47));
  out.write(absl::Substitute(kMlpDownComputation, id.mlp_down(), scope));
  out.write(absl::Substitute(kResidualComputation, id.residual(1), scope, 56));
}

void write_entry_signature(Sink& out, int layers) {
  out.write("ENTRY %main.1 (Arg_0.1: bf16[8192,1024]");
  for (int layer = 0; layer < layers; ++layer) {
    for (int j = 0; j < kParamsPerLayer; ++j) {
      const int number = param_number(layer, j);
      out.write(absl::StrCat(list_separator(number), param_name(number), ": ",
                             without_layout(kLayerParams[j].shape)));
    }
  }
  out.write(absl::StrCat(") -> ", without_layout(kX), " {\n"));
  out.write(absl::StrCat(
      "  %Arg_0.1 = ", kX,
      R"( parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}, metadata={op_name="x"})",
      "\n"));
}

// The layer's instructions in the entry computation, in schedule order. `x` is the layer's
// input; the output is `%add_fusion.{2*layer+1}`.
void write_layer_instructions(Sink& out, int layer, bool is_last) {
  const LayerIds id(layer);
  const std::string scope = layer_scope(layer);
  const std::string x = layer == 0 ? "%Arg_0.1" : absl::StrCat("%add_fusion.", 2 * layer - 1);
  auto metadata = [&](absl::string_view op, int source_line) {
    return absl::StrCat("metadata={op_name=\"", scope, "/", op,
                        "\" source_file=\"/workspace/model.py\" source_line=", source_line, "}");
  };
  auto line = [&](absl::string_view text) { out.write(absl::StrCat("  ", text, "\n")); };
  auto param = [&](int j) { return absl::StrCat("%", param_name(param_number(layer, j))); };

  for (int j = 0; j < kParamsPerLayer; ++j) {
    const int number = param_number(layer, j);
    line(absl::StrCat(param(j), " = ", kLayerParams[j].shape, " parameter(", number, "), sharding=",
                      kLayerParams[j].sharding, R"(, metadata={op_name="params[\'layers_)", layer,
                      R"(\'][\')", kLayerParams[j].name, R"(\']"})"));
  }
  // Each weight shard is converted to bf16, then all-gathered over the FSDP axis.
  struct Gather {
    int param;
    absl::string_view shard, full;
    int dimension;
    absl::string_view op;
    int line;
  };
  constexpr Gather kGathers[4] = {
      {1, "bf16[512,1536]", "bf16[1024,1536]", 0, "attention/qkv", 34},
      {2, "bf16[512,512]", "bf16[512,1024]", 1, "attention/out", 41},
      {4, "bf16[512,2048]", "bf16[1024,2048]", 0, "mlp/up", 47},
      {5, "bf16[2048,512]", "bf16[2048,1024]", 1, "mlp/down", 49},
  };
  constexpr absl::string_view kTile = "{1,0:T(8,128)(2,1)}";
  auto start_gather = [&](int w) {
    const Gather& g = kGathers[w];
    const int number = 4 * layer + w;
    line(absl::StrCat("%convert_fusion.", number, " = ", g.shard, kTile, " fusion(", param(g.param),
                      "), kind=kLoop, calls=%fused_computation.", id.convert(w), ", ",
                      metadata(absl::StrCat(g.op, "/convert_element_type"), g.line),
                      ", backend_config=", kFusionConfig));
    line(absl::StrCat("%all-gather-start.", number, " = (", g.shard, kTile, ", ", g.full, kTile,
                      ") all-gather-start(%convert_fusion.", number,
                      "), channel_id=", 6 * layer + w + 1, ", replica_groups=", kFsdpGroups,
                      ", dimensions={", g.dimension, "}, use_global_device_ids=true, ",
                      metadata(absl::StrCat(g.op, "/all-gather"), g.line),
                      ", backend_config=", kCollectiveConfig));
  };
  auto gathered = [&](int w) {
    const Gather& g = kGathers[w];
    const int number = 4 * layer + w;
    line(absl::StrCat("%all-gather-done.", number, " = ", g.full, kTile,
                      " all-gather-done(%all-gather-start.", number, "), ",
                      metadata(absl::StrCat(g.op, "/all-gather"), g.line)));
    return absl::StrCat("%all-gather-done.", number);
  };
  // Partial sums over the tensor-parallel axis.
  auto all_reduce = [&](int which, absl::string_view operand, absl::string_view op, int src) {
    const int number = 2 * layer + which;
    line(absl::StrCat("%all-reduce-start.", number, " = ", kX, " all-reduce-start(", operand,
                      "), channel_id=", 6 * layer + 5 + which, ", replica_groups=", kTensorGroups,
                      ", use_global_device_ids=true, to_apply=%region_add_bf16.3, ",
                      metadata(op, src), ", backend_config=", kCollectiveConfig));
    line(absl::StrCat("%all-reduce-done.", number, " = ", kX, " all-reduce-done(%all-reduce-start.",
                      number, "), ", metadata(op, src)));
    return absl::StrCat("%all-reduce-done.", number);
  };
  auto fusion = [&](absl::string_view name, absl::string_view shape, absl::string_view operands,
                    absl::string_view kind, int computation, absl::string_view op, int src) {
    line(absl::StrCat(name, " = ", shape, " fusion(", operands, "), kind=", kind,
                      ", calls=%fused_computation.", computation, ", ", metadata(op, src),
                      ", backend_config=", kFusionConfig));
  };
  const std::string n = absl::StrCat(layer);
  const std::string rms1 = absl::StrCat("%add_rsqrt_fusion.", 2 * layer);
  const std::string rms2 = absl::StrCat("%add_rsqrt_fusion.", 2 * layer + 1);
  const std::string qkv = absl::StrCat("%convolution_fusion.", 2 * layer);
  const std::string heads = absl::StrCat("%transpose_fusion.", n);
  const std::string scores = absl::StrCat("%dot_select_fusion.", n);
  const std::string row_max = absl::StrCat("%reduce_fusion.", n);
  const std::string exp_sum = absl::StrCat("%exponential_reduce_fusion.", n);
  const std::string attention = absl::StrCat("%dot_divide_fusion.", n);
  const std::string x1 = absl::StrCat("%add_fusion.", 2 * layer);
  const std::string mlp_up = absl::StrCat("%convolution_tanh_fusion.", n);
  const std::string mlp_down = absl::StrCat("%convolution_fusion.", 2 * layer + 1);
  constexpr absl::string_view kHeads = "bf16[4,4,2048,128]{3,2,1,0:T(8,128)(2,1)}";
  constexpr absl::string_view kRow = "f32[4,4,2048]{2,1,0:T(4,128)}";
  auto gte = [&](int slot, absl::string_view shape, absl::string_view tuple, int index) {
    const std::string name = absl::StrCat("%get-tuple-element.", 5 * layer + slot);
    line(absl::StrCat(name, " = ", shape, " get-tuple-element(", tuple, "), index=", index));
    return name;
  };

  start_gather(0);
  start_gather(1);
  fusion(rms1, "f32[8192]{0:T(1024)S(1)}", x, "kInput", id.rms(0), "attention_norm/rsqrt", 22);
  std::string w = gathered(0);
  fusion(qkv, "bf16[8192,1536]{1,0:T(8,128)(2,1)}",
         absl::StrCat(x, ", ", rms1, ", ", param(0), ", ", w), "kOutput", id.qkv(),
         "attention/qkv/dot_general", 34);
  start_gather(2);
  start_gather(3);
  fusion(heads, absl::StrCat("(", kHeads, ", ", kHeads, ", ", kHeads, ")"), qkv, "kLoop",
         id.split(), "attention/transpose", 35);
  const std::string q = gte(0, kHeads, heads, 0);
  const std::string k = gte(1, kHeads, heads, 1);
  fusion(scores, "f32[4,4,2048,2048]{3,2,1,0:T(8,128)}", absl::StrCat(q, ", ", k), "kOutput",
         id.scores(), "attention/dot_general", 37);
  fusion(row_max, kRow, scores, "kInput", id.scores() + 1, "attention/reduce_max", 39);
  fusion(exp_sum, absl::StrCat("(bf16[4,4,2048,2048]{3,2,1,0:T(8,128)(2,1)}, ", kRow, ")"),
         absl::StrCat(scores, ", ", row_max), "kInput", id.scores() + 2, "attention/exp", 39);
  const std::string e = gte(2, "bf16[4,4,2048,2048]{3,2,1,0:T(8,128)(2,1)}", exp_sum, 0);
  const std::string v = gte(3, kHeads, heads, 2);
  const std::string sum = gte(4, kRow, exp_sum, 1);
  fusion(attention, "bf16[4,4,2048,128]{3,1,2,0:T(4,128)(2,1)}",
         absl::StrCat(e, ", ", v, ", ", sum), "kOutput", id.scores() + 3, "attention/dot_general",
         40);
  // Numbered after the out-projection computation: entry names must not repeat fused ones.
  const std::string tokens_heads = absl::StrCat("%bitcast.", id.out_projection(), ".2");
  line(absl::StrCat(tokens_heads, " = bf16[8192,4,128]{2,1,0:T(4,128)(2,1)} bitcast(", attention,
                    ")"));
  w = gathered(1);
  fusion(absl::StrCat("%convolution_bitcast_fusion.", n), kX, absl::StrCat(tokens_heads, ", ", w),
         "kOutput", id.out_projection(), "attention/out/dot_general", 41);
  std::string reduced =
      all_reduce(0, absl::StrCat("%convolution_bitcast_fusion.", n), "attention/out/psum", 41);
  fusion(x1, kX, absl::StrCat(x, ", ", reduced), "kLoop", id.residual(0), "add", 55);
  fusion(rms2, "f32[8192]{0:T(1024)S(1)}", x1, "kInput", id.rms(1), "mlp_norm/rsqrt", 22);
  w = gathered(2);
  fusion(mlp_up, "bf16[8192,2048]{1,0:T(8,128)(2,1)}",
         absl::StrCat(x1, ", ", rms2, ", ", param(3), ", ", w), "kOutput", id.mlp_up(),
         "mlp/up/dot_general", 47);
  w = gathered(3);
  fusion(mlp_down, kX, absl::StrCat(mlp_up, ", ", w), "kOutput", id.mlp_down(),
         "mlp/down/dot_general", 49);
  reduced = all_reduce(1, mlp_down, "mlp/down/psum", 49);
  fusion(absl::StrCat(is_last ? "ROOT " : "", "%add_fusion.", 2 * layer + 1), kX,
         absl::StrCat(x1, ", ", reduced), "kLoop", id.residual(1), "add", 56);
}

// Everything a layer adds to the module, in the order the file holds it. Used to size the
// module; the file itself is written part by part.
int64_t layer_bytes(int layer) {
  Sink count;
  for (int j = 0; j < kParamsPerLayer; ++j) {
    const int number = param_number(layer, j);
    count.write(list_separator(number));
    count.write(kLayerParams[j].shape);
    count.write(absl::StrCat(list_separator(number), param_name(number), ": ",
                             without_layout(kLayerParams[j].shape)));
  }
  write_layer_computations(count, layer);
  write_layer_instructions(count, layer, /*is_last=*/false);
  return count.bytes();
}

int64_t fixed_bytes() {
  Sink count;
  write_header(count, 0);
  write_reducers(count);
  write_entry_signature(count, 0);
  count.write("}\n");
  return count.bytes();
}

void write_module(Sink& out, int layers) {
  write_header(out, layers);
  write_reducers(out);
  for (int layer = 0; layer < layers; ++layer) write_layer_computations(out, layer);
  write_entry_signature(out, layers);
  for (int layer = 0; layer < layers; ++layer) {
    write_layer_instructions(out, layer, layer == layers - 1);
  }
  out.write("}\n");
}

int usage(absl::string_view message) {
  std::fprintf(stderr,
               "error: %.*s\nusage: gen_hlo OUT.hlo [--mb N]\n"
               "  Writes a synthetic HLO module of at least N MiB (default 100).\n",
               static_cast<int>(message.size()), message.data());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  absl::string_view out_path;
  double mebibytes = 100;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    absl::string_view value;
    if (arg == "--mb") {
      if (i + 1 == argc) return usage("--mb needs a value");
      value = argv[++i];
    } else if (arg.substr(0, 5) == "--mb=") {
      value = arg.substr(5);
    } else if (arg.substr(0, 1) == "-" && arg.size() > 1) {
      return usage(absl::StrCat("unknown option ", arg));
    } else if (out_path.empty()) {
      out_path = arg;
      continue;
    } else {
      return usage("more than one output file");
    }
    if (!absl::SimpleAtod(value, &mebibytes) || !(mebibytes > 0) || mebibytes > 1e6) {
      return usage(absl::StrCat("--mb wants a size in MiB above 0, got '", value, "'"));
    }
  }
  if (out_path.empty()) return usage("no output file");

  // A few bytes of slack: the last layer's ROOT marker is not in layer_bytes().
  const int64_t target = static_cast<int64_t>(mebibytes * (1 << 20)) + 16;
  int64_t total = fixed_bytes();
  int layers = 0;
  while (total < target || layers == 0) total += layer_bytes(layers++);

  const std::string path(out_path);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    std::fprintf(stderr, "error: cannot open %s for writing\n", path.c_str());
    return 1;
  }
  Sink out(file);
  write_module(out, layers);
  const bool written = out.flush();
  if (std::fclose(file) != 0 || !written) {
    std::fprintf(stderr, "error: could not write all of %s (disk full?)\n", path.c_str());
    return 1;
  }
  std::printf("wrote %s: %lld bytes, %d layers, %d computations\n", path.c_str(),
              static_cast<long long>(out.bytes()), layers, 3 + layers * kComputationsPerLayer + 1);
  return 0;
}
