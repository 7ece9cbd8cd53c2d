// The strategy registry, modes and derivative executables.
#include "ad/strategy.h"

#include "ad/dualrev/dualrev_strategy.h"
#include "ad/fd/fd_strategy.h"
#include "ad/fwdvec/fwdvec_strategy.h"
#include "ad/iverson/iverson_strategy.h"
#include "ad/scatter/scatter_strategy.h"
#include "ad/sparse/sparse_strategy.h"

#include <algorithm>

namespace adlab::ad {

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Gradient:
      return "gradient";
    case Mode::Vjp:
      return "vjp";
    case Mode::Jvp:
      return "jvp";
    case Mode::Jacobian:
      return "jacobian";
    case Mode::Hvp:
      return "hvp";
  }
  return "?";
}

Mode parse_mode(std::string_view s) {
  for (Mode m : {Mode::Gradient, Mode::Vjp, Mode::Jvp, Mode::Jacobian, Mode::Hvp})
    if (s == mode_name(m)) return m;
  throw Error("unknown mode `" + std::string(s) + "` (gradient, vjp, jvp, jacobian, hvp)");
}

std::vector<std::size_t> wrt_parameters(const ir::Function& f,
                                        const std::vector<std::string>& wrt) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < f.params.size(); ++k) {
    const auto& t = f.params[k]->type;
    const std::string& name = ir::var_name(f.params[k]);
    bool wanted = wrt.empty() ? (!t.is_tuple() && ir::is_float(t.elem))
                              : std::find(wrt.begin(), wrt.end(), name) != wrt.end();
    if (wanted) out.push_back(k);
  }
  return out;
}

bool Capabilities::supports(Mode m) const {
  return std::find(modes.begin(), modes.end(), m) != modes.end();
}

std::unique_ptr<backends::Executable> Derivative::executable(const std::string& backend,
                                                             const backends::Options& o) const {
  if (function) return backends::BackendRegistry::instance().get(backend).compile(function, o);
  if (make_engine) return make_engine(o);
  throw Error("the derivative has neither a function nor an engine");
}

StrategyRegistry& StrategyRegistry::instance() {
  // Built-in strategies are registered on first use (a static library drops self-registering
  // objects nobody references).
  static StrategyRegistry* registry = [] {
    static StrategyRegistry r;
    r.add(make_fd_strategy());
    r.add(make_dualrev_strategy());
    r.add(make_scatter_strategy());
    r.add(make_sparse_strategy());
    r.add(make_fwdvec_strategy());
    r.add(make_iverson_strategy());
    return &r;
  }();
  return *registry;
}

void StrategyRegistry::add(std::unique_ptr<Strategy> s) {
  if (find(s->name())) throw Error("strategy `" + std::string(s->name()) + "` is registered twice");
  strategies_.push_back(std::move(s));
}

const Strategy* StrategyRegistry::find(std::string_view name) const {
  for (const auto& s : strategies_)
    if (s->name() == name) return s.get();
  return nullptr;
}

std::pair<const Strategy*, std::string> StrategyRegistry::resolve(std::string_view spec) const {
  auto slash = spec.find('/');
  std::string_view name = spec.substr(0, slash);
  std::string variant = slash == std::string_view::npos ? "" : std::string(spec.substr(slash + 1));
  const Strategy* s = find(name);
  if (!s) {
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown strategy `" + std::string(name) + "`" +
                (known.empty() ? " (no strategy is registered yet)" : " (known: " + known + ")"));
  }
  auto caps = s->capabilities();
  if (!variant.empty() &&
      std::find(caps.variants.begin(), caps.variants.end(), variant) == caps.variants.end())
    throw Error("strategy `" + std::string(name) + "` has no variant `" + variant + "`");
  return {s, variant};
}

std::vector<std::string> StrategyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& s : strategies_) out.emplace_back(s->name());
  return out;
}

}  // namespace adlab::ad
