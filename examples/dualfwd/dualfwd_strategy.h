// `dualfwd`: forward mode by dual numbers run through the reference interpreter, the worked
// example of docs/adding-a-strategy.md. One run per direction: jvp in one, gradient, vjp and
// jacobian in one run per differentiated coordinate.
#pragma once

#include <memory>

#include "ad/strategy.h"

namespace adlab::examples::dualfwd {

std::unique_ptr<ad::Strategy> make_dualfwd_strategy();

}  // namespace adlab::examples::dualfwd
