# Included after each project() of llama-cpp-python's build (setup.sh passes
# it as CMAKE_PROJECT_INCLUDE): llama-cpp-python's CMakeLists forces
# LLAMA_BUILD_COMMON on, which builds llama.cpp's `common` library (34k lines
# of C++ and cpp-httplib) that the Python package installs but never loads;
# the tests use only libllama and ggml. Turned off again here, after the
# force and before llama.cpp's own CMakeLists reads it.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp common library: not loaded by llama_cpp" FORCE)
