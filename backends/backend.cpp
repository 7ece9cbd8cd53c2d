// The backend registry.
#include "backends/backend.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/interp/interp_backend.h"
#include "ir/error.h"

namespace adlab::backends {

BackendRegistry& BackendRegistry::instance() {
  static BackendRegistry* registry = [] {
    static BackendRegistry r;
    r.add(make_interp_backend());
    r.add(make_cpu_backend());
    return &r;
  }();
  return *registry;
}

void BackendRegistry::add(std::unique_ptr<Backend> b) {
  if (find(b->name())) throw Error("backend `" + std::string(b->name()) + "` is registered twice");
  backends_.push_back(std::move(b));
}

Backend* BackendRegistry::find(std::string_view name) const {
  for (const auto& b : backends_)
    if (b->name() == name) return b.get();
  return nullptr;
}

Backend& BackendRegistry::get(std::string_view name) const {
  if (auto* b = find(name)) return *b;
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown backend `" + std::string(name) + "` (known: " + known + ")");
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& b : backends_) out.emplace_back(b->name());
  return out;
}

}  // namespace adlab::backends
