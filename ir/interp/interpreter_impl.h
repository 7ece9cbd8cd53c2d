// Template definitions of the reference interpreter; included only by its instantiation units.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "ir/context.h"
#include "ir/int_arith.h"
#include "ir/interp/interpreter.h"
#include "ir/interp/scalar.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"
#include "ir/visitor.h"

namespace adlab::ir {

template <class T>
Value<T> value_from_tensor(const BasicTensor<T>& t) {
  if (t.rank() == 0 && t.storage == Storage::Dense) {
    if (is_float(t.elem)) {
      if (t.values.size() != 1) throw Error("a scalar tensor must hold exactly one value");
      return Value<T>::of_float(t.values[0]);
    }
    if (t.ints.size() != 1) throw Error("a scalar tensor must hold exactly one value");
    return Value<T>::of_int(t.ints[0]);
  }
  return Value<T>::of_tensor(t);
}

template <class T>
struct Interpreter<T>::Impl {
  using V = Value<T>;
  using Tensor = BasicTensor<T>;

  EvalOptions options;
  OpCounts counts;
  std::vector<V> env;  // indexed by Var id
  bool zero = false;   // the last scalar() result was a strong zero (a false bracket)
  const Function* current_fn = nullptr;  // the function being run (its parameters are the inputs)
  std::uint32_t source = 0;  // the parse of the function being run: errors cite its positions
  // Var ids bound inside each callee (saved and restored around calls: no recursion exists,
  // but a callee's names may coincide with the caller's).
  std::unordered_map<const Function*, std::vector<std::uint32_t>> bound_ids;
  std::map<std::string, std::int64_t> last_sizes;
  KinkReport kink;

  // Records a non-smooth switch at relative distance `margin` (DESIGN 4.2 "kinks").
  void note_kink(double margin, Expr at, const char* what) {
    if (options.kink_nodes && !options.kink_nodes->count(at.get())) return;
    if (margin < kink.margin) {
      kink.margin = margin;
      kink.where = at;
      kink.what = what;
    }
  }
  // Folds one non-smooth decision into the branch hash (KinkReport::branches).
  void note_branch(std::int64_t decision) { fold(kink.branches, decision); }
  // Whether a branch point's base is exactly 0 (KinkReport::branch_points).
  // The node named in the note is one the differentiated inputs can move (EvalOptions::
  // kink_nodes): a constant sqrt(f64(n) - 3.0) at n = 3 was named instead (decision 254).
  void note_branch_point(bool at_zero, Expr at) {
    fold(kink.branch_points, at_zero);
    if (at_zero && !kink.branch_point.defined() &&
        (!options.kink_nodes || options.kink_nodes->count(at.get())))
      kink.branch_point = at;
  }
  void note_second_order_branch_point(bool at_zero) {
    fold(kink.second_order_branch_points, at_zero);
  }
  static void fold(std::uint64_t& hash, std::int64_t decision) {
    hash = (hash ^ static_cast<std::uint64_t>(decision)) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  }
  static double rel_gap(const T& a, const T& b) {
    double x = math::to_double(a), y = math::to_double(b);
    return std::fabs(x - y) / std::max({1.0, std::fabs(x), std::fabs(y)});
  }
  // Whether an exact tie of a and b is a real kink: an input value (a parameter, or a read of
  // one) against a constant. Other exact ties are, in practice, a value compared with itself or
  // with a constant state (a fold's first step), where the branches agree.
  bool real_tie(Expr a, Expr b) const {
    auto is_input = [&](Expr e) {
      while (auto* acc = e.as<Access>()) e = acc->tensor;
      return current_fn && std::find(current_fn->params.begin(), current_fn->params.end(), e) !=
                               current_fn->params.end();
    };
    return (is_input(a) && b.as<Literal>()) || (is_input(b) && a.as<Literal>());
  }

  static double integer_gap(const T& a, double offset) {
    double x = math::to_double(a) - offset;
    return std::fabs(x - std::round(x)) / std::max(1.0, std::fabs(x));
  }

  explicit Impl(EvalOptions o) : options(std::move(o)) {}

  // The rounding probe (EvalOptions::rounding_probe): one relative perturbation of +-2^-53.
  std::uint64_t probe_state = 0;
  T probed(T v) {
    if constexpr (std::is_same_v<T, mp50>) {
      if (options.rounding_probe == 0) return v;
      probe_state += 0x9e3779b97f4a7c15ULL;  // splitmix64
      std::uint64_t z = probe_state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      z ^= z >> 31;
      static const mp50 kUp = 1 + mp50(0x1p-53), kDown = 1 - mp50(0x1p-53);
      return v * ((z & 1) ? kUp : kDown);
    } else {
      return v;
    }
  }

  // acc += x, with the probe's rounding unless acc was 0 (0 + x is exact); plain += for every
  // scalar type but mp50, so a scatter in double pays nothing for the probe.
  void add_into(T& acc, const T& x) {
    if constexpr (std::is_same_v<T, mp50>) {
      const bool exact = acc == T(0);
      acc += x;
      if (!exact) acc = probed(acc);
    } else {
      acc += x;
    }
  }

  // ---- errors ----
  [[noreturn]] void fail(Expr at, const std::string& msg) {
    auto ps = Context::current().positions(at, source);
    if (ps.empty()) ps = Context::current().positions(at);
    std::vector<std::string> notes;
    for (std::size_t k = 1; k < ps.size() && k < 4; ++k) notes.push_back("also at " + ps[k].str());
    throw Error(ps.empty() ? SourcePos{} : ps[0], msg, notes);
  }

  // ---- environment ----
  V& slot(Expr v) {
    auto id = v->id;
    if (id >= env.size()) env.resize(std::max<std::size_t>(id + 1, Context::current().num_vars()));
    return env[id];
  }
  void set(Expr v, V x) { slot(v) = std::move(x); }
  // let x = v, or let (x, y) = v (a tuple destructured).
  void bind(const std::vector<Expr>& vars, V v) {
    if (vars.size() == 1) {
      set(vars[0], std::move(v));
      return;
    }
    for (std::size_t k = 0; k < vars.size(); ++k) set(vars[k], v.field(k));
  }

  // ---- shapes ----
  // A dimension's value; a division in it must be exact (SYNTAX.md "Index expressions").
  std::int64_t dim_value(Expr d, Expr at) {
    if (auto* b = d.as<Binary>()) {
      if (b->op == BinaryOp::Div) {
        std::int64_t x = dim_value(b->a, at), y = dim_value(b->b, at);
        if (y > 0 && x % y != 0)
          fail(at, "the dimension `" + expr_str(d) + "` is not an exact division (" +
                       std::to_string(x) + " / " + std::to_string(y) + ")");
      } else if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub || b->op == BinaryOp::Mul) {
        dim_value(b->a, at);
        dim_value(b->b, at);
      }
    }
    return index(d);
  }

  // `exact`: a declared dimension (parameter, result, scatter target), where a division must be
  // exact; iteration bounds and the shapes derived from them use floor division.
  std::vector<std::int64_t> eval_dims(const Type& t, bool exact = false) {
    std::vector<std::int64_t> ds;
    for (auto d : t.dims) {
      std::int64_t n = exact ? dim_value(d, d) : index(d);
      if (n < 0) fail(d, "dimension `" + expr_str(d) + "` is negative (" + std::to_string(n) + ")");
      ds.push_back(n);
    }
    return ds;
  }
  // The number of entries; a shape whose product overflows is an error (UBSan found gen bounds of
  // 2^32 x 2^32 wrapping around), not a wrapped count.
  static std::int64_t product(const std::vector<std::int64_t>& ds, std::size_t from = 0) {
    std::int64_t n = 1;
    for (std::size_t k = from; k < ds.size(); ++k)
      if (__builtin_mul_overflow(n, ds[k], &n))
        throw Error("a tensor of shape " + shape_str(ds) + " has more than 2^63 entries");
    return n;
  }

  // A zero value of type t (the value of a false bracket around a tensor or tuple).
  V zero_value(const Type& t) {
    if (t.is_tuple()) {
      std::vector<V> fs;
      for (const auto& f : t.fields) {
        Type ft = f;
        ft.dims.insert(ft.dims.begin(), t.dims.begin(), t.dims.end());
        fs.push_back(zero_value(ft));
      }
      return V::of_tuple(std::move(fs));
    }
    if (t.dims.empty()) return is_float(t.elem) ? V::of_float(T(0)) : V::of_int(0);
    Tensor z;
    z.elem = t.elem;
    z.shape = eval_dims(t);
    z.storage = t.storage == Storage::Csr ? Storage::Csr : t.storage;
    if (z.storage == Storage::Dense) {
      if (is_float(t.elem))
        z.values.assign(static_cast<std::size_t>(product(z.shape)), T(0));
      else
        z.ints.assign(static_cast<std::size_t>(product(z.shape)), 0);
    } else if (z.storage == Storage::Csr) {
      z.row_ptr.assign(static_cast<std::size_t>(z.shape[0] + 1), 0);
    }
    return V::of_tensor(std::move(z));
  }

  // ---- tensor reads ----
  std::int64_t checked_index(Expr access, Expr idx_expr, std::int64_t i, std::int64_t n,
                             std::size_t dim) {
    if (i < 0 || i >= n)
      fail(access.defined() ? access : idx_expr,
           "index out of range: `" + expr_str(idx_expr) + "` = " + std::to_string(i) +
               " is outside [0, " + std::to_string(n) + ") in `" + expr_str(access) +
               "` (dimension " + std::to_string(dim) + ")");
    return i;
  }

  // Position of (r, c) among the stored entries of a CSR tensor, or -1.
  static std::int64_t csr_find(const Tensor& t, std::int64_t r, std::int64_t c) {
    auto b = t.col_idx.begin() + t.row_ptr[static_cast<std::size_t>(r)];
    auto e = t.col_idx.begin() + t.row_ptr[static_cast<std::size_t>(r) + 1];
    auto it = std::lower_bound(b, e, c);
    return it != e && *it == c ? it - t.col_idx.begin() : -1;
  }
  // Position of a full key among the stored entries of a COO tensor, or -1.
  static std::int64_t coo_find(const Tensor& t, const std::int64_t* key) {
    std::size_t rank = t.shape.size();
    std::int64_t lo = 0, hi = static_cast<std::int64_t>(t.values.size());
    while (lo < hi) {
      std::int64_t mid = (lo + hi) / 2;
      const std::int64_t* k = &t.coords[static_cast<std::size_t>(mid) * rank];
      if (std::lexicographical_compare(k, k + rank, key, key + rank))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < static_cast<std::int64_t>(t.values.size()) &&
        std::equal(key, key + rank, &t.coords[static_cast<std::size_t>(lo) * rank]))
      return lo;
    return -1;
  }

  // The value of tensor expression `te` (a Var: no copy).
  const V& operand(Expr te, V& holder) {
    if (te->kind == NodeKind::Var) return slot(te);
    holder = eval(te);
    return holder;
  }

  // Evaluates all indices of an access, bounds-checked against the tensor's shape.
  void eval_indices(Expr access, const std::vector<Expr>& idx,
                    const std::vector<std::int64_t>& shape, std::int64_t* out) {
    for (std::size_t k = 0; k < idx.size(); ++k)
      out[k] = checked_index(access, idx[k], index(idx[k]), shape[k], k);
  }

  // A full read of one element (float tensors give `f`, integer ones `i`).
  template <bool kFloat>
  auto read_element(const Tensor& t, const std::int64_t* key) {
    if (t.storage == Storage::Dense) {
      std::int64_t off = 0;
      for (std::size_t k = 0; k < t.shape.size(); ++k) off = off * t.shape[k] + key[k];
      if constexpr (kFloat)
        return t.values[static_cast<std::size_t>(off)];
      else
        return t.ints[static_cast<std::size_t>(off)];
    } else {
      std::int64_t p = t.storage == Storage::Csr ? csr_find(t, key[0], key[1]) : coo_find(t, key);
      if constexpr (kFloat)
        return p < 0 ? T(0) : t.values[static_cast<std::size_t>(p)];
      else
        return p < 0 ? std::int64_t{0} : t.ints[static_cast<std::size_t>(p)];
    }
  }

  // A sub-tensor: the first k indices fixed (a dense copy; sparse rows are densified).
  Tensor slice(const Tensor& t, const std::int64_t* key, std::size_t k) {
    Tensor r;
    r.elem = t.elem;
    r.shape.assign(t.shape.begin() + static_cast<std::ptrdiff_t>(k), t.shape.end());
    std::int64_t inner = product(r.shape);
    if (t.storage == Storage::Dense) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < k; ++d) off = off * t.shape[d] + key[d];
      off *= inner;
      if (is_float(t.elem))
        r.values.assign(t.values.begin() + off, t.values.begin() + off + inner);
      else
        r.ints.assign(t.ints.begin() + off, t.ints.begin() + off + inner);
      return r;
    }
    r.values.assign(static_cast<std::size_t>(inner), T(0));
    for_each_stored(t, key, k, [&](const std::int64_t* full, std::size_t pos) {
      std::int64_t off = 0;
      for (std::size_t d = k; d < t.shape.size(); ++d) off = off * t.shape[d] + full[d];
      r.values[static_cast<std::size_t>(off)] = t.values[pos];
    });
    return r;
  }

  // Calls fn(key, position) for every stored entry whose first k coordinates equal prefix.
  template <class F>
  void for_each_stored(const Tensor& t, const std::int64_t* prefix, std::size_t k, F&& fn) {
    std::size_t rank = t.shape.size();
    std::vector<std::int64_t> key(rank);
    if (t.storage == Storage::Csr) {
      std::int64_t r0 = k >= 1 ? prefix[0] : 0, r1 = k >= 1 ? prefix[0] + 1 : t.shape[0];
      for (std::int64_t r = r0; r < r1; ++r) {
        for (auto p = t.row_ptr[static_cast<std::size_t>(r)];
             p < t.row_ptr[static_cast<std::size_t>(r) + 1]; ++p) {
          key[0] = r;
          key[1] = t.col_idx[static_cast<std::size_t>(p)];
          if (k == 2 && key[1] != prefix[1]) continue;
          fn(key.data(), static_cast<std::size_t>(p));
        }
      }
    } else if (t.storage == Storage::Coo) {
      std::size_t nnz = t.values.size();
      for (std::size_t p = 0; p < nnz; ++p) {
        const std::int64_t* c = &t.coords[p * rank];
        if (!std::equal(prefix, prefix + k, c)) continue;
        fn(c, p);
      }
    } else {  // dense: every entry is stored
      std::int64_t n = product(t.shape, k);
      std::copy(prefix, prefix + k, key.begin());
      std::int64_t base = 0;
      for (std::size_t d = 0; d < k; ++d) base = base * t.shape[d] + prefix[d];
      base *= n;
      for (std::int64_t q = 0; q < n; ++q) {
        std::int64_t rem = q;
        for (std::size_t d = rank; d-- > k;) {
          key[d] = rem % t.shape[d];
          rem /= t.shape[d];
        }
        fn(key.data(), static_cast<std::size_t>(base + q));
      }
    }
  }

  // ---- iteration over domains ----
  // Calls body() at every point of the domain with its variables bound; returns the count.
  template <class F>
  void iterate(const Domain& d, Expr owner, F&& each) {
    auto body = [&] {
      if (options.count_ops) ++counts.iterations;
      each();
    };
    if (d.is_stored()) {
      V holder;
      const V& src = operand(d.source, holder);
      if (!src.is_tensor()) fail(owner, "stored-entry iteration needs a tensor");
      const Tensor& t = *src.t;
      std::vector<std::int64_t> prefix(d.prefix.size());
      for (std::size_t k = 0; k < d.prefix.size(); ++k)
        prefix[k] = checked_index(owner, d.prefix[k], index(d.prefix[k]), t.shape[k], k);
      std::size_t k0 = d.prefix.size();
      for_each_stored(t, prefix.data(), k0, [&](const std::int64_t* key, std::size_t) {
        for (std::size_t v = 0; v < d.vars.size(); ++v) slot(d.vars[v]) = V::of_int(key[k0 + v]);
        body();
      });
      return;
    }
    iterate_rect(d, 0, body);
  }

  template <class F>
  void iterate_rect(const Domain& d, std::size_t k, F& body) {
    if (k == d.vars.size()) {
      body();
      return;
    }
    std::int64_t n = index(d.bounds[k]);
    V& v = slot(d.vars[k]);
    v = V::of_int(0);
    for (std::int64_t i = 0; i < n; ++i) {
      // The body may grow env (a callee's variables), so re-find the slot after each point.
      slot(d.vars[k]).i = i;
      iterate_rect(d, k + 1, body);
    }
  }

  // ---- evaluation ----
  V eval(Expr e);  // eval_node, with a failed allocation or a position-less error placed at e
  V eval_node(Expr e);
  T scalar(Expr e);
  std::int64_t index(Expr e);
  bool truth(Expr e) { return index(e) != 0; }
  V eval_access(const Access& a, Expr self);
  V eval_gen(const Gen& g);
  V eval_scan(const Scan& s);
  V eval_loop(const Loop& l);
  V eval_scatter(const Scatter& s, Expr self);
  V eval_call(const Call& c, Expr self);
  V eval_proj(const Proj& p);
  T reduce_float(const Reduce& r, Expr self);
  std::int64_t reduce_int(const Reduce& r, Expr self);
  std::vector<V> run(const Function& f, const std::vector<V>& args);
  void bind_params(const Function& f, const std::vector<V>& args);
  void store_into(Tensor& t, std::int64_t block, const V& v, Expr at);
  V build_result(const Type& body_type, const std::vector<std::int64_t>& outer,
                 std::vector<V>& items);
  V index_value(const V& v, Expr self, const std::vector<Expr>& idx, const std::int64_t* key,
                std::size_t k);
  const std::vector<std::uint32_t>& ids_bound_in(const Function& f);
};

}  // namespace adlab::ir

#include "ir/interp/interpreter_eval.h"
