// Evaluation of tensor-, tuple- and function-valued nodes, and parameter binding.
#pragma once

#include <map>
#include <new>
#include <typeinfo>
#include <unordered_set>

namespace adlab::ir {

template <class T>
Value<T> Interpreter<T>::Impl::eval(Expr e) {
  // "out of memory" and "more than 2^63 entries" named no place in the program (an audit
  // helper; decision 223): the innermost value being built is where they happened.
  try {
    return eval_node(e);
  } catch (const std::bad_alloc&) {
    fail(e, "out of memory building a value of type " + type_str(e->type) +
                " (are the sizes of the program or its inputs too large?)");
  } catch (const Error& err) {
    // a subclass (a strategy's Unsupported, say) keeps its type, and so its status
    if (err.pos().valid() || typeid(err) != typeid(Error)) throw;
    fail(e, err.message());
  }
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_node(Expr e) {
  const Type& t = e->type;
  switch (e->kind) {
    case NodeKind::Literal:
      return is_float(t.elem) ? V::of_float(T(e.as<Literal>()->value))
                              : V::of_int(static_cast<std::int64_t>(e.as<Literal>()->value));
    case NodeKind::Var:
      return slot(e);
    case NodeKind::Unary:
    case NodeKind::Binary:
    case NodeKind::Prim:
    case NodeKind::Exists:
    case NodeKind::Nz:
      return is_float(t.elem) ? V::of_float(scalar(e)) : V::of_int(index(e));
    case NodeKind::Select: {
      auto* s = e.as<Select>();
      return eval(truth(s->cond) ? s->then_value : s->else_value);
    }
    case NodeKind::Iverson: {
      auto* iv = e.as<Iverson>();
      if (t.is_scalar()) return is_float(t.elem) ? V::of_float(scalar(e)) : V::of_int(index(e));
      return truth(iv->pred) ? eval(iv->body) : zero_value(t);
    }
    case NodeKind::Access:
      return eval_access(*e.as<Access>(), e);
    case NodeKind::Gen:
      return eval_gen(*e.as<Gen>());
    case NodeKind::Reduce:
      return is_float(t.elem) ? V::of_float(reduce_float(*e.as<Reduce>(), e))
                              : V::of_int(reduce_int(*e.as<Reduce>(), e));
    case NodeKind::Scan:
      return eval_scan(*e.as<Scan>());
    case NodeKind::Loop:
      return eval_loop(*e.as<Loop>());
    case NodeKind::Scatter:
      return eval_scatter(*e.as<Scatter>(), e);
    case NodeKind::Let: {
      auto* l = e.as<Let>();
      bind(l->vars, eval(l->value));
      return eval(l->body);
    }
    case NodeKind::Tuple: {
      std::vector<V> fs;
      for (auto x : e.as<Tuple>()->elems) fs.push_back(eval(x));
      return V::of_tuple(std::move(fs));
    }
    case NodeKind::Proj:
      return eval_proj(*e.as<Proj>());
    case NodeKind::Call:
      return eval_call(*e.as<Call>(), e);
  }
  fail(e, "cannot evaluate this node");
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_proj(const Proj& p) {
  V v = eval(p.tuple);
  if (!v.is_tuple()) fail(p.tuple, "projection of a value that is not a tuple");
  return v.field(static_cast<std::size_t>(p.index));
}

template <class T>
Value<T> Interpreter<T>::Impl::index_value(const V& v, Expr self, const std::vector<Expr>& idx,
                                           const std::int64_t* key, std::size_t k) {
  if (v.is_tuple()) {  // an array of tuples: index every field array
    std::vector<V> fs;
    for (const auto& f : *v.fields) fs.push_back(index_value(f, self, idx, key, k));
    return V::of_tuple(std::move(fs));
  }
  if (!v.is_tensor()) fail(self, "indexing a value that is not a tensor");
  const Tensor& t = *v.t;
  if (k > t.shape.size()) fail(self, "too many indices");
  for (std::size_t d = 0; d < k; ++d) checked_index(self, idx[d], key[d], t.shape[d], d);
  if (k == t.shape.size()) {
    if (is_float(t.elem)) return V::of_float(read_element<true>(t, key));
    return V::of_int(read_element<false>(t, key));
  }
  return V::of_tensor(slice(t, key, k));
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_access(const Access& a, Expr self) {
  V holder;
  const V& v = operand(a.tensor, holder);
  std::vector<std::int64_t> key(a.indices.size());
  for (std::size_t k = 0; k < key.size(); ++k) key[k] = index(a.indices[k]);
  return index_value(v, self, a.indices, key.data(), key.size());
}

// Writes value v as block `block` of t (a scalar, or a dense copy of a tensor of t's inner shape).
template <class T>
void Interpreter<T>::Impl::store_into(Tensor& t, std::int64_t block, const V& v, Expr at) {
  if (v.kind == V::Kind::Float) {
    t.values[static_cast<std::size_t>(block)] = v.f;
    return;
  }
  if (v.kind == V::Kind::Int) {
    t.ints[static_cast<std::size_t>(block)] = v.i;
    return;
  }
  const Tensor& src = *v.t;
  std::size_t outer = t.shape.size() - src.shape.size();
  for (std::size_t d = 0; d < src.shape.size(); ++d)
    if (src.shape[d] != t.shape[outer + d])
      fail(at, "a generated element has shape dimension " + std::to_string(src.shape[d]) +
                   " where " + std::to_string(t.shape[outer + d]) + " was expected");
  std::int64_t inner = product(src.shape);
  std::size_t off = static_cast<std::size_t>(block * inner);
  if (src.storage == Storage::Dense) {
    if (is_float(t.elem))
      std::copy(src.values.begin(), src.values.end(),
                t.values.begin() + static_cast<std::ptrdiff_t>(off));
    else
      std::copy(src.ints.begin(), src.ints.end(),
                t.ints.begin() + static_cast<std::ptrdiff_t>(off));
    return;
  }
  std::vector<std::int64_t> none;
  Tensor dense = slice(src, none.data(), 0);
  std::copy(dense.values.begin(), dense.values.end(),
            t.values.begin() + static_cast<std::ptrdiff_t>(off));
}

template <class T>
Value<T> Interpreter<T>::Impl::build_result(const Type& body_type,
                                            const std::vector<std::int64_t>& outer,
                                            std::vector<V>& items) {
  if (body_type.is_tuple()) {
    std::vector<V> fs;
    for (std::size_t k = 0; k < body_type.fields.size(); ++k) {
      std::vector<V> sub;
      sub.reserve(items.size());
      for (auto& it : items) sub.push_back(it.field(k));
      Type ft = body_type.fields[k];
      ft.dims.insert(ft.dims.begin(), body_type.dims.begin(), body_type.dims.end());
      fs.push_back(build_result(ft, outer, sub));
    }
    return V::of_tuple(std::move(fs));
  }
  Tensor r;
  r.elem = body_type.elem;
  r.shape = outer;
  auto inner = eval_dims(body_type);
  r.shape.insert(r.shape.end(), inner.begin(), inner.end());
  std::size_t n = static_cast<std::size_t>(product(r.shape));
  if (is_float(r.elem))
    r.values.assign(n, T(0));
  else
    r.ints.assign(n, 0);
  for (std::size_t k = 0; k < items.size(); ++k)
    store_into(r, static_cast<std::int64_t>(k), items[k], Expr());
  return V::of_tensor(std::move(r));
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_gen(const Gen& g) {
  std::vector<std::int64_t> outer;
  for (auto b : g.dom.bounds) {
    std::int64_t n = index(b);
    if (n < 0) fail(b, "gen bound `" + expr_str(b) + "` is negative (" + std::to_string(n) + ")");
    outer.push_back(n);
  }
  const Type& bt = g.body->type;
  if (bt.is_scalar()) {  // fast path: write scalars in place
    Tensor r;
    r.elem = bt.elem;
    r.shape = outer;
    std::size_t n = static_cast<std::size_t>(product(outer));
    if (is_float(bt.elem)) {
      r.values.reserve(n);
      iterate(g.dom, g.body, [&] { r.values.push_back(scalar(g.body)); });
    } else {
      r.ints.reserve(n);
      iterate(g.dom, g.body, [&] { r.ints.push_back(index(g.body)); });
    }
    return V::of_tensor(std::move(r));
  }
  std::vector<V> items;
  iterate(g.dom, g.body, [&] { items.push_back(eval(g.body)); });
  Type inner = bt;
  return build_result(inner, outer, items);
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_scan(const Scan& s) {
  Tensor r;
  r.elem = s.body->type.elem;
  std::int64_t n = index(s.dom.bounds[0]);
  if (n < 0) fail(s.dom.bounds[0], "scan bound is negative");
  r.shape = {n};
  bool first = true;
  const bool count = options.count_ops;
  // The accumulator's type: a reverse-mode scalar's `acc + x` is a pending statement (dualrev's
  // Lin).
  auto combine = [&](auto acc, auto x) -> decltype(acc) {
    switch (s.op) {
      case ReduceOp::Sum:
        return acc + x;
      case ReduceOp::Prod:
        return acc * x;
      case ReduceOp::Max:
        return acc < x ? x : acc;
      default:
        return x < acc ? x : acc;
    }
  };
  auto charge = [&] {
    if (!count || first) return;
    if (s.op == ReduceOp::Sum)
      ++counts.adds;
    else if (s.op == ReduceOp::Prod)
      ++counts.muls;
    else
      ++counts.compares;
  };
  if (is_float(r.elem)) {
    T acc(0);
    iterate(s.dom, s.body, [&] {
      T x = scalar(s.body);
      if (!zero) charge();
      if (options.track_kinks && !first && (s.op == ReduceOp::Max || s.op == ReduceOp::Min) &&
          acc != x)
        note_kink(rel_gap(acc, x), s.body, "scan max/min");
      if (options.track_kinks && !first && (s.op == ReduceOp::Max || s.op == ReduceOp::Min))
        note_branch(s.op == ReduceOp::Max ? acc < x : x < acc);
      acc = first ? x : T(combine(acc, x));
      if (!first && (s.op == ReduceOp::Sum || s.op == ReduceOp::Prod)) acc = probed(acc);
      first = false;
      r.values.push_back(acc);
    });
  } else {
    std::int64_t acc = 0;
    iterate(s.dom, s.body, [&] {
      std::int64_t x = index(s.body);
      std::int64_t next = x;  // (+) and (*) scans of integers must not wrap either
      if (!first && s.op == ReduceOp::Sum    ? __builtin_add_overflow(acc, x, &next)
          : !first && s.op == ReduceOp::Prod ? __builtin_mul_overflow(acc, x, &next)
                                             : false)
        fail(s.body, "integer overflow in the scan `" + expr_str(s.body) +
                         "` (the running value does not fit in i64)");
      acc = first || s.op == ReduceOp::Sum || s.op == ReduceOp::Prod
                ? next
                : static_cast<std::int64_t>(combine(acc, x));
      first = false;
      r.ints.push_back(acc);
    });
  }
  return V::of_tensor(std::move(r));
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_loop(const Loop& l) {
  std::vector<V> state;
  for (auto i : l.init) state.push_back(eval(i));
  for (std::size_t k = 0; k < l.state.size(); ++k) set(l.state[k], state[k]);
  std::int64_t n = index(l.dom.bounds[0]);
  V& iv = slot(l.dom.vars[0]);
  for (std::int64_t t = 0; t < n; ++t) {
    iv = V::of_int(t);
    if (options.count_ops) ++counts.iterations;
    bind(l.state, eval(l.body));
  }
  if (l.state.size() == 1) return slot(l.state[0]);
  std::vector<V> out;
  for (auto s : l.state) out.push_back(slot(s));
  return V::of_tuple(std::move(out));
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_scatter(const Scatter& s, Expr self) {
  const Type& t = s.type;
  std::vector<std::int64_t> shape = eval_dims(t, true);
  const bool fl = is_float(t.elem);
  const bool count = options.count_ops;
  std::vector<std::int64_t> key(s.at.size());
  auto read_key = [&] {
    for (std::size_t k = 0; k < key.size(); ++k)
      key[k] = checked_index(self, s.at[k], index(s.at[k]), shape[k], k);
  };
  if (t.storage == Storage::Coo) {  // stores exactly the keys produced
    std::map<std::vector<std::int64_t>, T> acc;
    iterate(s.dom, self, [&] {
      T x = scalar(s.value);
      if (zero && x == T(0)) return;  // a contribution under a false bracket is skipped unchecked
      read_key();
      if (count) ++counts.adds;
      auto [it, fresh] = acc.emplace(key, x);
      if (!fresh) it->second = probed(it->second + x);
    });
    Tensor r;
    r.elem = t.elem;
    r.storage = Storage::Coo;
    r.shape = shape;
    for (auto& [k, v] : acc) {
      r.coords.insert(r.coords.end(), k.begin(), k.end());
      r.values.push_back(v);
    }
    return V::of_tensor(std::move(r));
  }
  Tensor r;
  r.elem = t.elem;
  r.shape = shape;
  std::size_t n = static_cast<std::size_t>(product(shape));
  if (fl)
    r.values.assign(n, T(0));
  else
    r.ints.assign(n, 0);
  iterate(s.dom, self, [&] {
    if (fl) {
      T x = scalar(s.value);
      if (zero && x == T(0)) return;  // skipped, with no bounds check (DESIGN 2.3)
      read_key();
      std::int64_t off = 0;
      for (std::size_t k = 0; k < key.size(); ++k) off = off * shape[k] + key[k];
      if (count) ++counts.adds;
      add_into(r.values[static_cast<std::size_t>(off)], x);
    } else {
      auto* guard = s.value.as<Iverson>();
      if (guard && !truth(guard->pred)) return;  // skipped, with no bounds check
      std::int64_t x = index(s.value);
      read_key();
      std::int64_t off = 0;
      for (std::size_t k = 0; k < key.size(); ++k) off = off * shape[k] + key[k];
      std::int64_t& entry = r.ints[static_cast<std::size_t>(off)];
      if (__builtin_add_overflow(entry, x, &entry))  // no wrap-around (decisions 164, 181)
        fail(self,
             "integer overflow in `" + expr_str(self) + "` (an entry's sum does not fit in i64)");
    }
  });
  return V::of_tensor(std::move(r));
}

template <class T>
const std::vector<std::uint32_t>& Interpreter<T>::Impl::ids_bound_in(const Function& f) {
  auto it = bound_ids.find(&f);
  if (it != bound_ids.end()) return it->second;
  std::vector<std::uint32_t> ids;
  std::unordered_set<const ExprNode*> seen;
  std::vector<Expr> work(f.params.begin(), f.params.end());
  work.insert(work.end(), f.sizes.begin(), f.sizes.end());
  for (const auto& s : f.stmts) {
    work.insert(work.end(), s.vars.begin(), s.vars.end());
    work.push_back(s.value);
  }
  work.insert(work.end(), f.results.begin(), f.results.end());
  while (!work.empty()) {
    Expr e = work.back();
    work.pop_back();
    if (!seen.insert(e.get()).second) continue;
    if (e.as<Var>()) ids.push_back(e->id);
    for (auto c : children(e)) work.push_back(c);
  }
  return bound_ids.emplace(&f, std::move(ids)).first->second;
}

template <class T>
Value<T> Interpreter<T>::Impl::eval_call(const Call& c, Expr self) {
  std::vector<V> args;
  for (auto a : c.args) args.push_back(eval(a));
  const auto& ids = ids_bound_in(*c.callee);
  std::vector<V> saved;
  saved.reserve(ids.size());
  for (auto id : ids) {
    if (id >= env.size()) env.resize(id + 1);
    saved.push_back(std::move(env[id]));
  }
  std::vector<V> out;
  try {
    out = run(*c.callee, args);
  } catch (const Error& err) {
    auto p = Context::current().position(self);
    std::vector<std::string> notes = err.notes();
    if (p.valid()) notes.push_back("in the call of `" + c.callee->name + "` at " + p.str());
    for (std::size_t k = 0; k < ids.size(); ++k) env[ids[k]] = std::move(saved[k]);
    throw Error(err.pos(), err.message(), notes);
  }
  for (std::size_t k = 0; k < ids.size(); ++k) env[ids[k]] = std::move(saved[k]);
  return out.size() == 1 ? out[0] : V::of_tuple(std::move(out));
}

template <class T>
void Interpreter<T>::Impl::bind_params(const Function& f, const std::vector<V>& args) {
  if (args.size() != f.params.size())
    throw Error(f.pos, "`" + f.name + "` takes " + std::to_string(f.params.size()) +
                           " argument(s), given " + std::to_string(args.size()));
  std::unordered_map<const ExprNode*, std::int64_t> sizes;
  SourcePos at = f.pos;  // the parameter being bound, for messages
  auto bind_size = [&](Expr s, std::int64_t n, const std::string& from) {
    if (n < 0)
      throw Error(f.pos, "size `" + var_name(s) + "` is negative (" + std::to_string(n) + ")");
    auto [it, fresh] = sizes.emplace(s.get(), n);
    if (!fresh && it->second != n)
      throw Error(at, "shape mismatch: size `" + var_name(s) + "` is " +
                          std::to_string(it->second) + " but " + from + " gives " +
                          std::to_string(n));
    set(s, V::of_int(n));
  };
  auto describe_param = [&](std::size_t k) { return "parameter `" + var_name(f.params[k]) + "`"; };
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Type& pt = f.params[k]->type;
    const V& a = args[k];
    std::string what = describe_param(k);
    at = pos_of(f.params[k], f.pos.source).valid() ? pos_of(f.params[k], f.pos.source) : f.pos;
    if (pt.is_tuple()) {
      if (!a.is_tuple()) throw Error(pos_of(f.params[k], f.pos.source), what + " expects a tuple");
    } else if (pt.dims.empty()) {
      bool want_float = is_float(pt.elem);
      if ((want_float && a.kind != V::Kind::Float) || (!want_float && a.kind != V::Kind::Int))
        throw Error(pos_of(f.params[k], f.pos.source),
                    what + " expects a scalar " + elem_name(pt.elem));
    } else {
      if (!a.is_tensor())
        throw Error(pos_of(f.params[k], f.pos.source), what + " expects a tensor " + type_str(pt));
      const Tensor& t = *a.t;
      if (t.elem != pt.elem && !(is_float(t.elem) && is_float(pt.elem) && std::is_same_v<T, float>))
        if (is_float(t.elem) != is_float(pt.elem) || t.elem != pt.elem)
          throw Error(
              pos_of(f.params[k], f.pos.source),
              what + " expects " + elem_name(pt.elem) + " entries, given " + elem_name(t.elem));
      if (t.storage != pt.storage)
        throw Error(pos_of(f.params[k], f.pos.source), what + " is declared " + type_str(pt) +
                                                           " but given a " +
                                                           storage_name(t.storage) + " tensor");
      if (t.shape.size() != pt.dims.size())
        throw Error(pos_of(f.params[k], f.pos.source),
                    what + " has rank " + std::to_string(pt.dims.size()) +
                        " but the given tensor has rank " + std::to_string(t.shape.size()));
      for (std::size_t d = 0; d < pt.dims.size(); ++d)
        if (pt.dims[d].as<Var>())
          bind_size(pt.dims[d], t.shape[d], what + " dimension " + std::to_string(d));
    }
    set(f.params[k], a);
    if (pt.is_index() && std::find(f.sizes.begin(), f.sizes.end(), f.params[k]) != f.sizes.end())
      bind_size(f.params[k], a.i, what);
  }
  for (auto s : f.sizes) {
    if (sizes.count(s.get())) continue;
    auto it = options.sizes.find(var_name(s));
    if (it == options.sizes.end())
      throw Error(pos_of(s, f.pos.source).valid() ? pos_of(s, f.pos.source) : f.pos,
                  "size `" + var_name(s) + "` of `" + f.name + "` is not bound by any parameter",
                  {"give it on the command line: --size " + var_name(s) + "=N"});
    bind_size(s, it->second, "--size");
  }
  // Compound dimensions (n + 1, D * (D - 1) / 2) are checked once all sizes are known.
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Type& pt = f.params[k]->type;
    if (!args[k].is_tensor()) continue;
    for (std::size_t d = 0; d < pt.dims.size(); ++d) {
      if (pt.dims[d].as<Var>()) continue;
      std::int64_t want = dim_value(pt.dims[d], f.params[k]);
      if (want != args[k].t->shape[d])
        throw Error(pos_of(f.params[k], f.pos.source),
                    "shape mismatch: " + describe_param(k) + " dimension " + std::to_string(d) +
                        " is " + std::to_string(args[k].t->shape[d]) + " but `" +
                        expr_str(pt.dims[d]) + "` = " + std::to_string(want));
    }
  }
}

template <class T>
std::vector<Value<T>> Interpreter<T>::Impl::run(const Function& f, const std::vector<V>& args) {
  struct RestoreSource {
    std::uint32_t& slot;
    std::uint32_t saved;
    const Function*& fn_slot;
    const Function* saved_fn;
    ~RestoreSource() {
      slot = saved;
      fn_slot = saved_fn;
    }
  } restore{source, source, current_fn, current_fn};
  source = f.pos.source;
  current_fn = &f;
  FunctionPositions cite_in(f.pos);  // errors cite this function's occurrences (decision 218)
  bind_params(f, args);
  for (const auto& s : f.stmts) bind(s.vars, eval(s.value));
  std::vector<V> out;
  for (auto r : f.results) out.push_back(eval(r));
  // Declared result dimensions must be exact (a non-exact division there is an error).
  for (std::size_t k = 0; k < out.size(); ++k) {
    const Type& want = f.results.size() == 1 ? f.result_type : f.result_type.fields[k];
    for (auto d : want.dims) dim_value(d, f.results[k]);
  }
  return out;
}

template <class T>
Interpreter<T>::Interpreter(EvalOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
template <class T>
Interpreter<T>::~Interpreter() = default;

template <class T>
std::vector<Value<T>> Interpreter<T>::run(const Function& f, const std::vector<Value<T>>& args) {
  impl_->counts = OpCounts{};
  impl_->kink = KinkReport{};
  impl_->probe_state = impl_->options.rounding_probe;
  // Every variable exists before evaluation starts, so env never reallocates while references
  // into it are held.
  if (impl_->env.size() < Context::current().num_vars())
    impl_->env.resize(Context::current().num_vars());
  auto out = impl_->run(f, args);
  impl_->last_sizes.clear();
  for (auto s : f.sizes) impl_->last_sizes[var_name(s)] = impl_->slot(s).i;
  return out;
}

template <class T>
std::vector<BasicTensor<T>> Interpreter<T>::run_tensors(const Function& f,
                                                        const std::vector<BasicTensor<T>>& args) {
  std::vector<Value<T>> vs;
  for (const auto& a : args) vs.push_back(value_from_tensor(a));
  auto out = run(f, vs);
  std::vector<BasicTensor<T>> ts;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k].is_tuple())
      throw Error(f.pos,
                  "result " + std::to_string(k) + " is an array of tuples; project its fields");
    ts.push_back(to_tensor(out[k], f.results[k]->type.elem));
  }
  return ts;
}

template <class T>
const OpCounts& Interpreter<T>::counts() const {
  return impl_->counts;
}

template <class T>
const KinkReport& Interpreter<T>::kink() const {
  return impl_->kink;
}

template <class T>
std::map<std::string, std::int64_t> Interpreter<T>::bound_sizes(const Function&) const {
  return impl_->last_sizes;
}

}  // namespace adlab::ir
