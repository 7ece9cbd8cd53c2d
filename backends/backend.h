// The Backend/Executable interface and the backend registry (DESIGN 5).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/error.h"
#include "ir/function.h"
#include "ir/interp/op_counts.h"
#include "ir/tensor/tensor.h"

namespace adlab::backends {

// Thrown by compile() for a construct a backend has no translation for; the harness reports the
// cell UNSUPPORTED rather than ERROR (DESIGN 5).
class Unsupported : public Error {
 public:
  using Error::Error;
};

struct Options {
  // The scalar type programs run in: "double" (default), "float", "mp50". A backend is told it
  // by name; it never includes ad/ (DESIGN 1).
  std::string scalar_type = "double";
  std::map<std::string, std::int64_t> sizes;  // sizes no parameter binds
  bool count_ops = false;
  // Directory where a compiling backend writes the generated source (`--keep-source`); empty:
  // none.
  std::string keep_source;
};

// A compiled function: runs on tensors (rank 0 for scalars), one per parameter and per result.
class Executable {
 public:
  virtual ~Executable() = default;
  virtual std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs) = 0;
  // run() into `outputs`, whose previous tensors a backend may reuse as result buffers (a
  // repeated call then writes warm memory instead of allocating). If it throws, outputs holds
  // no result of this call (it is empty or unchanged).
  virtual void run_into(const std::vector<ir::Tensor>& inputs, std::vector<ir::Tensor>& outputs) {
    outputs = run(inputs);
  }
  // Operation counts of the last run, when the backend counts them (the interpreter does).
  virtual const ir::OpCounts* counts() const { return nullptr; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string description() const = 0;
  // Whether `adlab check` runs it when no --backend is given (compiling backends opt in).
  virtual bool default_in_checks() const { return true; }
  // Throws adlab::Error when the function or options are unsupported.
  virtual std::unique_ptr<Executable> compile(const ir::FunctionPtr& f, const Options& options) = 0;
};

// Backends by name. The built-in ones (interp) are registered on first use.
class BackendRegistry {
 public:
  static BackendRegistry& instance();
  void add(std::unique_ptr<Backend> b);
  Backend* find(std::string_view name) const;
  Backend& get(std::string_view name) const;  // throws adlab::Error listing the known names
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<Backend>> backends_;
};

}  // namespace adlab::backends
