// The `interp` backend: an adapter over the reference interpreter (DESIGN 5).
#pragma once

#include <memory>

#include "backends/backend.h"

namespace adlab::backends {

std::unique_ptr<Backend> make_interp_backend();

}  // namespace adlab::backends
