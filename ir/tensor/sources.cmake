# Tensor values and file I/O (ir/tensor): included by ir/CMakeLists.txt; paths relative to ir/.
set(ADLAB_TENSOR_SOURCES
    tensor/tensor.cpp
    tensor/tensor_ops.cpp
    tensor/eigen_sparse.cpp
    tensor/file_bytes.cpp
    tensor/json_io.cpp
    tensor/json_file.cpp
    tensor/npy_io.cpp
    tensor/matrix_market.cpp
    tensor/random.cpp
    tensor/table1_matrices.cpp)

set(ADLAB_TENSOR_TEST_SOURCES
    tensor/tests/test_tensor_ops.cpp
    tensor/tests/test_eigen_sparse.cpp
    tensor/tests/test_json_io.cpp
    tensor/tests/test_npy_io.cpp
    tensor/tests/test_matrix_market.cpp
    tensor/tests/test_random.cpp)

# The random generators promise the same bits everywhere: forbid fused multiply-add contraction
# (GCC contracts by default in GNU mode and with -march flags that enable FMA).
set_source_files_properties(tensor/random.cpp PROPERTIES COMPILE_OPTIONS -ffp-contract=off)

# Link requirements of these sources (the includer adds them to its library target):
#   Eigen3::Eigen (eigen_sparse), nlohmann_json::nlohmann_json (json_io); tests use Boost headers.
