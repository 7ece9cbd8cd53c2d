// Names of element types and storage layouts, as written in .adl types (DESIGN 2.1).
#include "ir/tensor/tensor.h"

namespace adlab::ir {

const char* elem_name(ElemType e) {
  switch (e) {
    case ElemType::F64:
      return "f64";
    case ElemType::F32:
      return "f32";
    case ElemType::I64:
      return "i64";
    case ElemType::Bool:
      return "bool";
  }
  return "?";
}

const char* storage_name(Storage s) {
  switch (s) {
    case Storage::Dense:
      return "dense";
    case Storage::Csr:
      return "csr";
    case Storage::Coo:
      return "coo";
  }
  return "?";
}

}  // namespace adlab::ir
