// Runtime values of the reference interpreter: a number, an integer (i64 or bool), a tensor,
// or a tuple. An array of tuples is held as a tuple of arrays (struct of arrays).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

template <class T>
struct Value {
  enum class Kind : std::uint8_t { None, Float, Int, Tensor, Tuple };
  Kind kind = Kind::None;
  T f{};
  std::int64_t i = 0;
  std::shared_ptr<const BasicTensor<T>> t;
  std::shared_ptr<const std::vector<Value>> fields;

  static Value of_float(T v) {
    Value r;
    r.kind = Kind::Float;
    r.f = v;
    return r;
  }
  static Value of_int(std::int64_t v) {
    Value r;
    r.kind = Kind::Int;
    r.i = v;
    return r;
  }
  static Value of_tensor(BasicTensor<T> x) {
    Value r;
    r.kind = Kind::Tensor;
    r.t = std::make_shared<const BasicTensor<T>>(std::move(x));
    return r;
  }
  static Value of_tuple(std::vector<Value> xs) {
    Value r;
    r.kind = Kind::Tuple;
    r.fields = std::make_shared<const std::vector<Value>>(std::move(xs));
    return r;
  }
  bool is_tensor() const { return kind == Kind::Tensor; }
  bool is_tuple() const { return kind == Kind::Tuple; }
  const Value& field(std::size_t k) const { return (*fields)[k]; }
};

// A rank-0 tensor for a scalar value, the tensor itself otherwise (tuples are not tensors).
template <class T>
BasicTensor<T> to_tensor(const Value<T>& v, ElemType elem) {
  if (v.kind == Value<T>::Kind::Tensor) return *v.t;
  BasicTensor<T> r;
  r.elem = elem;
  if (v.kind == Value<T>::Kind::Float)
    r.values = {v.f};
  else
    r.ints = {v.i};
  return r;
}

}  // namespace adlab::ir
