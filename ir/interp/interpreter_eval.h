// The evaluation rules of the reference interpreter, one case per node kind (DESIGN 2.3).
#pragma once

namespace adlab::ir {

// ---- scalars (floating) ----
template <class T>
T Interpreter<T>::Impl::scalar(Expr e) {
  const bool count = options.count_ops;
  switch (e->kind) {
    case NodeKind::Literal:
      zero = false;
      return T(e.as<Literal>()->value);
    case NodeKind::Var: {
      const V& v = slot(e);
      zero = false;
      if (v.kind != V::Kind::Float) fail(e, "`" + var_name(e) + "` has no numeric value here");
      return v.f;
    }
    case NodeKind::Unary: {
      T a = scalar(e.as<Unary>()->a);  // negation keeps a strong zero and costs nothing
      return -a;
    }
    case NodeKind::Binary: {
      auto* b = e.as<Binary>();
      T x = scalar(b->a);
      bool zx = zero;
      T y = scalar(b->b);
      bool zy = zero;
      switch (b->op) {
        case BinaryOp::Add:
        case BinaryOp::Sub:
          // paper 000 (4.24): a guarded addition costs 1 only where both brackets hold.
          if (count && !zx && !zy) ++counts.adds;
          zero = zx && zy;
          return math::in_f64_range(probed(b->op == BinaryOp::Add ? T(x + y) : T(x - y)));
        case BinaryOp::Mul:
          if (count && !zx && !zy) ++counts.muls;
          zero = zx || zy;
          return math::in_f64_range(probed(T(x * y)));
        case BinaryOp::Div:
          if (count && !zx) ++counts.divs;
          zero = zx;
          return math::in_f64_range(probed(T(x / y)));
        default:
          fail(e, std::string("operator ") + op_name(b->op) + " does not give a number");
      }
    }
    case NodeKind::Prim: {
      auto* p = e.as<Prim>();
      if (p->op == PrimOp::ToF64 || p->op == PrimOp::ToF32) {
        const Type& at = p->args[0]->type;
        T r = is_float(at.elem) ? scalar(p->args[0]) : T(static_cast<double>(index(p->args[0])));
        if constexpr (!std::is_same_v<T, float>)  // f32(...) rounds in every scalar type
          if (p->op == PrimOp::ToF32) r = T(static_cast<float>(math::to_double(r)));
        zero = false;
        return r;
      }
      T x = scalar(p->args[0]);
      T y = prim_arity(p->op) == 2 ? scalar(p->args[1]) : T(0);
      zero = false;
      if (count) ++(p->op == PrimOp::Min || p->op == PrimOp::Max ? counts.compares : counts.prims);
      if (options.track_kinks) {
        if ((p->op == PrimOp::Min || p->op == PrimOp::Max) &&
            (x != y || real_tie(p->args[0], p->args[1])))
          note_kink(rel_gap(x, y), e, op_name(p->op));
        if (p->op == PrimOp::Abs) note_kink(rel_gap(x, T(0)), e, "abs");
        // An exactly integral value is, in practice, a constant; a real jump shows as a branch
        // change under the reference's perturbations (KinkReport::branches).
        double fgap = integer_gap(x, 0), rgap = integer_gap(x, 0.5);
        if (p->op == PrimOp::Floor && fgap > 0) note_kink(fgap, e, "floor");
        if (p->op == PrimOp::Round && rgap > 0) note_kink(rgap, e, "round");
        if (p->op == PrimOp::Min || p->op == PrimOp::Max) note_branch(y < x);
        if (p->op == PrimOp::Abs) note_branch(x < T(0));
        // sqrt at 0 and pow at a base of 0 below an exponent of 1 may have no derivative (|x| =
        // sqrt(x x), |x|^0.5) where a stencil moves the base off 0; a base that stays 0
        // (sqrt(max(x, 0)) at x < 0) is flat (decision 249). Only a base that is an operand
        // can move: pow(0, y) stays 0^y
        if (p->op == PrimOp::Sqrt) {
          note_branch_point(x == T(0), e);
          note_second_order_branch_point(x == T(0));
        }
        if (p->op == PrimOp::Pow && !p->args[0].as<Literal>()) {
          note_branch_point(x == T(0) && y < T(1) && y != T(0), e);
          note_second_order_branch_point(x == T(0) && y < T(2) && y != T(0) && y != T(1));
        }
        if (p->op == PrimOp::Floor || p->op == PrimOp::Round)
          note_branch(static_cast<std::int64_t>(
              std::floor(math::to_double(x) + (p->op == PrimOp::Round ? 0.5 : 0.0))));
      }
      switch (p->op) {
        case PrimOp::Exp:
          return math::in_f64_range(probed(math::exp(x)));
        case PrimOp::Log:
          return math::in_f64_range(probed(math::log(x)));
        case PrimOp::Log1p:
          return math::in_f64_range(probed(math::log1p(x)));
        case PrimOp::Expm1:
          return math::in_f64_range(probed(math::expm1(x)));
        case PrimOp::Sin:
          return math::in_f64_range(probed(math::sin(x)));
        case PrimOp::Cos:
          return math::in_f64_range(probed(math::cos(x)));
        case PrimOp::Tan:
          return math::in_f64_range(probed(math::tan(x)));
        case PrimOp::Tanh:
          return math::in_f64_range(probed(math::tanh(x)));
        case PrimOp::Sigmoid:
          return math::in_f64_range(probed(math::sigmoid(x)));
        case PrimOp::Sqrt:
          return math::in_f64_range(probed(math::sqrt(x)));
        case PrimOp::Abs:
          return math::in_f64_range(math::abs(x));
        case PrimOp::Lgamma:
          return math::in_f64_range(probed(math::lgamma(x)));
        case PrimOp::Floor:
          return math::in_f64_range(math::floor(x));
        case PrimOp::Round:
          return math::in_f64_range(math::round(x));
        case PrimOp::Pow:
          return math::in_f64_range(probed(math::pow(x, y)));
        case PrimOp::Min:
          return y < x ? y : x;
        case PrimOp::Max:
          return x < y ? y : x;
        default:
          fail(e, std::string(op_name(p->op)) + " does not give a number");
      }
    }
    case NodeKind::Select: {
      auto* s = e.as<Select>();
      bool c = truth(s->cond);
      return scalar(c ? s->then_value : s->else_value);  // only the taken branch
    }
    case NodeKind::Iverson: {
      auto* iv = e.as<Iverson>();
      if (!truth(iv->pred)) {  // strong zero: the body is not evaluated
        zero = true;
        return T(0);
      }
      return scalar(iv->body);
    }
    case NodeKind::Access: {
      auto* a = e.as<Access>();
      V holder;
      const V& tv = operand(a->tensor, holder);
      if (!tv.is_tensor() || a->indices.size() != tv.t->shape.size()) {
        V r = eval(e);
        zero = false;
        return r.f;
      }
      const Tensor& t = *tv.t;
      std::int64_t key[8];
      std::vector<std::int64_t> big;
      std::int64_t* k = key;
      if (a->indices.size() > 8) {
        big.resize(a->indices.size());
        k = big.data();
      }
      eval_indices(e, a->indices, t.shape, k);
      zero = false;
      return read_element<true>(t, k);
    }
    case NodeKind::Reduce: {
      T r = reduce_float(*e.as<Reduce>(), e);
      return r;
    }
    case NodeKind::Let: {
      auto* l = e.as<Let>();
      bind(l->vars, eval(l->value));
      return scalar(l->body);
    }
    default: {
      V v = eval(e);
      zero = false;
      if (v.kind != V::Kind::Float) fail(e, "expected a number");
      return v.f;
    }
  }
}

template <class T>
T Interpreter<T>::Impl::reduce_float(const Reduce& r, Expr self) {
  const bool count = options.count_ops;
  if (r.op == ReduceOp::Sum) {
    T acc(0);
    std::int64_t terms = 0;  // non-zero terms: paper 000 (4.30) charges terms - 1 additions
    iterate(r.dom, self, [&] {
      T x = scalar(r.body);
      acc += x;  // the value is IEEE (0 * NaN is NaN); strong zeros only change the count
      if (!zero) {
        if (terms > 0) acc = probed(acc);
        ++terms;
      }
    });
    if (count && terms > 1) counts.adds += terms - 1;
    zero = terms == 0;
    return acc;
  }
  bool any = false;
  T best(0);
  iterate(r.dom, self, [&] {
    T x = scalar(r.body);
    if (!any) {
      best = x;
      any = true;
    } else {
      if (count) ++counts.compares;
      if (options.track_kinks && best != x)
        note_kink(rel_gap(best, x), self,
                  r.op == ReduceOp::Max ? "max reduction" : "min reduction");
      if (options.track_kinks) note_branch(r.op == ReduceOp::Max ? best < x : x < best);
      if (r.op == ReduceOp::Max ? best < x : x < best) best = x;
    }
  });
  if (!any) fail(self, std::string(op_name(r.op)) + " over an empty range has no value");
  zero = false;
  return best;
}

template <class T>
std::int64_t Interpreter<T>::Impl::reduce_int(const Reduce& r, Expr self) {
  std::int64_t acc = 0;
  bool any = false;
  iterate(r.dom, self, [&] {
    std::int64_t x = index(r.body);
    if (r.op == ReduceOp::Sum) {
      if (__builtin_add_overflow(acc, x, &acc))
        fail(self, "integer overflow in `" + expr_str(self) + "` (the sum does not fit in i64)");
    } else if (!any)
      acc = x;
    else
      acc = r.op == ReduceOp::Max ? std::max(acc, x) : std::min(acc, x);
    any = true;
  });
  if (!any && r.op != ReduceOp::Sum)
    fail(self, std::string(op_name(r.op)) + " over an empty range has no value");
  return acc;
}

// ---- integers and booleans ----
template <class T>
std::int64_t Interpreter<T>::Impl::index(Expr e) {
  switch (e->kind) {
    case NodeKind::Literal:
      return static_cast<std::int64_t>(e.as<Literal>()->value);
    case NodeKind::Var: {
      const V& v = slot(e);
      if (v.kind != V::Kind::Int) fail(e, "`" + var_name(e) + "` has no integer value here");
      return v.i;
    }
    case NodeKind::Unary: {
      auto* u = e.as<Unary>();
      std::int64_t a = index(u->a);
      if (u->op == UnaryOp::Neg && a == std::numeric_limits<std::int64_t>::min())
        fail(e, "integer overflow in `" + expr_str(e) + "` (-(" + std::to_string(a) +
                    ") does not fit in i64)");
      return u->op == UnaryOp::Neg ? -a : !a;
    }
    case NodeKind::Binary: {
      auto* b = e.as<Binary>();
      if (b->op == BinaryOp::And) return truth(b->a) && truth(b->b);
      if (b->op == BinaryOp::Or) return truth(b->a) || truth(b->b);
      if (is_comparison(b->op) && is_float(b->a->type.elem)) {
        T x = scalar(b->a), y = scalar(b->b);
        if (options.count_ops) ++counts.compares;
        if (options.track_kinks && (x != y || real_tie(b->a, b->b)))
          note_kink(rel_gap(x, y), e, "comparison");
        if (options.track_kinks) note_branch(compare_op(b->op, x, y));
        return compare_op(b->op, x, y);
      }
      std::int64_t x = index(b->a), y = index(b->b);
      if ((b->op == BinaryOp::Div || b->op == BinaryOp::Mod) && y <= 0)
        fail(e, "integer " + std::string(op_name(b->op)) + " by a non-positive value (" +
                    std::to_string(y) + ") in `" + expr_str(e) + "`");
      if (is_int_arith(b->op)) {
        if (auto r = int_arith(b->op, x, y)) return *r;
        fail(e, "integer overflow in `" + expr_str(e) + "` (" + std::to_string(x) + " " +
                    op_name(b->op) + " " + std::to_string(y) + " does not fit in i64)");
      }
      if (is_comparison(b->op)) return compare_op(b->op, x, y);
      fail(e, "bad integer operator");
    }
    case NodeKind::Prim: {
      auto* p = e.as<Prim>();
      if (p->op == PrimOp::ToI64) {
        if (!is_float(p->args[0]->type.elem)) return index(p->args[0]);
        T x = scalar(p->args[0]);
        // i64(floor(x)) and i64(round(x)) switch where floor/round do (tracked there).
        auto* inner = p->args[0].as<Prim>();
        bool rounded = inner && (inner->op == PrimOp::Floor || inner->op == PrimOp::Round);
        if (options.track_kinks && !rounded && integer_gap(x, 0) > 0)
          note_kink(integer_gap(x, 0), e, "i64 conversion");
        // mp50 truncates first: 0.99999999999999999 must not round to 1 on the way to double.
        double d = math::to_double(x);
        if constexpr (std::is_same_v<T, mp50>)
          d = math::to_double(x < 0 ? T(-boost::multiprecision::floor(T(-x)))
                                    : T(boost::multiprecision::floor(x)));
        if (options.track_kinks) note_branch(static_cast<std::int64_t>(d));
        if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
          fail(e, "i64(...) of a value that is not a representable integer (" + std::to_string(d) +
                      ")");
        return static_cast<std::int64_t>(d);  // truncation; write i64(floor(x)) for floor
      }
      std::int64_t x = index(p->args[0]), y = index(p->args[1]);
      switch (p->op) {
        case PrimOp::Min:
          return std::min(x, y);
        case PrimOp::Max:
          return std::max(x, y);
        case PrimOp::Band:
          return x & y;
        case PrimOp::Bxor:
          return x ^ y;
        default:
          fail(e, "bad integer primitive");
      }
    }
    case NodeKind::Select: {
      auto* s = e.as<Select>();
      return index(truth(s->cond) ? s->then_value : s->else_value);
    }
    case NodeKind::Iverson: {
      auto* iv = e.as<Iverson>();
      return truth(iv->pred) ? index(iv->body) : 0;
    }
    case NodeKind::Exists: {
      auto* x = e.as<Exists>();
      bool found = false;
      // The domain is enumerated fully; exists has no side effects, only its truth matters.
      iterate(x->dom, e, [&] { found = found || truth(x->pred); });
      return found;
    }
    case NodeKind::Nz: {
      auto* n = e.as<Nz>();
      V holder;
      const V& tv = operand(n->tensor, holder);
      const Tensor& t = *tv.t;
      std::vector<std::int64_t> key(n->indices.size());
      for (std::size_t k = 0; k < key.size(); ++k) key[k] = index(n->indices[k]);
      for (std::size_t k = 0; k < key.size(); ++k)
        if (key[k] < 0 || key[k] >= t.shape[k]) return 0;  // outside the shape: not stored
      if (t.storage == Storage::Csr) return csr_find(t, key[0], key[1]) >= 0;
      if (t.storage == Storage::Coo) return coo_find(t, key.data()) >= 0;
      return 1;
    }
    case NodeKind::Access: {
      auto* a = e.as<Access>();
      V holder;
      const V& tv = operand(a->tensor, holder);
      if (!tv.is_tensor() || a->indices.size() != tv.t->shape.size()) return eval(e).i;
      std::vector<std::int64_t> key(a->indices.size());
      eval_indices(e, a->indices, tv.t->shape, key.data());
      return read_element<false>(*tv.t, key.data());
    }
    case NodeKind::Reduce:
      return reduce_int(*e.as<Reduce>(), e);
    default: {
      V v = eval(e);
      if (v.kind != V::Kind::Int) fail(e, "expected an integer");
      return v.i;
    }
  }
}

}  // namespace adlab::ir

#include "ir/interp/interpreter_values.h"
