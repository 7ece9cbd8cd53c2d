// Helpers of the normalisation passes.
#include "ad/iverson/pass_util.h"

#include "ir/typecheck.h"

namespace adlab::ad::iverson {

using namespace ir;

std::string construct_name(Expr e) {
  switch (e->kind) {
    case NodeKind::Loop:
      return "`loop`";
    case NodeKind::Scan:
      return "`scan`";
    case NodeKind::Scatter:
      return "`scatter`";
    case NodeKind::Select:
      return "`select`";
    case NodeKind::Reduce:
      return std::string("a `") + op_name(e.as<Reduce>()->op) + "` reduction";
    default:
      return std::string("`") + kind_name(e->kind) + "`";
  }
}

FunctionPtr rebuilt(const Function& f, const std::string& name, std::vector<Stmt> stmts,
                    std::vector<Expr> results) {
  auto out = std::make_shared<Function>();
  out->name = name;
  out->declared_sizes = f.declared_sizes;
  out->sizes = f.sizes;
  out->params = f.params;
  out->pos = f.pos;
  out->result_pos = f.result_pos;
  out->stmts = std::move(stmts);
  out->results = std::move(results);
  std::vector<Type> types;
  for (auto r : out->results) types.push_back(r->type);
  out->result_type = types.size() == 1 ? types[0] : Type::tuple(types);
  check_function(*out);
  return out;
}

}  // namespace adlab::ad::iverson
