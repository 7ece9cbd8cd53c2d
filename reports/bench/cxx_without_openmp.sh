#!/bin/sh
# A compiler wrapper for ADLAB_CXX: the cpu backend's command with -fopenmp replaced by
# -fopenmp-simd, so the generated units keep their `omp simd` loops (the same arithmetic) but run
# serially without entering `omp parallel` regions. Used by bench_adjoint_code to show the cost
# of the region entries on small functions (docs/strategies/dualrev.md).
compiler=${ADLAB_WRAPPED_CXX:-c++}
for arg in "$@"; do
  shift
  if [ "$arg" = "-fopenmp" ]; then set -- "$@" -fopenmp-simd; else set -- "$@" "$arg"; fi
done
exec "$compiler" "$@"
