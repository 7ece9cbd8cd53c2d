// The `cpu` backend: IR -> C++ -> shared object, loaded with dlopen (DESIGN 5).
#pragma once

#include <memory>

#include "backends/backend.h"

namespace adlab::backends {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace adlab::backends
