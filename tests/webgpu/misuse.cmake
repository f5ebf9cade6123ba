# Misuse of the webgpu.h front door (issue 27): NULL and released objects,
# wrong and unknown sTypes, out-of-range sizes, calls on a lost device and
# the refused entry points, each answered with the implementation's error or
# a clear one, never a crash.
#   webgpu_misuse  tests/webgpu/misuse_webgpu.c: one case per misuse, each
#                  run in a child process of its own (a crash fails that case
#                  and names it; the others still run).
#   fuzz_webgpu    tests/webgpu/fuzz_webgpu.c: random descriptors, handles,
#                  encoder sequences and queue writes through the layer, with
#                  a known-good dispatch checked against the CPU after each
#                  batch. The standalone driver of the top-level fuzz targets
#                  (--seconds, --seed, saved inputs replayed first from
#                  tests/fuzz_corpus/fuzz_webgpu/), built under
#                  -DUL_SANITIZE=address,undefined for ASan.
# Both link the static layer only: it loads the implementation at run time,
# so neither has one of its own. Included at the end of webgpu.cmake, inside
# the top-level project (UL_WEBGPU_TEST_ENV, UL_SANITIZE are set there).
if(NOT TARGET unlost_webgpu_static)
  return()
endif()

function(ul_add_webgpu_misuse target source)
  add_executable(${target} ${CMAKE_SOURCE_DIR}/tests/webgpu/${source})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/webgpu)
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/webgpu)
  target_link_libraries(${target} PRIVATE unlost_webgpu_static m Threads::Threads ${CMAKE_DL_LIBS})
endfunction()

ul_add_webgpu_misuse(webgpu_misuse misuse_webgpu.c)
add_test(NAME webgpu_misuse COMMAND webgpu_misuse)
set_tests_properties(webgpu_misuse PROPERTIES
  SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS "webgpu"
  ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=none")

set(UL_FUZZ_SECONDS_fuzz_webgpu 15)
ul_add_webgpu_misuse(fuzz_webgpu fuzz_webgpu.c)
add_test(NAME fuzz_webgpu
  COMMAND fuzz_webgpu --seconds ${UL_FUZZ_SECONDS_fuzz_webgpu} ${CMAKE_SOURCE_DIR}/tests/fuzz_corpus/fuzz_webgpu
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/tests/webgpu)
math(EXPR ul_fuzz_webgpu_timeout "${UL_FUZZ_SECONDS_fuzz_webgpu} * 6 + 120")
set_tests_properties(fuzz_webgpu PROPERTIES
  TIMEOUT ${ul_fuzz_webgpu_timeout} LABELS "fuzz" SKIP_RETURN_CODE 77
  ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=none")
# The libFuzzer variant (clang, -DUL_LIBFUZZER=ON), as for tests/fuzz_*.c.
if(UL_LIBFUZZER AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  ul_add_webgpu_misuse(fuzz_webgpu_libfuzzer fuzz_webgpu.c)
  target_compile_definitions(fuzz_webgpu_libfuzzer PRIVATE UL_LIBFUZZER)
  target_compile_options(fuzz_webgpu_libfuzzer PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_webgpu_libfuzzer PRIVATE -fsanitize=fuzzer)
endif()
