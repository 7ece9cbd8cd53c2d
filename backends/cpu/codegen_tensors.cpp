// IR -> C++ for the cpu backend: domains, gen, reductions, scan, loop and scatter (DESIGN 2.2,
// 2.3), with OpenMP on the outermost gen and sum and contractions sent to the Eigen kernels.
#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "backends/cpu/codegen_impl.h"
#include "ir/context.h"
#include "ir/int_arith.h"
#include "ir/logic/predicates.h"
#include "ir/syntax/printer.h"
#include "ir/visitor.h"

namespace adlab::backends::cpu {

using namespace ir;

namespace {
std::string braced(const std::vector<std::string>& xs) {
  std::string r = "{";
  for (std::size_t k = 0; k < xs.size(); ++k) r += (k ? ", " : "") + xs[k];
  return r + "}";
}
}  // namespace

// Loops over a rectangular domain (bounds evaluated where the interpreter evaluates them) or over
// the stored entries of a tensor, row-major.
void Emitter::open_domain(const Domain& d, Expr owner, Expr guard) {
  if (!d.is_stored()) {
    for (std::size_t k = 0; k < d.vars.size(); ++k) {
      std::string n = fresh("n"), i = fresh(var_name(d.vars[k]));
      line("const i64 " + n + " = " + index(d.bounds[k]) + ";");
      std::string lo = "i64(0)", hi = n;
      if (guard.defined()) narrow(d, k, guard, lo, hi);
      line("for (i64 " + i + " = " + lo + "; " + i + " < " + hi + "; ++" + i + ") {");
      names[d.vars[k].get()] = i;
      var_bound[d.vars[k].get()] = d.bounds[k];  // narrowing keeps lo >= 0 and hi <= n
    }
    return;
  }
  std::string t = tensor_operand(d.source);
  const Type& st = d.source->type;
  std::vector<std::string> prefix;
  for (std::size_t k = 0; k < d.prefix.size(); ++k) {
    std::string p = fresh("pre");
    line("const i64 " + p + " = " + index(d.prefix[k]) + ";");
    int s = site(owner, "index out of range: `" + expr_str(d.prefix[k]) +
                            "` = {a} is outside [0, {b}) in `" + expr_str(owner) + "` (dimension " +
                            std::to_string(k) + ")");
    line("adlab_rt::check(" + std::to_string(s) + ", " + p + ", " + t + ".shape[" +
         std::to_string(k) + "], " + std::to_string(k) + ");");
    prefix.push_back(p);
  }
  std::size_t k0 = prefix.size();
  if (st.storage == Storage::Csr && k0 <= 1) {  // direct loops over the compressed rows
    std::string r = fresh("row"), p = fresh("pos");
    if (k0 == 0)
      line("for (i64 " + r + " = 0; " + r + " < " + t + ".shape[0]; ++" + r + ") {");
    else
      line("{ const i64 " + r + " = " + prefix[0] + ";");
    line("for (i64 " + p + " = " + t + ".row_ptr[" + r + "]; " + p + " < " + t + ".row_ptr[" + r +
         " + 1]; ++" + p + ") {");
    if (k0 == 0) {
      std::string i = fresh(var_name(d.vars[0])), j = fresh(var_name(d.vars[1]));
      line("const i64 " + i + " = " + r + ";");
      line("const i64 " + j + " = " + t + ".col_idx[" + p + "];");
      names[d.vars[0].get()] = i;
      names[d.vars[1].get()] = j;
      var_bound.erase(d.vars[0].get());
      var_bound.erase(d.vars[1].get());
    } else {
      std::string j = fresh(var_name(d.vars[0]));
      line("const i64 " + j + " = " + t + ".col_idx[" + p + "];");
      names[d.vars[0].get()] = j;
      var_bound.erase(d.vars[0].get());
    }
    return;
  }
  std::string key = fresh("prefix");
  line("const i64 " + key + "[] = {" +
       (prefix.empty() ? std::string("0") : braced(prefix).substr(1)) +
       (prefix.empty() ? "};" : ";"));
  std::string kk = fresh("key");
  line("adlab_rt::for_each_stored(" + t + ", " + key + ", " + std::to_string(k0) +
       ", [&](const i64* " + kk + ", i64) {");
  for (std::size_t v = 0; v < d.vars.size(); ++v) {
    std::string i = fresh(var_name(d.vars[v]));
    line("const i64 " + i + " = " + kk + "[" + std::to_string(k0 + v) + "];");
    names[d.vars[v].get()] = i;
    var_bound.erase(d.vars[v].get());
  }
}

void Emitter::close_domain(const Domain& d) {
  if (!d.is_stored()) {
    for (std::size_t k = 0; k < d.vars.size(); ++k) line("}");
    return;
  }
  if (d.source->type.storage == Storage::Csr && d.prefix.size() <= 1) {
    line("}");
    line("}");
    return;
  }
  line("});");
}

// Loop-bound narrowing from affine brackets: v < e, v <= e, v > e, v >= e, v == e (either side)
// where e uses only earlier variables; `[i == j]` makes a one-point loop.
void Emitter::narrow(const Domain& d, std::size_t k, Expr guard, std::string& lo, std::string& hi) {
  Expr v = d.vars[k];
  std::vector<Expr> banned(d.vars.begin() + static_cast<std::ptrdiff_t>(k), d.vars.end());
  // A bound is computed at the loop head, also where the loop runs nothing or an outer bracket
  // is false: it may use only variables, literals and + - * whose ranges prove no overflow.
  std::function<bool(Expr)> safe = [&](Expr e) {
    if (e.as<Literal>()) return true;
    if (e.as<Var>()) return std::find(banned.begin(), banned.end(), e) == banned.end();
    auto* b = e.as<Binary>();
    if (!b || !(b->op == BinaryOp::Add || b->op == BinaryOp::Sub || b->op == BinaryOp::Mul))
      return false;
    return fits_i64(*b) && safe(b->a) && safe(b->b);
  };
  // Whether evaluating a conjunct can fail (a read, an i64 op not proved to fit, a division).
  std::function<bool(Expr)> cannot_fail = [&](Expr e) {
    if (e.as<Literal>() || e.as<Var>()) return true;
    if (auto* u = e.as<Unary>())
      return cannot_fail(u->a) && (u->op == UnaryOp::Not || is_float(u->a->type.elem) ||
                                   int_range(u->a).lo > std::numeric_limits<std::int64_t>::min());
    auto* b = e.as<Binary>();
    if (!b) return false;
    if (b->op == BinaryOp::Div || b->op == BinaryOp::Mod) {
      auto* lit = b->b.as<Literal>();
      if (!is_float(b->a->type.elem) && (!lit || !(lit->value >= 1))) return false;
    } else if (!is_float(b->a->type.elem) && is_int_arith(b->op) && !fits_i64(*b)) {
      return false;
    }
    return cannot_fail(b->a) && cannot_fail(b->b);
  };
  for (Expr c : logic::conjuncts(guard)) {  // in evaluation order
    // `&&` evaluates left to right: a conjunct that can fail must still run at every point it
    // ran at (where it fails in the interpreter), so no later conjunct narrows (an audit finding:
    // `[(2 - i) * k > 0 && i >= 2]` skipped the overflow at i = 0).
    auto* b = c.as<Binary>();
    if (!b || !is_comparison(b->op) || b->op == BinaryOp::Ne || is_float(b->a->type.elem)) {
      if (!cannot_fail(c)) break;
      continue;
    }
    BinaryOp op = b->op;
    Expr e;
    if (b->a == v && safe(b->b)) {
      e = b->b;
    } else if (b->b == v && safe(b->a)) {
      e = b->a;  // e op v: mirror the comparison
      op = op == BinaryOp::Lt   ? BinaryOp::Gt
           : op == BinaryOp::Gt ? BinaryOp::Lt
           : op == BinaryOp::Le ? BinaryOp::Ge
           : op == BinaryOp::Ge ? BinaryOp::Le
                                : op;
    } else {
      if (!cannot_fail(c)) break;
      continue;
    }
    std::string x = "(" + index(e) + ")";
    const std::string after = "adlab_rt::bound_after" + x;  // x + 1, saturated
    if (op == BinaryOp::Lt) hi = "std::min<i64>(" + hi + ", " + x + ")";
    if (op == BinaryOp::Le || op == BinaryOp::Eq) hi = "std::min<i64>(" + hi + ", " + after + ")";
    if (op == BinaryOp::Gt) lo = "std::max<i64>(" + lo + ", " + after + ")";
    if (op == BinaryOp::Ge || op == BinaryOp::Eq) lo = "std::max<i64>(" + lo + ", " + x + ")";
  }
  if (lo != "i64(0)" || hi.find("std::min") != std::string::npos) {
    std::string l = fresh("lo"), h = fresh("hi");
    line("const i64 " + l + " = " + lo + ";");
    line("const i64 " + h + " = " + hi + ";");
    lo = l;
    hi = h;
  }
}

// The zero of a type (a false bracket around a tensor or tuple).
std::string Emitter::zero_value(const Type& t, Expr at) {
  if (t.is_tuple()) {
    std::vector<std::string> fs;
    for (const auto& f : t.fields) {
      Type ft = f;
      ft.dims.insert(ft.dims.begin(), t.dims.begin(), t.dims.end());
      fs.push_back(zero_value(ft, at));
    }
    return ctype(t) + braced(fs);
  }
  if (t.dims.empty()) return is_float(t.elem) ? "T(0)" : "i64(0)";
  std::vector<std::string> dims;
  for (auto d : t.dims) dims.push_back(bound_dim(d, at, false));
  if (t.storage == Storage::Dense)
    return "adlab_rt::dense<" + elem_type(t.elem) + ">(" + braced(dims) + ")";
  return "adlab_rt::zero_sparse<" + elem_type(t.elem) + ">(" +
         (t.storage == Storage::Csr ? "adlab_rt::kCsr, " : "adlab_rt::kCoo, ") + braced(dims) + ")";
}

// tensor[keys...]: a scalar, a dense slice, or (an array of tuples) a tuple of them.
std::string Emitter::index_value(Expr tensor_expr, const std::string& v, const Type& t, Expr self,
                                 const std::vector<std::string>& keys,
                                 const std::vector<Expr>& idx) {
  if (t.is_tuple()) {
    std::vector<std::string> fs;
    for (std::size_t k = 0; k < t.fields.size(); ++k) {
      Type ft = t.fields[k];
      ft.dims.insert(ft.dims.begin(), t.dims.begin(), t.dims.end());
      std::string f = fresh("fld");
      line("const auto& " + f + " = std::get<" + std::to_string(k) + ">(" + v + ");");
      fs.push_back(index_value(tensor_expr, f, ft, self, keys, idx));
    }
    std::string r = fresh("tix");
    Type rt = self->type;
    line("const " + ctype(rt) + " " + r + braced(fs) + ";");
    return r;
  }
  if (keys.size() > t.dims.size())
    throw Unsupported(pos_of(self, source),
                      "cpu backend: too many indices in `" + expr_str(self) + "`");
  for (std::size_t k = 0; k < keys.size(); ++k) {
    int s =
        site(self, "index out of range: `" + expr_str(idx[k]) + "` = {a} is outside [0, {b}) in `" +
                       expr_str(self) + "` (dimension " + std::to_string(k) + ")");
    line("adlab_rt::check(" + std::to_string(s) + ", " + keys[k] + ", " + v + ".shape[" +
         std::to_string(k) + "], " + std::to_string(k) + ");");
  }
  std::string key = fresh("key"), r = fresh("ix");
  line("const i64 " + key + "[] = " + braced(keys.empty() ? std::vector<std::string>{"0"} : keys) +
       ";");
  if (keys.size() == t.dims.size())
    line("const " + elem_type(t.elem) + " " + r + " = adlab_rt::read(" + v + ", " + key + ");");
  else
    line("const adlab_rt::Tensor<" + elem_type(t.elem) + "> " + r + " = adlab_rt::slice(" + v +
         ", " + key + ", " + std::to_string(keys.size()) + ");");
  (void)tensor_expr;
  return r;
}

// Stores `item` (of IR type t) as block `block` of `out` (of matching structure).
namespace {
void store_item(Emitter& em, const std::string& out, const std::string& item, const Type& t,
                const std::string& block, int site) {
  if (t.is_tuple()) {
    for (std::size_t k = 0; k < t.fields.size(); ++k) {
      std::string g = "std::get<" + std::to_string(k) + ">";
      store_item(em, g + "(" + out + ")", g + "(" + item + ")", t.fields[k], block, site);
    }
    return;
  }
  em.line("adlab_rt::store(" + std::to_string(site) + ", " + out + ", " + block + ", " + item +
          ");");
}
// A zero tensor of the gen's structure: outer dims then each field's inner dims.
std::string alloc_result(Emitter& em, const Type& body, const std::vector<std::string>& outer,
                         Expr at) {
  if (body.is_tuple()) {  // struct of arrays, as the interpreter holds arrays of tuples
    std::vector<std::string> fs, types;
    for (const auto& f : body.fields) {
      Type field = f;  // an array of tuples: the tuple's own dims come before each field's
      field.dims.insert(field.dims.begin(), body.dims.begin(), body.dims.end());
      fs.push_back(alloc_result(em, field, outer, at));
      types.push_back(std::string("adlab_rt::Tensor<") + Emitter::elem_type(f.elem) + ">");
    }
    std::string r = "std::tuple<";
    for (std::size_t k = 0; k < types.size(); ++k) r += (k ? ", " : "") + types[k];
    return r + ">" + braced(fs);
  }
  std::vector<std::string> dims = outer;
  for (auto d : body.dims) dims.push_back(em.bound_dim(d, at, false));
  return "adlab_rt::dense<" + Emitter::elem_type(body.elem) + ">(" + braced(dims) + ")";
}
}  // namespace

std::string Emitter::gen(const Gen& g, Expr self) {
  std::string contracted;
  if (!contraction_off_ && try_contraction(g, self, contracted)) return contracted;
  std::vector<std::int64_t> fdims;
  if (fixed_shape(self->type, fdims)) {  // decision 127: a Fixed, no tensor header
    std::string f = fixed_gen(g, self, fdims);
    if (!f.empty()) return f;
  }
  std::vector<std::string> outer;
  for (auto b : g.dom.bounds) {
    std::string n = fresh("n");
    line("const i64 " + n + " = " + index(b) + ";");
    int s = site(b, "gen bound `" + expr_str(b) + "` is negative ({a})");
    line("if (" + n + " < 0) adlab_rt::fail(" + std::to_string(s) + ", adlab_rt::kNegative, " + n +
         ");");
    outer.push_back(n);
  }
  const Type& bt = g.body->type;
  for (const auto& f : bt.fields)
    if (f.is_tuple())
      throw Unsupported(pos_of(self, source), "cpu backend: nested tuples in a gen");
  std::string r = fresh("gen");
  auto res = result_gens.find(self.get());
  if (res != result_gens.end() && parallel_depth == 0 && !bt.is_tuple()) {
    std::vector<std::string> dims = outer;
    for (auto d : bt.dims) dims.push_back(bound_dim(d, self, false));
    line("auto " + r + " = adlab_rt::result_dense<T>(services, " + std::to_string(res->second) +
         ", " + braced(dims) + ");");
  } else {
    line("auto " + r + " = " + alloc_result(*this, bt, outer, self) + ";");
  }
  movable.insert(r);
  bool par = parallel_depth == 0;
  ++parallel_depth;
  std::string pf, region, work;
  if (par) {
    pf = fresh("pf");
    region = fresh("region");
    line("adlab_rt::ParallelFailure " + pf + ";");
    work = outer[0];
    for (std::size_t k = 1; k < outer.size(); ++k) work += " * " + outer[k];
    // One try per thread's chunk: a try inside the loop would keep it from being optimised.
    // The chunk is a lambda entered by a parallel region only above the threshold (decision 138).
    // `split`: inside the region just entered, this thread's share; otherwise the whole range
    // (chunk would split by an enclosing region's team if the unit ran inside one).
    line("auto " + region + " = [&](bool split) {");
  }
  auto saved = names;
  auto saved_bounds = var_bound;  // scopes: an inner binder may shadow
  auto saved_dims = known_dims;
  std::string block = fresh("blk");
  for (std::size_t k = 0; k < g.dom.vars.size(); ++k) {
    std::string i = fresh(var_name(g.dom.vars[k]));
    if (k == 0 && par) {
      line("i64 " + i + "_lo, " + i + "_hi;");
      line("if (split) adlab_rt::chunk(" + outer[0] + ", " + i + "_lo, " + i + "_hi);");
      line("else " + i + "_lo = 0, " + i + "_hi = " + outer[0] + ";");
      line("i64 " + i + " = " + i + "_lo;");
      line("try {");
      line("for (; " + i + " < " + i + "_hi; ++" + i + ") {");
    } else {
      line("for (i64 " + i + " = 0; " + i + " < " + outer[k] + "; ++" + i + ") {");
    }
    names[g.dom.vars[k].get()] = i;
    var_bound[g.dom.vars[k].get()] = g.dom.bounds[k];
  }
  std::string off = names[g.dom.vars[0].get()];
  for (std::size_t k = 1; k < outer.size(); ++k)
    off = "(" + off + ") * " + outer[k] + " + " + names[g.dom.vars[k].get()];
  line("const i64 " + block + " = " + off + ";");
  int s = site(self, "a generated element has shape dimension {a} where {b} was expected");
  if (bt.is_scalar()) {
    std::string v = scalar(g.body).v;
    line(r + ".w[" + block + "] = " + v + ";");
  } else {
    std::string v = value_any(g.body);
    std::vector<std::int64_t> inner;
    const FixedRef* f = fixed_of(v);
    if (f && fixed_shape(bt, inner) && f->dims == inner) {
      // r's blocks have bt's literal dims (r was made with them): copied with no shape check.
      line("adlab_rt::copy_entries(" + f->ptr + ", i64(" + std::to_string(f->numel()) + "), " + r +
           ".w + " + block + " * " + std::to_string(f->numel()) + ");");
    } else {
      v = as_tensor(v);
      std::string item = fresh("item");
      line("const " + ctype(bt) + "& " + item + " = " + v + ";");
      store_item(*this, r, item, bt, block, s);
    }
  }
  for (std::size_t k = g.dom.vars.size(); k-- > 0;) {
    line("}");
    if (k == 0 && par) {
      line("} catch (const adlab_rt::Failure& f) {");
      line(pf + ".note(" + names[g.dom.vars[0].get()] + ", f);");
      line("}");
      line("};");
      // Not `parallel if (cond)`: libgomp enters such a region even when cond is false and ends
      // it with a futex wake-up, a system call of about 1.5 us here (decision 138).
      line("if (" + work + " >= 2048) {");
      line("#pragma omp parallel");
      line(region + "(true);");
      line("} else {");
      line(region + "(false);");
      line("}");
    }
  }
  if (par) line(pf + ".rethrow();");
  names = saved;
  var_bound = saved_bounds;
  known_dims = saved_dims;
  --parallel_depth;
  return r;
}

// A reduction loop whose body (from body_from on) has no call that can throw, no inner loop and
// no callee runs as `omp simd` when `cond` holds (several partial sums: the order changes, as it
// does across threads); otherwise the marker line becomes a comment and the order is kept.
void Emitter::simd_reduction(const std::string& marker, std::size_t body_from,
                             const std::string& vars, const std::string& cond) {
  std::string text = body_.str();
  std::string loop_body = text.substr(body_from);
  bool plain = true;
  for (const char* bad : {"adlab_rt::", "fn_", "throw", "[&]", "for (", "while", "try", "goto"})
    if (loop_body.find(bad) != std::string::npos) plain = false;
  std::size_t head = text.rfind(marker + "@", body_from);
  std::size_t at = head == std::string::npos ? head : text.rfind(marker, head - 1);
  if (at == std::string::npos) return;
  text.replace(head, marker.size() + 1, plain ? "i64" : "");
  std::string repl = plain ? "#pragma omp simd reduction(+ : " + vars + ") if (simd : " + cond + ")"
                           : "// (no simd: the body can fail or loops)";
  text.replace(at, marker.size(), repl);
  body_.str("");
  body_ << text;
}

// sum/max/min: the reference's row-major order (sums at the top level run in parallel, with a
// tolerance the checker allows: DESIGN 2.3 compares sums by the sum of absolute terms).
Scalar Emitter::reduce(const Reduce& r, Expr self) {
  const bool fl = is_float(r.body->type.elem);
  const std::string et = elem_type(r.body->type.elem);
  if (r.op == ReduceOp::Prod)
    throw Unsupported(pos_of(self, source), "cpu backend: product reductions");
  auto saved = names;
  auto saved_bounds = var_bound;  // scopes: an inner binder may shadow
  auto saved_dims = known_dims;
  std::string acc = fresh("acc");
  if (r.op == ReduceOp::Sum) {
    std::string terms = acc + "_terms";
    line(et + " " + acc + " = " + et + "(0);");
    line("i64 " + terms + " = 0;");
    bool par = parallel_depth == 0 && !r.dom.is_stored() && fl;
    ++parallel_depth;
    std::string pf;
    if (par) {
      // The first bound is evaluated once outside the parallel region (it uses no index).
      pf = fresh("pf");
      std::string n = fresh("n"), i = fresh(var_name(r.dom.vars[0]));
      line("const i64 " + n + " = " + index(r.dom.bounds[0]) + ";");
      line("adlab_rt::ParallelFailure " + pf + ";");
      // The region is entered only above the threshold; below it the same block runs as plain
      // code (chunk gives this thread the whole range, as a one-thread region did), so results
      // are bit-identical. Not `parallel if (cond)`, which enters a region anyway (decision
      // 138), and not a lambda, which made dot's large sum ~10x slower (decision 147).
      line("if (" + n + " >= 65536) {");
      line("#pragma omp parallel reduction(+ : " + acc + ", " + terms + ")");
      const std::size_t block_from = body_.str().size();
      line("{");
      line("i64 " + i + "_lo, " + i + "_hi;");
      line("adlab_rt::chunk(" + n + ", " + i + "_lo, " + i + "_hi);");
      line("i64 " + i + " = " + i + "_lo;");
      line("try {");
      // Replaced by an `omp simd` pragma below when the body can neither throw nor loop.
      std::string marker = "//@simd " + acc;
      line(marker);
      // In the simd form the loop declares its own variable (an outer one makes GCC gather).
      line("for (" + marker + "@ " + i + " = " + i + "_lo; " + i + " < " + i + "_hi; ++" + i +
           ") {");
      std::size_t body_from = body_.str().size();
      names[r.dom.vars[0].get()] = i;
      var_bound[r.dom.vars[0].get()] = r.dom.bounds[0];
      Domain rest = r.dom;
      rest.vars.erase(rest.vars.begin());
      rest.bounds.erase(rest.bounds.begin());
      auto* guard = r.body.as<Iverson>();
      open_domain(rest, self, guard ? guard->pred : Expr());
      Scalar x = scalar(r.body);
      line(acc + " += " + x.v + ";");
      if (x.z != "false")
        line("if (!(" + x.z + ")) ++" + terms + ";");
      else
        line("++" + terms + ";");
      close_domain(rest);
      line("}");
      // decision 92: above the threshold the sum is split over threads and SIMD lanes.
      simd_reduction(marker, body_from, acc + ", " + terms, n + " >= 65536");
      line("} catch (const adlab_rt::Failure& f) {");
      line(pf + ".note(" + i + ", f);");
      line("}");
      line("}");
      std::string block = body_.str().substr(block_from);
      // The plain copy takes the whole range itself rather than from chunk (see gen above).
      const std::string split = "adlab_rt::chunk(" + n + ", " + i + "_lo, " + i + "_hi);";
      const std::size_t at = block.find(split);
      if (at == std::string::npos) throw std::logic_error("cpu codegen: sum block without chunk");
      block.replace(at, split.size(), i + "_lo = 0, " + i + "_hi = " + n + ";");
      line("} else {");
      body_ << block;
      line("}");
      line(pf + ".rethrow();");
    } else {
      auto* guard = r.body.as<Iverson>();
      open_domain(r.dom, self, guard && !r.dom.is_stored() ? guard->pred : Expr());
      Scalar x = scalar(r.body);
      if (fl) {
        line(acc + " += " + x.v + ";");
      } else {  // decision 181: an i64 sum fails where the interpreter's does
        int s = site(self,
                     "integer overflow in `" + expr_str(self) + "` (the sum does not fit in i64)");
        line(acc + " = adlab_rt::add_i64(" + std::to_string(s) + ", " + acc + ", " + x.v + ");");
      }
      if (x.z != "false")
        line("if (!(" + x.z + ")) ++" + terms + ";");
      else
        line("++" + terms + ";");
      close_domain(r.dom);
    }
    --parallel_depth;
    names = saved;
    var_bound = saved_bounds;
    known_dims = saved_dims;
    return {acc, fl ? "(" + terms + " == 0)" : "false"};
  }
  std::string any = acc + "_any";
  line(et + " " + acc + "{};");
  line("bool " + any + " = false;");
  ++parallel_depth;
  open_domain(r.dom, self);
  Scalar x = scalar(r.body);
  std::string xv = fresh("x");
  line("const " + et + " " + xv + " = " + x.v + ";");
  std::string better = r.op == ReduceOp::Max ? acc + " < " + xv : xv + " < " + acc;
  line("if (!" + any + " || " + better + ") " + acc + " = " + xv + ";");
  line(any + " = true;");
  close_domain(r.dom);
  --parallel_depth;
  int s = site(self, std::string(op_name(r.op)) + " over an empty range has no value");
  line("if (!" + any + ") adlab_rt::fail(" + std::to_string(s) + ", adlab_rt::kEmpty);");
  names = saved;
  var_bound = saved_bounds;
  known_dims = saved_dims;
  return {acc};
}

std::string Emitter::scan(const Scan& s, Expr self) {
  if (s.dom.is_stored() || s.dom.vars.size() != 1)
    throw Unsupported(pos_of(self, source),
                      "cpu backend: scan over a stored or multi-dimensional domain");
  const std::string et = elem_type(s.body->type.elem);
  std::string n = fresh("n"), r = fresh("scan"), acc = fresh("acc"),
              i = fresh(var_name(s.dom.vars[0]));
  line("const i64 " + n + " = " + index(s.dom.bounds[0]) + ";");
  int st = site(s.dom.bounds[0], "scan bound is negative");
  line("if (" + n + " < 0) adlab_rt::fail(" + std::to_string(st) + ", adlab_rt::kNegative, " + n +
       ");");
  line("auto " + r + " = adlab_rt::dense<" + et + ">({" + n + "});");
  movable.insert(r);
  line(et + " " + acc + "{};");
  auto saved = names;
  auto saved_bounds = var_bound;  // scopes: an inner binder may shadow
  auto saved_dims = known_dims;
  ++parallel_depth;
  line("for (i64 " + i + " = 0; " + i + " < " + n + "; ++" + i + ") {");
  names[s.dom.vars[0].get()] = i;
  var_bound[s.dom.vars[0].get()] = s.dom.bounds[0];
  Scalar x = scalar(s.body);
  std::string xv = fresh("x");
  line("const " + et + " " + xv + " = " + x.v + ";");
  std::string comb;
  const bool fl = is_float(s.body->type.elem);
  int overflow = fl ? -1
                    : site(s.body, "integer overflow in the scan `" + expr_str(s.body) +
                                       "` (the running value does not fit in i64)");
  switch (s.op) {
    case ReduceOp::Sum:  // i64 (+) and (*) scans fail where the interpreter's do (decision 181)
      comb = fl ? acc + " + " + xv
                : "adlab_rt::add_i64(" + std::to_string(overflow) + ", " + acc + ", " + xv + ")";
      break;
    case ReduceOp::Prod:
      comb = fl ? acc + " * " + xv
                : "adlab_rt::mul_i64(" + std::to_string(overflow) + ", " + acc + ", " + xv + ")";
      break;
    case ReduceOp::Max:
      comb = "(" + acc + " < " + xv + " ? " + xv + " : " + acc + ")";
      break;
    default:
      comb = "(" + xv + " < " + acc + " ? " + xv + " : " + acc + ")";
  }
  line(acc + " = " + i + " == 0 ? " + xv + " : " + et + "(" + comb + ");");
  line(r + ".w[" + i + "] = " + acc + ";");
  line("}");
  --parallel_depth;
  names = saved;
  var_bound = saved_bounds;
  known_dims = saved_dims;
  return r;
}

std::string Emitter::loop(const Loop& l, Expr self) {
  if (l.dom.is_stored() || l.dom.vars.size() != 1)
    throw Unsupported(pos_of(self, source),
                      "cpu backend: loop over a stored or multi-dimensional domain");
  std::vector<std::string> inits;
  for (auto i : l.init) {
    std::string n = fresh("init");
    line("const auto " + n + " = " + value(i) + ";");
    inits.push_back(n);
  }
  auto saved = names;
  auto saved_bounds = var_bound;  // scopes: an inner binder may shadow
  auto saved_dims = known_dims;
  std::vector<std::string> st;
  for (std::size_t k = 0; k < l.state.size(); ++k) {
    std::string n = fresh(var_name(l.state[k]));
    line(ctype(l.state[k]->type) + " " + n + " = " + inits[k] + ";");
    names[l.state[k].get()] = n;
    var_bound.erase(l.state[k].get());
    known_dims.erase(l.state[k].get());
    st.push_back(n);
  }
  std::string n = fresh("n"), t = fresh(var_name(l.dom.vars[0]));
  line("const i64 " + n + " = " + index(l.dom.bounds[0]) + ";");
  ++parallel_depth;
  line("for (i64 " + t + " = 0; " + t + " < " + n + "; ++" + t + ") {");
  names[l.dom.vars[0].get()] = t;
  var_bound[l.dom.vars[0].get()] = l.dom.bounds[0];
  std::string nx = fresh("next");
  line("auto " + nx + " = " + value(l.body) + ";");
  if (st.size() == 1) {
    line(st[0] + " = std::move(" + nx + ");");
  } else {
    for (std::size_t k = 0; k < st.size(); ++k)
      line(st[k] + " = std::move(std::get<" + std::to_string(k) + ">(" + nx + "));");
  }
  line("}");
  --parallel_depth;
  std::string r = fresh("loop");
  movable.insert(r);
  if (st.size() == 1)
    line(ctype(self->type) + " " + r + " = std::move(" + st[0] + ");");
  else
    line(ctype(self->type) + " " + r + braced(st) + ";");
  names = saved;
  var_bound = saved_bounds;
  known_dims = saved_dims;
  return r;
}

// scatter: contributions added in the reference's order; one under a false bracket is skipped
// with no bounds check (DESIGN 2.3). A @coo result stores exactly the keys produced.
std::string Emitter::scatter(const Scatter& s, Expr self) {
  const Type& t = s.type;
  const bool fl = is_float(t.elem);
  const std::string et = elem_type(t.elem);
  std::vector<std::string> shape;
  for (auto d : t.dims) shape.push_back(bound_dim(d, self, true));
  if (t.storage == Storage::Csr)
    throw Unsupported(pos_of(self, source), "cpu backend: @csr scatter targets");
  bool coo = t.storage == Storage::Coo;
  if (s.at.empty()) throw Unsupported(pos_of(self, source), "cpu backend: rank-0 scatter targets");
  if (coo && !fl)
    throw Unsupported(pos_of(self, source), "cpu backend: integer @coo scatter targets");
  std::string r = fresh("sc"), acc = fresh("coo");
  if (coo)
    line("std::map<std::vector<i64>, T> " + acc + ";");
  else
    line("auto " + r + " = adlab_rt::dense<" + et + ">(" + braced(shape) + ");");
  movable.insert(r);
  auto saved = names;
  auto saved_bounds = var_bound;  // scopes: an inner binder may shadow
  auto saved_dims = known_dims;
  ++parallel_depth;
  open_domain(s.dom, self);
  line("do {");
  // The target indices, each bound to a local and bounds-checked with the interpreter's message.
  auto checked_keys = [&] {
    std::vector<std::string> keys;
    for (std::size_t k = 0; k < s.at.size(); ++k) {
      std::string kv = fresh("at");
      line("const i64 " + kv + " = " + index(s.at[k]) + ";");
      int st = site(self, "index out of range: `" + expr_str(s.at[k]) +
                              "` = {a} is outside [0, {b}) in `" + expr_str(self) +
                              "` (dimension " + std::to_string(k) + ")");
      line("adlab_rt::check(" + std::to_string(st) + ", " + kv + ", " + shape[k] + ", " +
           std::to_string(k) + ");");
      keys.push_back(kv);
    }
    return keys;
  };
  if (fl) {
    Scalar x = scalar(s.value);
    std::string xv = fresh("x");
    line("const T " + xv + " = " + x.v + ";");
    if (x.z != "false") line("if ((" + x.z + ") && " + xv + " == T(0)) break;");
    std::vector<std::string> keys = checked_keys();
    if (coo) {
      line("{ auto it = " + acc + ".emplace(std::vector<i64>" + braced(keys) + ", " + xv + ");");
      line("if (!it.second) it.first->second += " + xv + "; }");
    } else {
      std::string off = keys[0];
      for (std::size_t k = 1; k < keys.size(); ++k)
        off = "(" + off + ") * " + shape[k] + " + " + keys[k];
      line(r + ".w[" + off + "] += " + xv + ";");
    }
  } else {
    Expr value = s.value;
    if (auto* guard = value.as<Iverson>()) {
      line("if (!(" + index(guard->pred) + ")) break;");
    }
    std::string xv = fresh("x");
    line("const i64 " + xv + " = " + index(value) + ";");
    std::vector<std::string> keys = checked_keys();
    std::string off = keys[0];
    for (std::size_t k = 1; k < keys.size(); ++k)
      off = "(" + off + ") * " + shape[k] + " + " + keys[k];
    int st = site(
        self, "integer overflow in `" + expr_str(self) + "` (an entry's sum does not fit in i64)");
    line(r + ".w[" + off + "] = adlab_rt::add_i64(" + std::to_string(st) + ", " + r + ".w[" + off +
         "], " + xv + ");");
  }
  line("} while (false);");
  close_domain(s.dom);
  --parallel_depth;
  names = saved;
  var_bound = saved_bounds;
  known_dims = saved_dims;
  if (coo) {
    line("auto " + r + " = adlab_rt::zero_sparse<T>(adlab_rt::kCoo, " + braced(shape) + ");");
    line("for (const auto& [k, v] : " + acc + ") {");
    line(r + ".owned().own_a.insert(" + r + ".owned().own_a.end(), k.begin(), k.end());");
    line(r + ".owned().own.push_back(v);");
    line("}");
    line(r + ".nnz = static_cast<i64>(" + r + ".owned().own.size());");
    line(r + ".repoint();");
  }
  return r;
}

}  // namespace adlab::backends::cpu

namespace adlab::backends::cpu {
// Matrix-matrix and matrix-vector products of dense f64 variables go to the Eigen kernels:
// gen[i < n, j < m] sum[k < p] A[i, k] * B[k, j] and gen[i < n] sum[k < p] A[i, k] * x[k]
// (either operand order). Where the shapes do not match the bounds, the loops run instead.
bool Emitter::try_contraction(const ir::Gen& g, Expr self, std::string& out) {
  if (g.dom.vars.size() != 1 && g.dom.vars.size() != 2) return false;
  auto* r = g.body.as<Reduce>();
  if (!r || r->op != ReduceOp::Sum || r->dom.is_stored() || r->dom.vars.size() != 1) return false;
  auto* m = r->body.as<Binary>();
  if (!m || m->op != BinaryOp::Mul) return false;
  auto dense_var = [](Expr t, std::size_t rank) {
    return t.as<Var>() && t->type.storage == Storage::Dense && t->type.elem == ElemType::F64 &&
           !t->type.is_tuple() && t->type.rank() == rank;
  };
  auto* a = m->a.as<Access>();
  auto* b = m->b.as<Access>();
  if (!a || !b) return false;
  Expr i = g.dom.vars[0], k = r->dom.vars[0];
  bool matrix = g.dom.vars.size() == 2;
  auto is_row = [&](const Access* x) {  // A[i, k]
    return dense_var(x->tensor, 2) && x->indices.size() == 2 && x->indices[0] == i &&
           x->indices[1] == k;
  };
  auto is_rhs = [&](const Access* x) {  // B[k, j] or x[k]
    if (matrix)
      return dense_var(x->tensor, 2) && x->indices.size() == 2 && x->indices[0] == k &&
             x->indices[1] == g.dom.vars[1];
    return dense_var(x->tensor, 1) && x->indices.size() == 1 && x->indices[0] == k;
  };
  if (!(is_row(a) && is_rhs(b))) {
    std::swap(a, b);
    if (!(is_row(a) && is_rhs(b))) return false;
  }
  if (!names.count(a->tensor.get()) || !names.count(b->tensor.get())) return false;
  if (fixed_of(name_of(a->tensor)) || fixed_of(name_of(b->tensor))) return false;  // no header
  // A triangular bound (k's bound using i or j) is not a product.
  std::vector<Expr> work{r->dom.bounds[0]};
  while (!work.empty()) {
    Expr e = work.back();
    work.pop_back();
    if (e == i || (matrix && e == g.dom.vars[1])) return false;
    for (auto c : children(e)) work.push_back(c);
  }
  std::string A = name_of(a->tensor), B = name_of(b->tensor);
  std::string n = fresh("n"), p = fresh("p"), res = fresh("mm"), done = res + "_done";
  line("const i64 " + n + " = " + index(g.dom.bounds[0]) + ";");
  std::string mcols;
  if (matrix) {
    mcols = fresh("m");
    line("const i64 " + mcols + " = " + index(g.dom.bounds[1]) + ";");
  }
  line("const i64 " + p + " = " + index(r->dom.bounds[0]) + ";");
  line("adlab_rt::Tensor<T> " + res + ";");
  movable.insert(res);
  line("bool " + done + " = false;");
  line("if (adlab_rt::kernel_type<T>) {");
  std::string fits =
      A + ".shape[0] == " + n + " && " + A + ".shape[1] == " + p + " && " + B + ".shape[0] == " + p;
  if (matrix) fits += " && " + B + ".shape[1] == " + mcols;
  line("if (services && " + n + " >= 0 && " + p + " >= 0" +
       (matrix ? " && " + mcols + " >= 0" : "") + " && " + fits + ") {");
  auto rg = result_gens.find(self.get());
  std::string alloc =
      rg != result_gens.end() && parallel_depth == 0
          ? "adlab_rt::result_dense<T>(services, " + std::to_string(rg->second) + ", "
          : std::string("adlab_rt::dense<T>(");
  if (matrix) {
    line(res + " = " + alloc + "{" + n + ", " + mcols + "});");
    line("adlab_rt::gemm(services, " + A + ".p, " + B + ".p, " + res + ".w, " + n + ", " + p +
         ", " + mcols + ");");
  } else {
    line(res + " = " + alloc + "{" + n + "});");
    line("adlab_rt::gemv(services, " + A + ".p, " + B + ".p, " + res + ".w, " + n + ", " + p +
         ");");
  }
  line(done + " = true;");
  line("}");
  line("}");
  line("if (!" + done + ") {");
  contraction_off_ = true;
  std::string loops = gen(g, self);
  contraction_off_ = false;
  line(res + " = std::move(" + loops + ");");
  line("}");
  out = res;
  return true;
}

}  // namespace adlab::backends::cpu
