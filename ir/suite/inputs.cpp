// Sizes, shapes and input generation for functions and suite entries.
#include "ir/suite/inputs.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "ir/error.h"
#include "ir/int_arith.h"
#include "ir/suite/constraints.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/json_io.h"
#include "ir/tensor/matrix_market.h"
#include "ir/tensor/npy_io.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {

std::int64_t eval_size(Expr e, const SizeMap& sizes) {
  if (auto* l = e.as<Literal>()) return static_cast<std::int64_t>(l->value);
  if (auto* v = e.as<Var>()) {
    auto it = sizes.find(v->name);
    if (it == sizes.end())
      throw Error("no value for size `" + v->name + "` (give it with --size " + v->name + "=N)");
    return it->second;
  }
  if (auto* u = e.as<Unary>(); u && u->op == UnaryOp::Neg) {
    if (auto r = int_arith(BinaryOp::Sub, 0, eval_size(u->a, sizes))) return *r;
    throw Error("size expression `" + expr_str(e) + "` overflows i64");
  }
  if (auto* b = e.as<Binary>()) {
    std::int64_t x = eval_size(b->a, sizes), y = eval_size(b->b, sizes);
    if ((b->op == BinaryOp::Div || b->op == BinaryOp::Mod) && y <= 0)
      throw Error("size expression `" + expr_str(e) + "` divides by a non-positive value");
    if (b->op == BinaryOp::Div && *int_arith(BinaryOp::Mod, x, y) != 0)
      throw Error("size expression `" + expr_str(e) + "` is not an exact division (" +
                  std::to_string(x) + " / " + std::to_string(y) + ")");
    if (is_int_arith(b->op)) {
      if (auto r = int_arith(b->op, x, y)) return *r;
      throw Error("size expression `" + expr_str(e) + "` overflows i64");
    }
  }
  if (auto* p = e.as<Prim>()) {
    if (p->op == PrimOp::Min)
      return std::min(eval_size(p->args[0], sizes), eval_size(p->args[1], sizes));
    if (p->op == PrimOp::Max)
      return std::max(eval_size(p->args[0], sizes), eval_size(p->args[1], sizes));
  }
  throw Error("`" + expr_str(e) + "` is not a size expression");
}

bool is_size_arithmetic(Expr e) {
  if (e.as<Literal>() || e.as<Var>()) return true;
  if (auto* u = e.as<Unary>()) return u->op == UnaryOp::Neg && is_size_arithmetic(u->a);
  if (auto* b = e.as<Binary>())
    return is_int_arith(b->op) && is_size_arithmetic(b->a) && is_size_arithmetic(b->b);
  if (auto* p = e.as<Prim>())
    return (p->op == PrimOp::Min || p->op == PrimOp::Max) && is_size_arithmetic(p->args[0]) &&
           is_size_arithmetic(p->args[1]);
  return false;
}

std::vector<std::int64_t> eval_shape(const Type& t, const SizeMap& sizes) {
  std::vector<std::int64_t> shape;
  for (auto d : t.dims) {
    std::int64_t n = eval_size(d, sizes);
    if (n < 0)
      throw Error("dimension `" + expr_str(d) + "` is negative (" + std::to_string(n) + ")");
    shape.push_back(n);
  }
  return shape;
}

Tensor read_tensor_file(const std::string& path, ElemType elem) {
  auto ext = std::filesystem::path(path).extension().string();
  if (ext == ".json") return read_json_tensor(path, elem == ElemType::F32 ? ElemType::F64 : elem);
  if (ext == ".npy") return read_npy(path);
  if (ext == ".mtx") return read_matrix_market(path);
  throw Error("input file `" + path + "`: unknown format `" + ext + "` (use .json, .npy or .mtx)");
}

Tensor adapt_to_param(Tensor t, const Type& pt, const std::string& what) {
  if (pt.is_tuple()) throw Error(what + ": tuple parameters cannot be read from files");
  if (t.shape.size() != pt.dims.size())
    throw Error(what + ": expected a rank-" + std::to_string(pt.dims.size()) + " tensor " +
                type_str(pt) + ", the data has rank " + std::to_string(t.shape.size()));
  if (pt.elem == ElemType::I64 || pt.elem == ElemType::Bool) {
    if (t.storage != Storage::Dense) throw Error(what + ": integer tensors must be dense");
    if (is_float(t.elem)) {
      Tensor r;
      r.elem = pt.elem;
      r.shape = t.shape;
      for (double v : t.values) {
        // range first: converting 1e300 or NaN to i64 is undefined behaviour
        if (!(std::fabs(v) <= 9007199254740992.0) ||
            v != static_cast<double>(static_cast<std::int64_t>(v)))
          throw Error(what + ": expected integers (exact, |n| <= 2^53), found " + number_str(v));
        r.ints.push_back(static_cast<std::int64_t>(v));
      }
      t = std::move(r);
    }
    t.elem = pt.elem;
    validate(t);
    return t;
  }
  if (!is_float(t.elem)) {  // integer data for a floating parameter
    Tensor r;
    r.elem = pt.elem;
    r.shape = t.shape;
    for (auto v : t.ints) r.values.push_back(static_cast<double>(v));
    t = std::move(r);
  }
  t.elem = pt.elem;
  if (pt.elem == ElemType::F32)  // f32 data are f32 values, whatever scalar type evaluates them
    for (double& v : t.values) {
      if (beyond_f32(v)) throw Error(what + ": " + number_str(v) + " is outside the range of f32");
      v = f32_value(v);
    }
  if (t.storage != pt.storage) {
    if (pt.storage == Storage::Dense)
      t = to_dense(t);
    else if (pt.storage == Storage::Csr)
      t = to_csr(t);
    else
      t = to_coo(t);
  }
  validate(t);
  return t;
}

nlohmann::json default_spec(const Function& f, std::size_t k) {
  const Type& t = f.params[k]->type;
  if (t.storage != Storage::Dense) return {{"dist", "sparse"}, {"density", 0.2}};
  if (!is_float(t.elem))
    throw Error(f.pos, "parameter `" + var_name(f.params[k]) +
                           "` is an integer tensor: give its values "
                           "(--input " +
                           var_name(f.params[k]) + "=FILE) or a generator in a manifest");
  return {{"dist", "normal"}, {"mean", 0.0}, {"std", 1.0}};
}

namespace {
std::int64_t spec_int(const Function& f, const nlohmann::json& v, const SizeMap& sizes,
                      const std::string& what) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_string()) {
    Expr e = parse_expr(v.get<std::string>(), f.sizes, what);
    return eval_size(e, sizes);
  }
  throw Error(what + ": expected an integer or a size expression");
}
// The fields each generator reads (docs/suites.md): `"low": 5` would silently keep lo = 0.
void check_generator_fields(const nlohmann::json& spec, const std::string& what) {
  if (!spec.is_object()) throw Error(what + ": a generator is a JSON object");
  static const std::map<std::string, std::set<std::string>> kFields{
      {"value", {"value"}},
      {"file", {"file"}},
      {"normal", {"dist", "mean", "std"}},
      {"uniform", {"dist", "lo", "hi"}},
      {"int", {"dist", "lo", "hi"}},
      {"sparse", {"dist", "density", "nnz", "lo", "hi", "mean", "std"}}};
  std::string kind = spec.contains("value")  ? "value"
                     : spec.contains("file") ? "file"
                                             : spec.value("dist", std::string("normal"));
  auto it = kFields.find(kind);
  if (it == kFields.end()) return;  // an unknown generator is reported where it is chosen
  for (auto& [key, v] : spec.items())
    if (!it->second.count(key))
      throw Error(what + ": `" + key + "` is not a field of the " + kind + " generator");
}

double spec_num(const nlohmann::json& s, const char* key, double dflt, const std::string& what) {
  if (!s.contains(key)) return dflt;
  if (!s[key].is_number()) throw Error(what + ": `" + key + "` must be a number");
  return s[key].get<double>();
}
}  // namespace

Tensor generate_input(const Function& f, std::size_t k, const nlohmann::json& spec,
                      const SizeMap& sizes, std::uint64_t seed, const std::string& base_dir) {
  const Type& pt = f.params[k]->type;
  std::string what = "input `" + var_name(f.params[k]) + "` of `" + f.name + "`";
  check_generator_fields(spec, what);
  // A rank-0 i64 size parameter is its size.
  if (pt.is_index() && std::find(f.sizes.begin(), f.sizes.end(), f.params[k]) != f.sizes.end() &&
      !spec.contains("value") && !spec.contains("file")) {
    Tensor t;
    t.elem = ElemType::I64;
    t.ints = {eval_size(f.params[k], sizes)};
    return t;
  }
  // A literal or file input must have the shape the sizes give (when they give every size).
  auto check_shape = [&](Tensor t) {
    std::vector<std::int64_t> want;
    try {
      want = eval_shape(pt, sizes);
    } catch (const Error&) {
      return t;  // a size only the data gives
    }
    if (t.shape != want)
      throw Error(what + ": the data has shape " + shape_str(t.shape) + " but the sizes give " +
                  shape_str(want));
    return t;
  };
  if (spec.contains("value"))
    return check_shape(adapt_to_param(
        tensor_from_json(spec["value"],
                         pt.is_tuple() || pt.elem == ElemType::F32 ? ElemType::F64 : pt.elem),
        pt, what));
  if (spec.contains("file")) {
    auto path = (std::filesystem::path(base_dir) / spec["file"].get<std::string>()).string();
    return check_shape(adapt_to_param(read_tensor_file(path, pt.elem), pt, what));
  }
  if (pt.is_tuple()) throw Error(what + ": tuple parameters need a value");
  auto shape = eval_shape(pt, sizes);
  // Refuse absurd shapes with a clear message instead of failing to allocate.
  constexpr std::int64_t kMaxEntries = std::int64_t{1} << 31;
  if (spec.value("dist", "") != "sparse" && checked_numel(shape) > kMaxEntries)
    throw Error(what + ": shape " + shape_str(shape) + " has more than 2^31 entries");
  std::string dist = spec.value("dist", "normal");
  Tensor t;
  if (dist == "normal") {
    t = random_normal(shape, spec_num(spec, "mean", 0, what), spec_num(spec, "std", 1, what), seed);
  } else if (dist == "uniform") {
    t = random_uniform(shape, spec_num(spec, "lo", 0, what), spec_num(spec, "hi", 1, what), seed);
  } else if (dist == "int") {
    std::int64_t lo = spec.contains("lo") ? spec_int(f, spec["lo"], sizes, what) : 0;
    if (!spec.contains("hi")) throw Error(what + ": an int generator needs `hi`");
    std::int64_t hi = spec_int(f, spec["hi"], sizes, what);
    if (hi <= lo)
      throw Error(what + ": empty integer range [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + ")");
    t = random_int(shape, lo, hi, seed);
  } else if (dist == "sparse") {
    if (shape.size() != 2 && shape.size() != 1)
      throw Error(what + ": sparse generators make rank-1 or rank-2 tensors");
    std::int64_t rows = shape.size() == 2 ? shape[0] : 1, cols = shape.back();
    // One way to say how many entries, one value distribution: a field the generator would
    // not read, or an `nnz` that is not a count, gave a silently different (or empty) matrix.
    if (spec.contains("nnz") && spec.contains("density"))
      throw Error(what + ": give `nnz` or `density`, not both");
    const bool uniform = spec.contains("lo") || spec.contains("hi");
    if (uniform && (spec.contains("mean") || spec.contains("std")))
      throw Error(what +
                  ": `lo`/`hi` (uniform values) and `mean`/`std` (normal) exclude each other");
    if (uniform && !(spec.contains("lo") && spec.contains("hi")))
      throw Error(what + ": uniform sparse values need both `lo` and `hi`");
    std::int64_t nnz = -1;
    if (spec.contains("nnz")) {
      nnz = spec_int(f, spec["nnz"], sizes, what + ": `nnz`");
      if (nnz < 0)
        throw Error(what + ": `nnz` must be a non-negative count, got " + std::to_string(nnz));
    }
    SparseFill fill = nnz >= 0 ? SparseFill::nnz(nnz)
                               : SparseFill::fraction(spec_num(spec, "density", 0.2, what));
    ValueDist vd =
        uniform
            ? ValueDist::uniform(spec_num(spec, "lo", 0, what), spec_num(spec, "hi", 1, what))
            : ValueDist::normal(spec_num(spec, "mean", 0, what), spec_num(spec, "std", 1, what));
    t = random_sparse(rows, cols,
                      shape.size() == 1              ? Storage::Coo
                      : pt.storage == Storage::Dense ? Storage::Coo
                                                     : pt.storage,
                      fill, vd, seed);
    if (shape.size() == 1) {  // a sparse vector: drop the row coordinate
      std::vector<std::int64_t> c;
      for (std::size_t q = 1; q < t.coords.size(); q += 2) c.push_back(t.coords[q]);
      t.coords = c;
      t.shape = {cols};
    }
    t = adapt_to_param(std::move(t), pt, what);
    return t;
  } else {
    throw Error(what + ": unknown generator `" + dist +
                "` (normal, uniform, int, sparse, value, file)");
  }
  return adapt_to_param(std::move(t), pt, what);
}

std::vector<Tensor> entry_inputs(const Function& f, const SuiteEntry& e,
                                 const std::string& size_set) {
  const SizeMap& sizes = e.size_set(size_set);
  for (auto& [name, spec] : e.inputs.items())
    if (std::none_of(f.params.begin(), f.params.end(),
                     [&](const Expr& p) { return var_name(p) == name; }))
      throw Error(e.id() + ": inputs." + name + " names no parameter of `" + f.name + "`");
  for (auto& [name, n] : sizes)
    if (std::none_of(f.sizes.begin(), f.sizes.end(),
                     [&](const Expr& s) { return var_name(s) == name; }))
      throw Error(e.id() + ": sizes." + size_set + "." + name + " is not a size of `" + f.name +
                  "`");
  std::vector<Tensor> in;
  for (std::size_t k = 0; k < f.params.size(); ++k) {
    const std::string& name = var_name(f.params[k]);
    // docs/suites.md: one generator per parameter (a missing one was a silent normal(0, 1);
    // decision 222)
    if (!e.inputs.contains(name))
      throw Error(e.id() + ": inputs." + name + " is missing (every parameter of `" + f.name +
                  "` needs a generator)");
    in.push_back(generate_input(f, k, e.inputs[name], sizes, e.seed + k, e.dir));
  }
  check_constraints(f, e, in, sizes);
  return in;
}

}  // namespace adlab::ir
