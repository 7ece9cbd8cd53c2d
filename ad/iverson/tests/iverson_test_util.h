// Shared helpers of the iverson tests: loading suite entries, running functions with operation
// counts, and an independent check that a derivative is gather-only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ad/iverson/iverson_strategy.h"
#include "backends/backend.h"
#include "ir/interp/op_counts.h"
#include "ir/suite/inputs.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"
#include "ir/visitor.h"

namespace adlab::ad::iverson::testing {

inline std::string suites_root() {
  return std::string(ADLAB_SOURCE_DIR) + "/suites";
}

inline const Strategy& strategy() {
  static auto s = make_iverson_strategy();
  return *s;
}

inline ir::FunctionPtr load(const ir::SuiteEntry& e) {
  static std::map<std::string, ir::Module> cache;
  auto it = cache.find(e.program);
  if (it == cache.end()) it = cache.emplace(e.program, ir::parse_file(e.program)).first;
  return it->second.entry(e.function);
}

struct Counted {
  std::vector<ir::Tensor> out;
  ir::OpCounts counts;
};

inline Counted run_counted(const ir::FunctionPtr& f, const std::vector<ir::Tensor>& in,
                           const ir::SizeMap& sizes) {
  backends::Options o;
  o.sizes = sizes;
  o.count_ops = true;
  auto exe = backends::BackendRegistry::instance().get("interp").compile(f, o);
  Counted c;
  c.out = exe->run(in);
  if (exe->counts()) c.counts = *exe->counts();
  return c;
}

// Independent of the strategy's own validator: no scatter anywhere, no let under a gen or a sum.
class GatherOnly : public ir::Visitor {
 public:
  int scatters = 0, nested_lets = 0;

 protected:
  int depth_ = 0;
  void visit_node(const ir::Scatter& n, ir::Expr self) override {
    ++scatters;
    ir::Visitor::visit_node(n, self);
  }
  void visit_node(const ir::Let& n, ir::Expr self) override {
    if (depth_ > 0) ++nested_lets;
    ir::Visitor::visit_node(n, self);
  }
  void visit_node(const ir::Gen& n, ir::Expr self) override {
    ++depth_;
    ir::Visitor::visit_node(n, self);
    --depth_;
  }
  void visit_node(const ir::Reduce& n, ir::Expr self) override {
    ++depth_;
    ir::Visitor::visit_node(n, self);
    --depth_;
  }
};

}  // namespace adlab::ad::iverson::testing
