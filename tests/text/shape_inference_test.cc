// Shapes the text leaves out are inferred as XLA's parser infers them (ShapeInference in
// openxla/xla), for every opcode it infers; and what XLA accepts around shapes is accepted.
#include <catch2/catch.hpp>
#include <string>

#include "hloroof/hloroof.h"
#include "module_test_util.h"

namespace hloroof {
namespace {

using testing::find;
using testing::parse_error;
using testing::parse_ok;

// The inferred shape of instruction `name` in the entry computation of `body`'s module.
std::string inferred(const std::string& computations, const std::string& entry_body,
                     std::string_view name) {
  Module m = parse_ok("HloModule m\n" + computations + "\nENTRY e {\n" + entry_body + "\n}\n");
  return to_string(find(m, "e", name).shape());
}

constexpr char kAdd[] = R"(add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
})";

// A reducer of two (f32, s32) pairs, for variadic reduce and reduce-window.
constexpr char kArgmax[] = R"(argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  v = f32[] maximum(v0, v1)
  i = s32[] maximum(i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
})";

TEST_CASE("transpose permutes the operand's dimensions") {
  // out[k] = in[perm[k]]: perm {2,0,1} of [2,3,5] is [5,2,3].
  CHECK(inferred("", "p = f32[2,3,5] parameter(0)\nROOT t = transpose(p), dimensions={2,0,1}",
                 "t") == "f32[5,2,3]");
  CHECK(parse_error("HloModule m\nENTRY e {\n p = f32[2,3] parameter(0)\n"
                    " ROOT t = transpose(p), dimensions={0,0}\n}\n")
            .find("cannot infer the shape of transpose") != std::string::npos);
}

TEST_CASE("reduce of one operand drops the reduced dimensions") {
  CHECK(inferred(kAdd,
                 "p = f32[4,6,8] parameter(0)\nz = f32[] constant(0)\n"
                 "ROOT r = reduce(p, z), dimensions={0,2}, to_apply=add",
                 "r") == "f32[6]");
}

TEST_CASE("reduce of several operands gives a tuple typed by the init values") {
  CHECK(inferred(kArgmax,
                 "v = f32[4,6] parameter(0)\ni = s32[4,6] parameter(1)\n"
                 "zv = f32[] constant(0)\nzi = s32[] constant(0)\n"
                 "ROOT r = reduce(v, i, zv, zi), dimensions={1}, to_apply=argmax",
                 "r") == "(f32[4], s32[4])");
}

TEST_CASE("reduce-window applies the window to each dimension") {
  // Dim 0: padded = 10 + 1 + 1 = 12, window 3, stride 2: (12 - 3) / 2 + 1 = 5.
  // Dim 1: base dilation 2: padded = (7 - 1) * 2 + 1 = 13; window 2 dilated by 3 spans
  // (2 - 1) * 3 + 1 = 4; stride 1: 13 - 4 + 1 = 10.
  CHECK(inferred(kAdd,
                 "p = f32[10,7] parameter(0)\nz = f32[] constant(0)\n"
                 "ROOT r = reduce-window(p, z), window={size=3x2 stride=2x1 pad=1_1x0_0 "
                 "lhs_dilate=1x2 rhs_dilate=1x3}, to_apply=add",
                 "r") == "f32[5,10]");
  CHECK(inferred(kArgmax,
                 "v = f32[8] parameter(0)\ni = s32[8] parameter(1)\n"
                 "zv = f32[] constant(0)\nzi = s32[] constant(0)\n"
                 "ROOT r = reduce-window(v, i, zv, zi), window={size=2 stride=2}, to_apply=argmax",
                 "r") == "(f32[4], s32[4])");  // (8 - 2) / 2 + 1 = 4
}

TEST_CASE("concatenate adds the sizes along its dimension") {
  CHECK(inferred("",
                 "a = f32[2,3] parameter(0)\nb = f32[2,5] parameter(1)\n"
                 "ROOT c = concatenate(a, b, a), dimensions={1}",
                 "c") == "f32[2,11]");  // 3 + 5 + 3
  CHECK(parse_error("HloModule m\nENTRY e {\n a = f32[2,3] parameter(0)\n"
                    " b = f32[4,3] parameter(1)\n ROOT c = concatenate(a, b), dimensions={1}\n}\n")
            .find("cannot infer the shape of concatenate") != std::string::npos);
}

TEST_CASE("real, imag and abs of complex numbers are real; complex builds them") {
  const std::string params = "c = c64[3] parameter(0)\nd = c128[] parameter(1)\n"
                             "f = f32[3] parameter(2)\n";
  CHECK(inferred("", params + "ROOT r = real(c)", "r") == "f32[3]");
  CHECK(inferred("", params + "ROOT r = imag(d)", "r") == "f64[]");
  CHECK(inferred("", params + "ROOT r = abs(c)", "r") == "f32[3]");
  CHECK(inferred("", params + "ROOT r = real(f)", "r") == "f32[3]");  // real of a real
  CHECK(inferred("", params + "ROOT r = complex(f, f)", "r") == "c64[3]");
  CHECK(inferred("", params + "ROOT r = is-finite(f)", "r") == "pred[3]");
}

TEST_CASE("broadcast without a shape prepends its dimensions as sizes, as XLA's parser does") {
  CHECK(inferred("", "p = f32[3] parameter(0)\nROOT b = broadcast(p), dimensions={2,4}", "b") ==
        "f32[2,4,3]");
}

TEST_CASE("map takes its element type from the applied computation") {
  constexpr char kToInt[] = R"(to_int {
  x = f32[] parameter(0)
  ROOT c = s32[] convert(x)
})";
  CHECK(inferred(kToInt, "p = f32[5] parameter(0)\nROOT m = map(p), dimensions={0}, to_apply=to_int",
                 "m") == "s32[5]");
}

TEST_CASE("reverse, select-and-scatter, cholesky and triangular-solve keep an operand's shape") {
  CHECK(inferred("", "p = f32[4,5] parameter(0)\nROOT r = reverse(p), dimensions={1}", "r") ==
        "f32[4,5]");
  CHECK(inferred("", "a = f32[4,4] parameter(0)\nROOT c = cholesky(a), lower=true", "c") ==
        "f32[4,4]");
  CHECK(inferred("",
                 "a = f32[4,4] parameter(0)\nb = f32[4,7] parameter(1)\n"
                 "ROOT t = triangular-solve(a, b), left_side=true, lower=true",
                 "t") == "f32[4,7]");
  constexpr char kGe[] = R"(ge {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
})";
  CHECK(inferred(std::string(kGe) + "\n" + kAdd,
                 "p = f32[4] parameter(0)\ns = f32[2] parameter(1)\nz = f32[] constant(0)\n"
                 "ROOT r = select-and-scatter(p, s, z), window={size=2 stride=2}, select=ge, "
                 "scatter=add",
                 "r") == "f32[4]");
}

TEST_CASE("gather: batch dimensions of the indices around the slice's offset dimensions") {
  // Operand [5,7], slices of [1,7] with dim 0 collapsed: offset dim (size 7) at output dim 1;
  // indices [3,1] with index_vector_dim=1 leave batch dim 3 at output dim 0.
  CHECK(inferred("",
                 "p = f32[5,7] parameter(0)\ni = s32[3,1] parameter(1)\n"
                 "ROOT g = gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, "
                 "start_index_map={0}, index_vector_dim=1, slice_sizes={1,7}",
                 "g") == "f32[3,7]");
}

TEST_CASE("scatter has the shape of its inputs") {
  CHECK(inferred(kAdd,
                 "p = f32[5,7] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,7] parameter(2)\n"
                 "ROOT s = scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, "
                 "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
                 "s") == "f32[5,7]");
}

TEST_CASE("fft: RFFT keeps length / 2 + 1 complex frequencies, IRFFT the length") {
  CHECK(inferred("", "p = f32[4,16] parameter(0)\nROOT f = fft(p), fft_type=RFFT, fft_length={16}",
                 "f") == "c64[4,9]");  // 16 / 2 + 1 = 9
  CHECK(inferred("", "p = c64[4,9] parameter(0)\nROOT f = fft(p), fft_type=IRFFT, fft_length={16}",
                 "f") == "f32[4,16]");
  CHECK(inferred("", "p = c64[8] parameter(0)\nROOT f = fft(p), fft_type=FFT, fft_length={8}",
                 "f") == "c64[8]");
}

TEST_CASE("batch norm: the operand, and per-feature statistics") {
  const std::string params =
      "x = f32[2,3,4] parameter(0)\ns = f32[3] parameter(1)\no = f32[3] parameter(2)\n";
  CHECK(inferred("", params + "ROOT b = batch-norm-training(x, s, o), epsilon=0.001, feature_index=1",
                 "b") == "(f32[2,3,4], f32[3], f32[3])");
  CHECK(inferred("",
                 params + "ROOT b = batch-norm-inference(x, s, o, s, s), epsilon=0.001, "
                          "feature_index=1",
                 "b") == "f32[2,3,4]");
  CHECK(inferred("",
                 params + "ROOT b = batch-norm-grad(x, s, o, s, x), epsilon=0.001, feature_index=1",
                 "b") == "(f32[2,3,4], f32[3], f32[3])");
}

TEST_CASE("ragged-dot: the rhs group dimension leaves the result; ragged contraction adds one") {
  // Ragged non-contracting lhs dim 0: lhs [11,5] x rhs [3,5,7] (group dim 0, contracting 1):
  // lhs free 11, rhs free 7.
  CHECK(inferred("",
                 "l = f32[11,5] parameter(0)\nr = f32[3,5,7] parameter(1)\n"
                 "g = s32[3] parameter(2)\n"
                 "ROOT d = ragged-dot(l, r, g), lhs_contracting_dims={1}, "
                 "rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}",
                 "d") == "f32[11,7]");
  // Ragged contracting lhs dim 1: lhs [11,5] x rhs [5,7]: one [11,7] result per group (3).
  CHECK(inferred("",
                 "l = f32[11,5] parameter(0)\nr = f32[5,7] parameter(1)\n"
                 "g = s32[3] parameter(2)\n"
                 "ROOT d = ragged-dot(l, r, g), lhs_contracting_dims={1}, "
                 "rhs_contracting_dims={0}, lhs_ragged_dims={1}",
                 "d") == "f32[3,11,7]");
}

TEST_CASE("topk: the k largest values and their s32 indices") {
  CHECK(inferred("", "p = f32[6,10] parameter(0)\nROOT t = topk(p), k=3", "t") ==
        "(f32[6,3], s32[6,3])");
}

TEST_CASE("dimension sizes, ids, dependencies and host transfers") {
  CHECK(inferred("", "p = f32[6] parameter(0)\nROOT g = get-dimension-size(p), dimensions={0}",
                 "g") == "s32[]");
  CHECK(inferred("",
                 "p = f32[6] parameter(0)\nn = s32[] constant(3)\n"
                 "ROOT s = set-dimension-size(p, n), dimensions={0}",
                 "s") == "f32[<=6]");
  CHECK(inferred("", "ROOT r = replica-id()", "r") == "u32[]");
  CHECK(inferred("", "ROOT r = partition-id()", "r") == "u32[]");
  CHECK(inferred("", "p = f32[6] parameter(0)\nt = after-all()\nROOT a = add-dependency(p, t)",
                 "a") == "f32[6]");
  CHECK(inferred("",
                 "p = f32[6] parameter(0)\nt = after-all()\n"
                 "s = send(p, t), channel_id=1\nROOT d = send-done(s), channel_id=1",
                 "s") == "(f32[6], u32[], token[])");
  CHECK(inferred("",
                 "t = after-all()\nr = (f32[6], u32[], token[]) recv(t), channel_id=2\n"
                 "ROOT d = recv-done(r), channel_id=2",
                 "d") == "(f32[6], token[])");
}

TEST_CASE("result_accuracy modes are read in any letter case, as XLA reads them") {
  for (const char* mode : {"HIGHEST", "highest", "DEFAULT", "Default"}) {
    INFO(mode);
    parse_ok(std::string("HloModule m\nENTRY e {\n p = f32[4] parameter(0)\n"
                         " ROOT x = f32[4] exponential(p), result_accuracy={mode=") +
             mode + "}\n}\n");
  }
  CHECK(parse_error("HloModule m\nENTRY e {\n p = f32[4] parameter(0)\n"
                    " ROOT x = f32[4] exponential(p), result_accuracy={mode=best}\n}\n")
            .find("the result_accuracy mode") != std::string::npos);
}

TEST_CASE("a long-form operand may differ from its definition in dynamism and layout only") {
  // XLA compares these with ShapeUtil::Compatible: s32[3] and s32[<=3] are the same size.
  Module m = parse_ok(R"(HloModule m
ENTRY e {
  p = s32[<=3]{0} parameter(0)
  ROOT n = s32[<=3] negate(s32[3]{0} p)
})");
  CHECK(m.entry()->root()->operand(0)->name() == "p");
  CHECK(parse_error("HloModule m\nENTRY e {\n p = s32[<=3] parameter(0)\n"
                    " ROOT n = s32[<=3] negate(s32[4] p)\n}\n")
            .find("operand p has shape s32[<=3], not s32[4] as written") != std::string::npos);
}

// A chain of `levels` tuples without written shapes, each holding the previous one `width`
// times; t0 is `tuple()` when `empty`, else tuple(p).
std::string tuple_chain(int levels, int width, bool empty) {
  std::string body = empty ? "  t0 = tuple()\n" : "  p = f32[] parameter(0)\n  t0 = tuple(p)\n";
  for (int k = 1; k <= levels; ++k) {
    std::string operands;
    for (int w = 0; w < width; ++w) operands += (w ? ", t" : "t") + std::to_string(k - 1);
    body += "  " + std::string(k == levels ? "ROOT " : "") + "t" + std::to_string(k) +
            " = tuple(" + operands + ")\n";
  }
  return "HloModule m\nENTRY e {\n" + body + "}\n";
}

TEST_CASE("an inferred tuple is bounded like a written one: depth and tree size") {
  // Depth: t0 = tuple(p) is 1 deep, t_k is k + 1: 63 levels make 64 (the limit), 64 make 65.
  Module ok = parse_ok(tuple_chain(63, 1, false));
  CHECK(ok.entry()->root()->shape().depth() == 64);
  CHECK(parse_error(tuple_chain(64, 1, false)).find("nests tuples 65 levels deep") !=
        std::string::npos);
  // Tree size: t_k of two t_{k-1}: s_k = 1 + 2 s_{k-1}, s_0 = 2 (tuple(p)): s_k = 3 * 2^k - 1.
  // k = 18: 786,431 shapes (under 2^20 = 1,048,576); k = 19: 1,572,863, refused. With
  // t0 = tuple() (no array at all, so no leaf count to stop it): s_0 = 1, s_k = 2^(k+1) - 1;
  // k = 19: 1,048,575 (accepted), k = 20: 2,097,151 (refused).
  Module wide = parse_ok(tuple_chain(18, 2, false));
  CHECK(wide.entry()->root()->shape().tree_size() == 3 * (int64_t{1} << 18) - 1);
  CHECK(wide.entry()->root()->shape().array_leaf_count() == int64_t{1} << 18);
  CHECK(parse_error(tuple_chain(19, 2, false)).find("more than 1048576 shapes") !=
        std::string::npos);
  CHECK(parse_ok(tuple_chain(19, 2, true)).entry()->root()->shape().tree_size() ==
        (int64_t{1} << 20) - 1);
  CHECK(parse_error(tuple_chain(20, 2, true)).find("more than 1048576 shapes") !=
        std::string::npos);
  // 60 levels of doubling (2^61 shapes as a tree) are refused as fast, at level 19.
  CHECK(parse_error(tuple_chain(60, 2, false)).find("more than 1048576 shapes") !=
        std::string::npos);
}

}  // namespace
}  // namespace hloroof
