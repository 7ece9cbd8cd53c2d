// IR -> C++ for the cpu backend: dense tensors whose shape is literal in the IR (`f64[3]`,
// `f64[3, 3]`) held as `adlab_rt::Fixed<E, N>` aggregates, or read in place through a pointer, with
// no tensor header (decisions 127-131). Everything else keeps `adlab_rt::Tensor`.
#include <algorithm>
#include <cmath>

#include "backends/cpu/codegen_impl.h"
#include "ir/context.h"
#include "ir/syntax/printer.h"
#include "ir/visitor.h"

namespace adlab::backends::cpu {

using namespace ir;

namespace {
std::string dims_list(const std::vector<std::int64_t>& dims) {
  std::string r = "{";
  for (std::size_t k = 0; k < dims.size(); ++k) r += (k ? ", " : "") + std::to_string(dims[k]);
  return r + "}";
}
// A literal integer expression's value, or -1.
std::int64_t literal_int(Expr e) {
  auto* l = e.as<Literal>();
  if (!l || l->value != std::floor(l->value) || l->value < 0 || l->value > 1e15) return -1;
  return static_cast<std::int64_t>(l->value);
}
}  // namespace

std::int64_t Emitter::FixedRef::numel() const {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

bool Emitter::fixed_shape(const Type& t, std::vector<std::int64_t>& dims) {
  dims.clear();
  if (t.is_tuple() || t.storage != Storage::Dense || t.dims.empty() || t.dims.size() > 8)
    return false;
  std::int64_t n = 1;
  for (auto d : t.dims) {
    std::int64_t v = literal_int(d);
    if (v < 1) return false;  // a literal 0 would be an empty C++ array
    n *= v;
    if (n > kFixedCap) return false;
    dims.push_back(v);
  }
  return true;
}

std::string Emitter::fixed_ctype(const std::string& elem, const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return "adlab_rt::Fixed<" + elem + ", " + std::to_string(n) + ">";
}

const Emitter::FixedRef* Emitter::fixed_of(const std::string& v) const {
  auto it = fixed_.find(v);
  return it == fixed_.end() ? nullptr : &it->second;
}

std::string Emitter::declare_fixed(const std::string& hint, const std::string& elem,
                                   const std::vector<std::int64_t>& dims) {
  std::string r = fresh(hint);
  line(fixed_ctype(elem, dims) + " " + r + ";");  // every entry is written before it is read
  fixed_[r] = FixedRef{elem, dims, r + ".v"};
  return r;
}

std::string Emitter::as_tensor(const std::string& v) {
  const FixedRef* f = fixed_of(v);
  if (!f) return v;
  std::string r = fresh("tn");
  line("adlab_rt::Tensor<" + f->elem + "> " + r + " = adlab_rt::fixed_tensor<" + f->elem + ">(" +
       f->ptr + ", " + dims_list(f->dims) + ");");
  movable.insert(r);
  return r;
}

// idx is a literal in [0, n), or a loop variable whose bound (or its enclosing variable's bound,
// v < b < b') is a literal at most n: the loop keeps it in range.
bool Emitter::below_literal(Expr idx, std::int64_t n) const {
  std::int64_t lit = literal_int(idx);
  if (lit >= 0) return lit < n;
  Expr v = idx;
  for (int hops = 0; hops < 16; ++hops) {
    auto vb = var_bound.find(v.get());
    if (vb == var_bound.end()) return false;
    std::int64_t b = literal_int(vb->second);
    if (b >= 0) return b <= n;
    if (!vb->second.as<Var>()) return false;
    v = vb->second;
  }
  return false;
}

std::string Emitter::fixed_offset(const FixedRef& f, const std::vector<std::string>& keys) const {
  std::string off = keys[0];
  for (std::size_t k = 1; k < keys.size(); ++k)
    off = "(" + off + ") * " + std::to_string(f.dims[k]) + " + " + keys[k];
  for (std::size_t k = keys.size(); k < f.dims.size(); ++k)
    off = "(" + off + ") * " + std::to_string(f.dims[k]);
  return off;
}

void Emitter::fixed_assign(const std::string& dst, const std::string& v, const std::string& elem,
                           const std::vector<std::int64_t>& dims, int site_no) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  const FixedRef* f = fixed_of(v);
  if (f && f->dims == dims) {
    line("adlab_rt::copy_entries(" + f->ptr + ", i64(" + std::to_string(n) + "), " + dst + ");");
    return;
  }
  std::string t = as_tensor(v);  // another shape (an error at run time) or a tensor: checked
  line("{ const auto fx = adlab_rt::fixed_from<" + elem + ", " + std::to_string(n) + ">(" +
       std::to_string(site_no) + ", adlab_rt::kShape, " + t + ", " + dims_list(dims) + ");");
  line("adlab_rt::copy_entries(fx.v, i64(" + std::to_string(n) + "), " + dst + "); }");
}

// gen over literal bounds: a Fixed written in place, sequentially (it has at most kFixedCap
// entries, far below the parallel threshold). "" when the gen does not qualify.
std::string Emitter::fixed_gen(const Gen& g, Expr self, const std::vector<std::int64_t>& dims) {
  if (result_gens.count(self.get())) return "";  // written into adlab's buffer instead
  const Type& bt = g.body->type;
  std::vector<std::int64_t> inner;
  if (bt.is_tuple() || (!bt.is_scalar() && !fixed_shape(bt, inner))) return "";
  if (g.dom.is_stored() || g.dom.vars.size() + inner.size() != dims.size()) return "";
  for (std::size_t k = 0; k < g.dom.bounds.size(); ++k)
    if (literal_int(g.dom.bounds[k]) != dims[k]) return "";
  const std::string et = elem_type(bt.elem);
  std::string r = declare_fixed("gen", et, dims);
  int s = site(self, "a generated element has shape dimension {a} where {b} was expected");
  ++parallel_depth;  // nested loops stay sequential, as under a parallel gen
  auto saved = names;
  auto saved_bounds = var_bound;  // scopes: an inner binder may shadow
  auto saved_dims = known_dims;
  std::vector<std::string> idx;
  for (std::size_t k = 0; k < g.dom.vars.size(); ++k) {
    std::string i = fresh(var_name(g.dom.vars[k]));
    line("for (i64 " + i + " = 0; " + i + " < " + std::to_string(dims[k]) + "; ++" + i + ") {");
    names[g.dom.vars[k].get()] = i;
    var_bound[g.dom.vars[k].get()] = g.dom.bounds[k];
    idx.push_back(i);
  }
  std::string block = fresh("blk");
  line("const i64 " + block + " = " + fixed_offset(fixed_[r], idx) + ";");
  if (bt.is_scalar()) {
    std::string v = scalar(g.body).v;
    line(r + ".v[" + block + "] = " + v + ";");
  } else {
    std::string v = value_any(g.body);
    fixed_assign(r + ".v + " + block, v, et, inner, s);
  }
  for (std::size_t k = 0; k < g.dom.vars.size(); ++k) line("}");
  names = saved;
  var_bound = saved_bounds;
  known_dims = saved_dims;
  --parallel_depth;
  return r;
}

// select of literal-shape tensors: only the chosen branch is evaluated, copied into one Fixed.
std::string Emitter::fixed_select(const Select& sel, Expr self,
                                  const std::vector<std::int64_t>& dims) {
  const std::string et = elem_type(self->type.elem);
  std::string c = index(sel.cond);
  std::string r = declare_fixed("sel", et, dims);
  int s = site(self, "a branch of `select` has shape dimension {a} where {b} was expected");
  line("if (" + c + ") {");
  fixed_assign(r + ".v", value_any(sel.then_value), et, dims, s);
  line("} else {");
  fixed_assign(r + ".v", value_any(sel.else_value), et, dims, s);
  line("}");
  return r;
}

// A dense row `A[i]` of literal shape, read in place through a pointer (no copy, no header), where
// A's trailing dimensions are proved equal to the row's: A is a Fixed, or its known dimensions
// (checked parameters, let-bound gens) are those literals. "" otherwise.
std::string Emitter::fixed_row(const Access& a, Expr self, const std::vector<std::int64_t>& dims) {
  const Type& tt = a.tensor->type;
  if (tt.is_tuple() || tt.storage != Storage::Dense || a.indices.empty() ||
      a.indices.size() + dims.size() != tt.dims.size())
    return "";
  const std::size_t k0 = a.indices.size();
  bool proved = false;
  if (a.tensor.as<Var>()) {
    auto it = names.find(a.tensor.get());
    if (it != names.end() && fixed_of(it->second)) proved = true;
    auto kd = known_dims.find(a.tensor.get());
    if (!proved && kd != known_dims.end() && kd->second.size() == tt.dims.size()) {
      proved = true;
      for (std::size_t d = 0; d < dims.size(); ++d)
        if (literal_int(kd->second[k0 + d]) != dims[d]) proved = false;
    }
  }
  if (!proved) return "";
  std::string t = tensor_operand(a.tensor, true);
  std::vector<std::string> keys;
  for (std::size_t k = 0; k < k0; ++k) {
    std::string i = fresh("i");
    line("const i64 " + i + " = " + index(a.indices[k]) + ";");
    keys.push_back(i);
  }
  const FixedRef* f = fixed_of(t);
  const std::string et = elem_type(tt.elem);
  std::int64_t inner = 1;
  for (auto d : dims) inner *= d;
  for (std::size_t k = 0; k < k0; ++k) {
    bool ok = f ? below_literal(a.indices[k], f->dims[k]) : in_range(a.indices[k], a.tensor, k);
    if (ok) continue;  // the loop bounds keep it in range
    int s = site(self, "index out of range: `" + expr_str(a.indices[k]) +
                           "` = {a} is outside [0, {b}) in `" + expr_str(self) + "` (dimension " +
                           std::to_string(k) + ")");
    std::string n =
        f ? "i64(" + std::to_string(f->dims[k]) + ")" : t + ".shape[" + std::to_string(k) + "]";
    line("adlab_rt::check(" + std::to_string(s) + ", " + keys[k] + ", " + n + ", " +
         std::to_string(k) + ");");
  }
  std::string base, off;
  if (f) {
    base = f->ptr;
    off = fixed_offset(*f, keys);
  } else {
    auto vp = view_ptr.find(t);
    base = vp != view_ptr.end() ? vp->second : t + ".p";
    off = keys[0];
    for (std::size_t k = 1; k < k0; ++k)
      off = "(" + off + ") * " + t + ".shape[" + std::to_string(k) + "] + " + keys[k];
    off = "(" + off + ") * " + std::to_string(inner);
  }
  std::string r = fresh("row");
  line("const " + et + "* const " + r + " = " + base + " + " + off + ";");
  fixed_[r] = FixedRef{et, dims, r};
  return r;
}

// Argument k of a call whose parameter has a literal shape: a pointer to its entries where a Fixed
// of that shape, a proved row or a dense variable of proved shape (true); otherwise a tensor's name
// (false), for fixed_call_check (the callee no longer checks).
std::pair<std::string, bool> Emitter::fixed_call_arg(Expr arg, const Function& callee,
                                                     std::size_t k) {
  const std::vector<std::int64_t>& dims = fixed_params_.at(&callee)[k];
  auto kd = known_dims.find(arg.get());
  if (arg.as<Var>() && arg->type.storage == Storage::Dense && !arg->type.is_tuple() &&
      kd != known_dims.end() && kd->second.size() == dims.size() &&
      !fixed_of(name_of(arg))) {  // a dense tensor variable whose shape is proved: its entries
    bool proved = true;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (literal_int(kd->second[d]) != dims[d]) proved = false;
    if (proved) {
      std::string n = name_of(arg);
      auto vp = view_ptr.find(n);
      return {vp != view_ptr.end() ? vp->second : n + ".p", true};
    }
  }
  std::string v = value_any(arg);
  const FixedRef* f = fixed_of(v);
  if (f && f->dims == dims) return {f->ptr, true};
  return {as_tensor(v), false};  // checked by fixed_call_check once every argument is evaluated
}

// A tensor argument for a parameter of literal shape: checked with the parameter's message, in
// parameter order after all arguments (as the interpreter checks a call), then copied.
std::string Emitter::fixed_call_check(const std::string& t, const Function& callee, std::size_t k) {
  const std::vector<std::int64_t>& dims = fixed_params_.at(&callee)[k];
  const Expr& p = callee.params[k];
  const std::string et = elem_type(p->type.elem);
  for (std::size_t d = 0; d < dims.size(); ++d) {
    int s =
        site(p, "shape mismatch: parameter `" + var_name(p) + "` dimension " + std::to_string(d) +
                    " is {a} but `" + expr_str(p->type.dims[d]) + "` = {b}");
    std::string dim = t + ".shape[" + std::to_string(d) + "]";
    line("if (" + dim + " != " + std::to_string(dims[d]) + ") adlab_rt::fail(" + std::to_string(s) +
         ", adlab_rt::kArg, " + dim + ", " + std::to_string(dims[d]) + ");");
  }
  std::string r = declare_fixed("farg", et, dims);
  line("adlab_rt::fixed_entries(" + t + ", i64(" + std::to_string(fixed_[r].numel()) + "), " + r +
       ".v);");
  return fixed_[r].ptr;
}

}  // namespace adlab::backends::cpu
