// make() for every node kind: local typing checks, then interning (STYLE.md "IR nodes").
#include "ir/expr.h"

#include <cmath>

#include "ir/affine.h"
#include "ir/context.h"
#include "ir/function.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"

namespace adlab::ir {

namespace {

[[noreturn]] void type_error(const std::string& msg) {
  throw Error(msg);
}

Expr intern(NodeKey key, const std::function<std::unique_ptr<ExprNode>()>& construct) {
  return Context::current().intern(std::move(key), construct);
}

bool is_numeric_scalar(const Type& t) {
  return t.is_scalar() && t.elem != ElemType::Bool;
}

// Whether an untyped expression uses `%`, which only integers have.
bool uses_mod(Expr e) {
  if (auto* b = e.as<Binary>()) return b->op == BinaryOp::Mod || uses_mod(b->a) || uses_mod(b->b);
  if (auto* u = e.as<Unary>()) return uses_mod(u->a);
  return false;
}

// An operand that must be a scalar of a definite type: flexible literals default to `elem`
// (to i64 instead of f64 when they use `%`).
Expr fix(Expr e, ElemType elem) {
  if (!e->flexible) return e;
  return coerce_flexible(e, elem == ElemType::F64 && uses_mod(e) ? ElemType::I64 : elem);
}

void require_index(Expr e, const char* what) {
  if (!e->type.is_index())
    type_error(std::string(what) + " must be an i64 index expression, found `" + expr_str(e) +
               "` of type " + type_str(e->type));
}

void require_bool(Expr e, const char* what) {
  if (!e->type.is_bool())
    type_error(std::string(what) + " must be a predicate (bool), found `" + expr_str(e) +
               "` of type " + type_str(e->type));
}

// Unifies the element types of two scalar operands, adapting a flexible one to the other.
void unify_scalars(Expr& a, Expr& b, const char* op) {
  if (!a->type.is_scalar() || !b->type.is_scalar())
    type_error(std::string("operator ") + op + " needs scalar operands, found " +
               type_str(a->type) + " and " + type_str(b->type) + " (build tensors with gen)");
  if (a->flexible && !b->flexible) a = coerce_flexible(a, b->type.elem);
  if (b->flexible && !a->flexible) b = coerce_flexible(b, a->type.elem);
  if (a->type.elem != b->type.elem)
    type_error(std::string("operator ") + op + " mixes " + elem_name(a->type.elem) + " and " +
               elem_name(b->type.elem) +
               " (no implicit conversion; use f64(...), f32(...) or i64(...))");
}

void check_domain(Domain& d, bool allow_stored) {
  if (d.is_stored()) {
    if (!allow_stored)
      type_error("this construct iterates a rectangular domain, not stored entries");
    const Type& st = d.source->type;
    if (st.is_tuple()) type_error("stored-entry iteration needs a tensor, found a tuple");
    if (d.prefix.size() + d.vars.size() != st.rank())
      type_error("stored-entry iteration over `" + expr_str(d.source) + "` of rank " +
                 std::to_string(st.rank()) + " needs " + std::to_string(st.rank()) +
                 " indices, found " + std::to_string(d.prefix.size() + d.vars.size()));
    for (auto& p : d.prefix) {
      p = fix(p, ElemType::I64);
      require_index(p, "a row index");
    }
  } else if (d.bounds.size() != d.vars.size()) {
    type_error("every index variable needs a bound");
  }
  for (auto& b : d.bounds) {
    b = fix(b, ElemType::I64);
    require_index(b, "a loop bound");
  }
  for (auto v : d.vars) {
    if (!v.as<Var>()) type_error("an index must be a variable");
    require_index(v, "an index variable");
  }
}

}  // namespace

const std::string& var_name(Expr v) {
  auto* var = v.as<Var>();
  ADLAB_CHECK(var) << "not a variable: " << kind_name(v->kind);
  return var->name;
}

namespace {
Expr coerced(Expr e, ElemType elem) {
  if (auto* l = e.as<Literal>()) {
    // The literal's own position: the caller (Access::make, a domain) is not built yet, and the
    // interned literal may occur elsewhere too: the occurrence just parsed is the latest.
    auto fail = [&](const std::string& msg) {
      throw Error(Context::current().latest_position(e), msg);
    };
    if (elem == ElemType::I64 && l->value != std::floor(l->value))
      fail("the number " + expr_str(e) + " is used as an integer");
    // Past 2^53 a double no longer holds every integer, and past 2^63 the conversion to i64 is
    // undefined: such a literal is an error, not a silently different integer.
    if (elem == ElemType::I64 && !(std::fabs(l->value) <= 9007199254740992.0))
      fail("the integer " + expr_str(e) + " is out of range (literals are exact up to 2^53)");
    if (elem == ElemType::Bool) fail("a number is used as a predicate");
    return Literal::make(l->value, elem);
  }
  if (auto* u = e.as<Unary>()) return Unary::make(u->op, coerce_flexible(u->a, elem));
  if (auto* b = e.as<Binary>())
    return Binary::make(b->op, coerce_flexible(b->a, elem), coerce_flexible(b->b, elem));
  ADLAB_CHECK(false) << "flexible node of kind " << kind_name(e->kind);
  return e;
}
}  // namespace

Expr coerce_flexible(Expr e, ElemType elem) {
  if (!e->flexible) return e;
  Expr out = coerced(e, elem);
  // The typed node keeps the flexible one's positions: a run-time error in `7 % -2` or `-7 / 0`
  // names its place (an audit finding: they had none)
  Context::current().add_positions_of(e, out);
  return out;
}

Expr Literal::make(double value, ElemType elem) {
  NodeKey k{NodeKind::Literal, Type::scalar(elem)};
  k.num = value;
  return intern(k, [&] { return std::make_unique<Literal>(Type::scalar(elem), value); });
}

Expr Literal::make_flexible(double value) {
  NodeKey k{NodeKind::Literal, Type::scalar(ElemType::F64)};
  k.num = value;
  k.flexible = true;
  return intern(k, [&] { return std::make_unique<Literal>(Type::scalar(ElemType::F64), value); });
}

Expr Var::make(std::string name, Type type) {
  NodeKey k{NodeKind::Var, type};
  k.str = name;
  return intern(k, [&] { return std::make_unique<Var>(type, name); });
}

Expr Unary::make(UnaryOp op, Expr a) {
  if (op == UnaryOp::Not) {
    require_bool(a, "the operand of !");
  } else if (!is_numeric_scalar(a->type)) {
    type_error("unary - needs a numeric scalar, found " + type_str(a->type));
  }
  NodeKey k{NodeKind::Unary, a->type};
  k.add(a);
  k.ints = {static_cast<std::int64_t>(op)};
  k.flexible = a->flexible;
  return intern(k, [&] { return std::make_unique<Unary>(a->type, op, a); });
}

Expr Binary::make(BinaryOp op, Expr a, Expr b) {
  Type t;
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    require_bool(a, "an operand of && and ||");
    require_bool(b, "an operand of && and ||");
    t = Type::scalar(ElemType::Bool);
  } else {
    unify_scalars(a, b, op_name(op));
    if (is_comparison(op)) {
      if (a->flexible) {  // 2 < 3: compare as integers when both are whole numbers
        a = coerce_flexible(a, ElemType::F64);
        b = coerce_flexible(b, ElemType::F64);
      }
      if (a->type.elem == ElemType::Bool && op != BinaryOp::Eq && op != BinaryOp::Ne)
        type_error(std::string("operator ") + op_name(op) + " does not compare booleans");
      t = Type::scalar(ElemType::Bool);
    } else {
      if (a->type.elem == ElemType::Bool)
        type_error(std::string("operator ") + op_name(op) + " needs numbers, found bool");
      if (op == BinaryOp::Mod && !a->flexible && a->type.elem != ElemType::I64)
        type_error("operator % needs i64 operands");
      t = a->type;
    }
  }
  NodeKey k{NodeKind::Binary, t};
  k.add(a);
  k.add(b);
  k.ints = {static_cast<std::int64_t>(op)};
  k.flexible =
      a->flexible && b->flexible && !is_comparison(op) && op != BinaryOp::And && op != BinaryOp::Or;
  return intern(k, [&] { return std::make_unique<Binary>(t, op, a, b); });
}

Expr Prim::make(PrimOp op, std::vector<Expr> args) {
  if (static_cast<int>(args.size()) != prim_arity(op))
    type_error(std::string(op_name(op)) + " takes " + std::to_string(prim_arity(op)) +
               " argument(s), found " + std::to_string(args.size()));
  for (auto a : args)
    if (!a->type.is_scalar())
      type_error(std::string(op_name(op)) + " needs scalar arguments, found " + type_str(a->type));
  Type t;
  switch (op) {
    case PrimOp::Min:
    case PrimOp::Max:
      unify_scalars(args[0], args[1], op_name(op));
      if (args[0]->flexible) args = {fix(args[0], ElemType::F64), fix(args[1], ElemType::F64)};
      if (args[0]->type.elem == ElemType::Bool) type_error("min/max need numbers");
      t = args[0]->type;
      break;
    case PrimOp::Band:
    case PrimOp::Bxor:
      for (auto& a : args) {
        a = fix(a, ElemType::I64);
        require_index(a, "an operand of band/bxor");
      }
      t = Type::scalar(ElemType::I64);
      break;
    case PrimOp::ToF64:
    case PrimOp::ToF32:
    case PrimOp::ToI64:
      args[0] = fix(args[0], ElemType::F64);
      t = Type::scalar(op == PrimOp::ToF64   ? ElemType::F64
                       : op == PrimOp::ToF32 ? ElemType::F32
                                             : ElemType::I64);
      break;
    case PrimOp::Pow:
      unify_scalars(args[0], args[1], "pow");
      [[fallthrough]];
    default:
      for (auto& a : args) {
        a = fix(a, ElemType::F64);
        if (!is_float(a->type.elem))
          type_error(std::string(op_name(op)) + " needs a floating argument, found " +
                     type_str(a->type) + " (convert with f64(...))");
      }
      t = args[0]->type;
  }
  NodeKey k{NodeKind::Prim, t};
  k.add(args);
  k.ints.push_back(static_cast<std::int64_t>(op));
  return intern(k, [&] { return std::make_unique<Prim>(t, op, args); });
}

Expr Select::make(Expr cond, Expr a, Expr b) {
  require_bool(cond, "the condition of select");
  if (a->type.is_scalar() && b->type.is_scalar()) unify_scalars(a, b, "select");
  a = fix(a, ElemType::F64);
  b = fix(b, ElemType::F64);
  if (!same_shape(a->type, b->type))
    type_error("the branches of select have different types: " + type_str(a->type) + " and " +
               type_str(b->type));
  NodeKey k{NodeKind::Select, a->type};
  k.add(cond);
  k.add(a);
  k.add(b);
  return intern(k, [&] { return std::make_unique<Select>(a->type, cond, a, b); });
}

Expr Iverson::make(Expr pred, Expr body) {
  require_bool(pred, "an Iverson bracket");
  body = fix(body, ElemType::F64);
  if (body->type.elem == ElemType::Bool && !body->type.is_tuple())
    type_error("an Iverson bracket guards a number or tensor, found bool");
  NodeKey k{NodeKind::Iverson, body->type};
  k.add(pred);
  k.add(body);
  return intern(k, [&] { return std::make_unique<Iverson>(body->type, pred, body); });
}

Expr Exists::make(Domain dom, Expr pred) {
  check_domain(dom, false);
  require_bool(pred, "the body of exists");
  Type t = Type::scalar(ElemType::Bool);
  NodeKey k{NodeKind::Exists, t};
  k.add(dom);
  k.add(pred);
  return intern(k, [&] { return std::make_unique<Exists>(t, dom, pred); });
}

Expr Nz::make(Expr tensor, std::vector<Expr> indices) {
  const Type& tt = tensor->type;
  if (tt.storage == Storage::Dense)
    type_error("nz(...) needs a sparse (@csr or @coo) tensor, found " + type_str(tt));
  if (indices.size() != tt.rank())
    type_error("nz(...) on a rank-" + std::to_string(tt.rank()) + " tensor needs " +
               std::to_string(tt.rank()) + " indices");
  for (auto& i : indices) {
    i = fix(i, ElemType::I64);
    require_index(i, "an index of nz");
  }
  Type t = Type::scalar(ElemType::Bool);
  NodeKey k{NodeKind::Nz, t};
  k.add(tensor);
  k.add(indices);
  return intern(k, [&] { return std::make_unique<Nz>(t, tensor, indices); });
}

Expr Access::make(Expr tensor, std::vector<Expr> indices) {
  const Type& tt = tensor->type;
  if (indices.empty()) type_error("an access needs at least one index");
  if (indices.size() > tt.rank())
    type_error("`" + expr_str(tensor) + "` of type " + type_str(tt) + " has rank " +
               std::to_string(tt.rank()) + " but is indexed with " +
               std::to_string(indices.size()) + " indices");
  for (auto& i : indices) {
    i = fix(i, ElemType::I64);
    require_index(i, "an index");
  }
  Type t = tt.drop_dims(indices.size());
  NodeKey k{NodeKind::Access, t};
  k.add(tensor);
  k.add(indices);
  return intern(k, [&] { return std::make_unique<Access>(t, tensor, indices); });
}

Expr Gen::make(Domain dom, Expr body) {
  check_domain(dom, false);
  if (dom.vars.empty()) type_error("gen needs at least one index");
  body = fix(body, ElemType::F64);
  Type t = body->type;
  t.dims.insert(t.dims.begin(), dom.bounds.begin(), dom.bounds.end());
  t.storage = Storage::Dense;
  NodeKey k{NodeKind::Gen, t};
  k.add(dom);
  k.add(body);
  return intern(k, [&] { return std::make_unique<Gen>(t, dom, body); });
}

Expr Reduce::make(ReduceOp op, Domain dom, Expr body) {
  if (op == ReduceOp::Prod) type_error("products are scans only: scan[i < n] (*) e");
  check_domain(dom, op == ReduceOp::Sum || op == ReduceOp::Max || op == ReduceOp::Min);
  body = fix(body, ElemType::F64);
  if (!is_numeric_scalar(body->type))
    type_error(std::string(op == ReduceOp::Sum ? "sum" : op_name(op)) +
               " needs a numeric scalar body, found " + type_str(body->type));
  NodeKey k{NodeKind::Reduce, body->type};
  k.add(dom);
  k.add(body);
  k.ints.push_back(static_cast<std::int64_t>(op));
  return intern(k, [&] { return std::make_unique<Reduce>(body->type, op, dom, body); });
}

Expr Scan::make(ReduceOp op, Domain dom, Expr body) {
  check_domain(dom, false);
  if (dom.vars.size() != 1) type_error("scan takes exactly one index");
  body = fix(body, ElemType::F64);
  if (!is_numeric_scalar(body->type))
    type_error("scan needs a numeric scalar body, found " + type_str(body->type));
  Type t = Type::tensor(body->type.elem, {dom.bounds[0]});
  NodeKey k{NodeKind::Scan, t};
  k.add(dom);
  k.add(body);
  k.ints.push_back(static_cast<std::int64_t>(op));
  return intern(k, [&] { return std::make_unique<Scan>(t, op, dom, body); });
}

Expr Loop::make(Domain dom, std::vector<Expr> state, std::vector<Expr> init, Expr body) {
  check_domain(dom, false);
  if (dom.vars.size() != 1) type_error("loop takes exactly one index");
  if (state.empty() || state.size() != init.size())
    type_error("loop needs state = initial value pairs");
  std::vector<Type> ts;
  for (std::size_t k = 0; k < state.size(); ++k) {
    init[k] = fix(init[k], state[k]->type.elem);
    if (!same_shape(state[k]->type, init[k]->type))
      type_error("loop state `" + var_name(state[k]) + "` has type " + type_str(state[k]->type) +
                 " but its initial value has type " + type_str(init[k]->type));
    ts.push_back(state[k]->type);
  }
  Type t = ts.size() == 1 ? ts[0] : Type::tuple(ts);
  if (t.is_scalar()) body = fix(body, t.elem);
  if (!same_shape(body->type, t))
    type_error("loop state changes type: it is " + type_str(t) + " but `next` gives " +
               type_str(body->type));
  NodeKey k{NodeKind::Loop, t};
  k.add(dom);
  k.add(state);
  k.add(init);
  k.add(body);
  return intern(k, [&] { return std::make_unique<Loop>(t, dom, state, init, body); });
}

Expr Scatter::make(Domain dom, Type result, std::vector<Expr> at, Expr value) {
  check_domain(dom, true);
  if (result.is_tuple() || result.rank() == 0) type_error("scatter produces a tensor");
  if (result.storage == Storage::Csr) type_error("a scatter result is dense or @coo, not @csr");
  if (result.storage == Storage::Coo && !is_float(result.elem))
    type_error("a sparse (@coo) scatter result must be floating (f64 or f32)");
  if (at.size() != result.rank())
    type_error("scatter into a rank-" + std::to_string(result.rank()) + " tensor needs " +
               std::to_string(result.rank()) + " indices in `at`, found " +
               std::to_string(at.size()));
  for (auto& a : at) {
    a = fix(a, ElemType::I64);
    require_index(a, "a scatter index");
  }
  value = fix(value, result.elem);
  if (!value->type.is_scalar() || value->type.elem != result.elem)
    type_error("a scatter into " + type_str(result) + " adds " + elem_name(result.elem) +
               " scalars, found " + type_str(value->type));
  NodeKey k{NodeKind::Scatter, result};
  k.add(dom);
  k.add(at);
  k.add(value);
  return intern(k, [&] { return std::make_unique<Scatter>(result, dom, at, value); });
}

Expr Let::make(std::vector<Expr> vars, Expr value, Expr body) {
  value = fix(value, ElemType::F64);
  if (vars.empty()) type_error("let binds at least one name");
  // a binder that is not a name failed later inside the printer, in a destructor (terminate; an
  // audit helper's rule mutant, decision 231)
  for (const auto& v : vars)
    if (!v.as<Var>()) type_error(std::string("let binds a ") + kind_name(v->kind) + ", not a name");
  if (vars.size() == 1) {
    if (!same_shape(vars[0]->type, value->type))
      type_error("let `" + var_name(vars[0]) + "` has type " + type_str(vars[0]->type) +
                 " but its value has type " + type_str(value->type));
  } else {
    if (!value->type.is_tuple() || !value->type.dims.empty() ||
        value->type.fields.size() != vars.size())
      type_error("let (" + std::to_string(vars.size()) + " names) needs a tuple of " +
                 std::to_string(vars.size()) + ", found " + type_str(value->type));
    for (std::size_t k = 0; k < vars.size(); ++k)
      if (!same_shape(vars[k]->type, value->type.fields[k]))
        type_error("let `" + var_name(vars[k]) + "` has the wrong type");
  }
  NodeKey k{NodeKind::Let, body->type};
  k.add(vars);
  k.add(value);
  k.add(body);
  return intern(k, [&] { return std::make_unique<Let>(body->type, vars, value, body); });
}

Expr Tuple::make(std::vector<Expr> elems) {
  if (elems.size() < 2) type_error("a tuple has at least two fields");
  std::vector<Type> ts;
  for (auto& e : elems) {
    e = fix(e, ElemType::F64);
    ts.push_back(e->type);
  }
  Type t = Type::tuple(ts);
  NodeKey k{NodeKind::Tuple, t};
  k.add(elems);
  return intern(k, [&] { return std::make_unique<Tuple>(t, elems); });
}

Expr Proj::make(Expr tuple, int index) {
  const Type& tt = tuple->type;
  if (!tt.is_tuple())
    type_error("`." + std::to_string(index) + "` needs a tuple, found " + type_str(tt));
  if (index < 0 || index >= static_cast<int>(tt.fields.size()))
    type_error("tuple of " + std::to_string(tt.fields.size()) + " fields has no field " +
               std::to_string(index));
  // Projection of an array of tuples is the array of that field (DESIGN 2.1).
  Type t = tt.fields[static_cast<std::size_t>(index)];
  t.dims.insert(t.dims.begin(), tt.dims.begin(), tt.dims.end());
  NodeKey k{NodeKind::Proj, t};
  k.add(tuple);
  k.ints.push_back(index);
  return intern(k, [&] { return std::make_unique<Proj>(t, tuple, index); });
}

Expr Call::make(std::shared_ptr<const Function> callee, std::vector<Expr> args) {
  const Function& f = *callee;
  if (args.size() != f.params.size())
    type_error("`" + f.name + "` takes " + std::to_string(f.params.size()) +
               " argument(s), found " + std::to_string(args.size()));
  // Unify the callee's sizes with the argument shapes (its sizes are renamed apart by binding).
  SubstMap sizes;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Type& pt = f.params[k]->type;
    if (pt.is_scalar()) args[k] = fix(args[k], pt.elem);
    const Type& at = args[k]->type;
    // the storage too: the compiled backend reads a @csr parameter's row pointers, which a
    // @coo or dense argument does not have (a segfault; an audit helper, decision 235)
    if (at.rank() != pt.rank() || at.is_tuple() != pt.is_tuple() ||
        (!pt.is_tuple() && at.elem != pt.elem) || at.storage != pt.storage)
      type_error("argument " + std::to_string(k + 1) + " of `" + f.name + "` must have type " +
                 type_str(pt) + ", found " + type_str(at));
    for (std::size_t d = 0; d < pt.rank(); ++d) {
      Expr pd = pt.dims[d];
      if (pd.as<Var>() && !sizes.count(pd)) sizes[pd] = at.dims[d];
    }
    // A rank-0 i64 parameter used as a size binds it to the argument's value.
    if (pt.is_index() && std::find(f.sizes.begin(), f.sizes.end(), f.params[k]) != f.sizes.end())
      sizes[f.params[k]] = args[k];
  }
  for (std::size_t k = 0; k < args.size(); ++k) {
    Type want = substitute_type(f.params[k]->type, sizes);
    if (!same_shape(want, args[k]->type))
      type_error("argument " + std::to_string(k + 1) + " of `" + f.name + "` has shape " +
                 type_str(args[k]->type) + " but the call needs " + type_str(want));
  }
  for (auto s : f.sizes)
    if (!sizes.count(s))
      type_error("size `" + var_name(s) + "` of `" + f.name + "` is not bound by its arguments");
  Type t = substitute_type(f.result_type, sizes);
  NodeKey k{NodeKind::Call, t};
  k.add(args);
  k.ptr = callee.get();
  return intern(k, [&] { return std::make_unique<Call>(t, callee, args); });
}

}  // namespace adlab::ir
