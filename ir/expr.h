// IR expression nodes: immutable, hash-consed per Context, typed locally by make()
// (DESIGN 2.2, 2.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

struct ExprNode;
struct Function;

// A shared handle to an interned node. Equality is pointer equality, which is structural
// equality because nodes are hash-consed.
class Expr {
 public:
  Expr() = default;
  Expr(const ExprNode* node) : node_(node) {}  // NOLINT: handles convert implicitly
  Expr(std::nullptr_t) = delete;               // a literal 0 is not an expression: use dsl::num(0)
  Expr(int) = delete;
  bool defined() const { return node_ != nullptr; }
  const ExprNode* get() const { return node_; }
  const ExprNode* operator->() const { return node_; }
  const ExprNode& operator*() const { return *node_; }
  template <class T>
  const T* as() const;  // nullptr when the node is not a T
  bool operator==(const Expr& o) const { return node_ == o.node_; }
  bool operator!=(const Expr& o) const { return node_ != o.node_; }
  bool operator<(const Expr& o) const { return node_ < o.node_; }

 private:
  const ExprNode* node_ = nullptr;
};

struct ExprHash {
  std::size_t operator()(const Expr& e) const { return std::hash<const void*>()(e.get()); }
};

enum class NodeKind : std::uint8_t {
#define ADLAB_NODE(N) N,
#include "ir/node_kinds.def"
};
const char* kind_name(NodeKind k);

// The type of an expression (DESIGN 2.1). A tensor of `elem` (or of tuples `fields`) with
// dimensions `dims` (integer expressions of sizes); rank 0 is a scalar, or a plain tuple.
struct Type {
  std::vector<Expr> dims;
  ElemType elem = ElemType::F64;
  std::vector<Type> fields;  // non-empty: the element is a tuple
  Storage storage = Storage::Dense;

  static Type scalar(ElemType e) { return Type{{}, e, {}, Storage::Dense}; }
  static Type tensor(ElemType e, std::vector<Expr> dims, Storage s = Storage::Dense) {
    return Type{std::move(dims), e, {}, s};
  }
  static Type tuple(std::vector<Type> fields) {
    return Type{{}, ElemType::F64, std::move(fields), Storage::Dense};
  }

  bool is_tuple() const { return !fields.empty(); }
  bool is_scalar() const { return dims.empty() && fields.empty(); }
  bool is_index() const { return is_scalar() && elem == ElemType::I64; }
  bool is_bool() const { return is_scalar() && elem == ElemType::Bool; }
  bool is_float_scalar() const { return is_scalar() && is_float(elem); }
  std::size_t rank() const { return dims.size(); }
  // The type of one element: dims dropped (a scalar or a tuple).
  Type element() const;
  // The type after indexing the first k dimensions.
  Type drop_dims(std::size_t k) const;
  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
  std::size_t hash() const;
};

enum class UnaryOp : std::uint8_t { Neg, Not };
enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
enum class PrimOp : std::uint8_t {
  Exp,
  Log,
  Log1p,
  Expm1,
  Sin,
  Cos,
  Tan,
  Tanh,
  Sigmoid,
  Sqrt,
  Abs,
  Lgamma,  // unary smooth
  Floor,
  Round,  // float -> float
  Pow,
  Min,
  Max,  // binary
  Band,
  Bxor,  // integer only
  ToF64,
  ToF32,
  ToI64  // conversions
};
enum class ReduceOp : std::uint8_t { Sum, Prod, Max, Min };

const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);
const char* op_name(PrimOp op);
const char* op_name(ReduceOp op);
int prim_arity(PrimOp op);
bool is_comparison(BinaryOp op);

// Common part of every node.
struct ExprNode {
  NodeKind kind;
  Type type;
  std::size_t hash = 0;
  std::uint32_t id = 0;  // creation order in its Context (dense; used for slots)
  bool flexible =
      false;  // built only from untyped numeric literals: its element type adapts to use
  ExprNode(NodeKind k, Type t) : kind(k), type(std::move(t)) {}
  virtual ~ExprNode() = default;
  ExprNode(const ExprNode&) = delete;
  ExprNode& operator=(const ExprNode&) = delete;
};

// An iteration space. Rectangular: vars[k] ranges over [0, bounds[k]); a bound may use earlier
// vars (sum/max/min/scan/loop) or only sizes (gen/scatter). Stored entries: `(vars) in source`
// or `(vars) in source[prefix]` iterates the stored entries of a sparse tensor, row-major.
struct Domain {
  std::vector<Expr> vars;
  std::vector<Expr> bounds;
  Expr source;
  std::vector<Expr> prefix;
  bool is_stored() const { return source.defined(); }
};

// A numeric or boolean constant; `pi`, `true`, `false` are literals too.
struct Literal : ExprNode {
  double value;
  static Expr make(double value, ElemType elem);
  static Expr make_flexible(double value);  // an untyped number: f64 unless its use needs i64
  Literal(Type t, double v) : ExprNode(NodeKind::Literal, std::move(t)), value(v) {}
};

// A variable: a parameter, size, let-bound name, index or loop state. Interned by name and type.
struct Var : ExprNode {
  std::string name;
  static Expr make(std::string name, Type type);
  Var(Type t, std::string n) : ExprNode(NodeKind::Var, std::move(t)), name(std::move(n)) {}
};

// -a (numbers) or !a (booleans).
struct Unary : ExprNode {
  UnaryOp op;
  Expr a;
  static Expr make(UnaryOp op, Expr a);
  Unary(Type t, UnaryOp o, Expr x) : ExprNode(NodeKind::Unary, std::move(t)), op(o), a(x) {}
};

// Scalar arithmetic (floor / and % on i64), comparisons, && and ||. Operands are scalars.
struct Binary : ExprNode {
  BinaryOp op;
  Expr a, b;
  static Expr make(BinaryOp op, Expr a, Expr b);
  Binary(Type t, BinaryOp o, Expr x, Expr y)
      : ExprNode(NodeKind::Binary, std::move(t)), op(o), a(x), b(y) {}
};

// A primitive function or conversion applied to scalars.
struct Prim : ExprNode {
  PrimOp op;
  std::vector<Expr> args;
  static Expr make(PrimOp op, std::vector<Expr> args);
  Prim(Type t, PrimOp o, std::vector<Expr> xs)
      : ExprNode(NodeKind::Prim, std::move(t)), op(o), args(std::move(xs)) {}
};

// select(cond, a, b): only the taken branch is evaluated (lazy).
struct Select : ExprNode {
  Expr cond, then_value, else_value;
  static Expr make(Expr cond, Expr a, Expr b);
  Select(Type t, Expr c, Expr a, Expr b)
      : ExprNode(NodeKind::Select, std::move(t)), cond(c), then_value(a), else_value(b) {}
};

// [pred] * body: a strong zero; body is not evaluated where pred is false. Body may be a tensor.
struct Iverson : ExprNode {
  Expr pred, body;
  static Expr make(Expr pred, Expr body);
  Iverson(Type t, Expr p, Expr b) : ExprNode(NodeKind::Iverson, std::move(t)), pred(p), body(b) {}
};

// exists[k < n] pred.
struct Exists : ExprNode {
  Domain dom;
  Expr pred;
  static Expr make(Domain dom, Expr pred);
  Exists(Type t, Domain d, Expr p)
      : ExprNode(NodeKind::Exists, std::move(t)), dom(std::move(d)), pred(p) {}
};

// nz(A, i, j): whether (i, j) is a stored entry of the sparse tensor A.
struct Nz : ExprNode {
  Expr tensor;
  std::vector<Expr> indices;
  static Expr make(Expr tensor, std::vector<Expr> indices);
  Nz(Type t, Expr a, std::vector<Expr> is)
      : ExprNode(NodeKind::Nz, std::move(t)), tensor(a), indices(std::move(is)) {}
};

// tensor[indices]: a prefix of the indices gives a sub-tensor. Out of range is an error.
struct Access : ExprNode {
  Expr tensor;
  std::vector<Expr> indices;
  static Expr make(Expr tensor, std::vector<Expr> indices);
  Access(Type t, Expr a, std::vector<Expr> is)
      : ExprNode(NodeKind::Access, std::move(t)), tensor(a), indices(std::move(is)) {}
};

// gen[i < n, ...] body: tensor generation (paper 000 Gen, paper 001 build).
struct Gen : ExprNode {
  Domain dom;
  Expr body;
  static Expr make(Domain dom, Expr body);
  Gen(Type t, Domain d, Expr b)
      : ExprNode(NodeKind::Gen, std::move(t)), dom(std::move(d)), body(b) {}
};

// sum/max/min[...] body over a rectangular or stored-entry domain; body is a scalar.
// An empty sum is 0; an empty max/min is an error.
struct Reduce : ExprNode {
  ReduceOp op;
  Domain dom;
  Expr body;
  static Expr make(ReduceOp op, Domain dom, Expr body);
  Reduce(Type t, ReduceOp o, Domain d, Expr b)
      : ExprNode(NodeKind::Reduce, std::move(t)), op(o), dom(std::move(d)), body(b) {}
};

// scan[i < n] (op) body: r[i] = body(0) op ... op body(i).
struct Scan : ExprNode {
  ReduceOp op;
  Domain dom;
  Expr body;
  static Expr make(ReduceOp op, Domain dom, Expr body);
  Scan(Type t, ReduceOp o, Domain d, Expr b)
      : ExprNode(NodeKind::Scan, std::move(t)), op(o), dom(std::move(d)), body(b) {}
};

// loop[t < T] (s0 = init0, ...) { ...; next e }: sequential state update (paper 001 ifold).
// body is the `next` value: one state value, or a tuple of them. Value: the final state.
struct Loop : ExprNode {
  Domain dom;
  std::vector<Expr> state;
  std::vector<Expr> init;
  Expr body;
  static Expr make(Domain dom, std::vector<Expr> state, std::vector<Expr> init, Expr body);
  Loop(Type t, Domain d, std::vector<Expr> s, std::vector<Expr> i, Expr b)
      : ExprNode(NodeKind::Loop, std::move(t)),
        dom(std::move(d)),
        state(std::move(s)),
        init(std::move(i)),
        body(b) {}
};

// scatter[dom] to TYPE at (at...) add value: a zero tensor of TYPE plus every contribution.
// A @coo result stores exactly the keys produced.
struct Scatter : ExprNode {
  Domain dom;
  std::vector<Expr> at;
  Expr value;
  static Expr make(Domain dom, Type result, std::vector<Expr> at, Expr value);
  Scatter(Type t, Domain d, std::vector<Expr> a, Expr v)
      : ExprNode(NodeKind::Scatter, std::move(t)), dom(std::move(d)), at(std::move(a)), value(v) {}
};

// let x = value; body  (or let (x, y) = value; body to destructure a tuple). Strict, evaluated
// once.
struct Let : ExprNode {
  std::vector<Expr> vars;
  Expr value, body;
  static Expr make(std::vector<Expr> vars, Expr value, Expr body);
  Let(Type t, std::vector<Expr> v, Expr val, Expr b)
      : ExprNode(NodeKind::Let, std::move(t)), vars(std::move(v)), value(val), body(b) {}
};

// (a, b, ...).
struct Tuple : ExprNode {
  std::vector<Expr> elems;
  static Expr make(std::vector<Expr> elems);
  Tuple(Type t, std::vector<Expr> es)
      : ExprNode(NodeKind::Tuple, std::move(t)), elems(std::move(es)) {}
};

// e.k: the k-th field of a tuple (of an array of tuples: the array of k-th fields).
struct Proj : ExprNode {
  Expr tuple;
  int index;
  static Expr make(Expr tuple, int index);
  Proj(Type t, Expr e, int k) : ExprNode(NodeKind::Proj, std::move(t)), tuple(e), index(k) {}
};

// f(args...): a call of a function defined earlier; the call let-binds its arguments.
struct Call : ExprNode {
  std::shared_ptr<const Function> callee;
  std::vector<Expr> args;
  static Expr make(std::shared_ptr<const Function> callee, std::vector<Expr> args);
  Call(Type t, std::shared_ptr<const Function> f, std::vector<Expr> as)
      : ExprNode(NodeKind::Call, std::move(t)), callee(std::move(f)), args(std::move(as)) {}
};

template <class T>
const T* Expr::as() const {
  if (!node_) return nullptr;
#define ADLAB_NODE(N)                 \
  if constexpr (std::is_same_v<T, N>) \
    return node_->kind == NodeKind::N ? static_cast<const N*>(node_) : nullptr;
#include "ir/node_kinds.def"
  return nullptr;
}

// Convenience predicates.
inline bool is_literal(Expr e, double v) {
  auto* l = e.as<Literal>();
  return l && l->value == v;
}
const std::string& var_name(Expr v);  // the name of a Var node

// Retypes an expression made only of untyped literals (flexible) to element type `elem`.
Expr coerce_flexible(Expr e, ElemType elem);

}  // namespace adlab::ir
