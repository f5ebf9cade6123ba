# Programs written on webgpu.h alone (issue 27): tests/webgpu/wgpu_<name>.c,
# each a main() that calls only standard webgpu.h entry points, declared by
# src/wgpu/wgpu_api.h (the pinned implementation's header revision); no
# unlost.h, no libunlost. Processed inside the top-level project, after the
# unit tests: UL_DAWN_LIB, UL_SAN_ENV and UL_SANITIZE are set.
#
# Each program runs three ways: directly on the implementation (here), linked
# to libunlost-webgpu and under LD_PRELOAD=libunlost-webgpu.so (added with
# the library). The other ways reuse UL_WEBGPU_PROGRAMS,
# ul_add_webgpu_program() and UL_WEBGPU_TEST_ENV.

file(GLOB UL_WEBGPU_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/webgpu/wgpu_*.c)

# The program names (matmul, reduce, ...), in a stable order.
set(UL_WEBGPU_PROGRAMS "")
foreach(src ${UL_WEBGPU_SOURCES})
  get_filename_component(stem ${src} NAME_WE)
  string(REGEX REPLACE "^wgpu_" "" name ${stem})
  list(APPEND UL_WEBGPU_PROGRAMS ${name})
endforeach()
list(SORT UL_WEBGPU_PROGRAMS)

# Builds tests/webgpu/`source` as executable `target` into
# ${CMAKE_BINARY_DIR}/tests/webgpu, linked to `impl` (the implementation,
# libunlost-webgpu, or its static form for a test that reaches internals)
# and to what follows it.
function(ul_add_webgpu_test target source impl)
  add_executable(${target} ${CMAKE_SOURCE_DIR}/tests/webgpu/${source})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/webgpu)
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/webgpu)
  target_link_libraries(${target} PRIVATE ${impl} m ${ARGN})
endfunction()

# Builds program `name` as executable `target`, linked to `impl` (the path or
# target of a library exporting the webgpu.h entry points), into
# ${CMAKE_BINARY_DIR}/tests/webgpu.
function(ul_add_webgpu_program target name impl)
  ul_add_webgpu_test(${target} wgpu_${name}.c ${impl})
  # The decode takes its model and CPU reference from tools/llm's host half,
  # whose errors go through ul_error_set: from libunlost-webgpu when that is
  # the implementation, else from libunlost's few objects that define it
  # (the program's WebGPU calls still go to ${impl} alone).
  if(name STREQUAL "decode")
    target_link_libraries(${target} PRIVATE unlost_llm_host)
  endif()
endfunction()

# What every run of these programs gets. Under ASan, LeakSanitizer is off:
# at exit Dawn unloads the CPU Vulkan driver, and what the driver never freed
# is then reported from an "<unknown module>" that no suppression can name
# (tests/ul_test.h keeps the driver loaded instead, which a program on
# webgpu.h alone cannot do). ASan's other checks and UBSan stay on.
set(UL_WEBGPU_TEST_ENV "XDG_RUNTIME_DIR=/tmp${UL_SAN_ENV}")
if(UL_SANITIZE MATCHES "address")
  list(APPEND UL_WEBGPU_TEST_ENV "ASAN_OPTIONS=detect_leaks=0")
endif()

foreach(name ${UL_WEBGPU_PROGRAMS})
  # Directly on the implementation: the executable needs
  # libwebgpu_wrapper.so, found through the run path CMake records (the
  # folder of ${UL_DAWN_LIB}).
  ul_add_webgpu_program(wgpu_${name} ${name} ${UL_DAWN_LIB})
  add_test(NAME webgpu_${name}_direct COMMAND wgpu_${name})
  set_tests_properties(webgpu_${name}_direct PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV}")
endforeach()

# Through the front door: linked to libunlost-webgpu instead of the
# implementation, and the direct executable with the library preloaded
# (LD_PRELOAD, no rebuild). Under ASan its runtime must load first, so it
# is preloaded ahead of the library.
if(TARGET unlost_webgpu)
  set(UL_WEBGPU_PRELOAD "$<TARGET_FILE:unlost_webgpu>")
  if(UL_SANITIZE MATCHES "address")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                    OUTPUT_VARIABLE UL_ASAN_RT OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(UL_WEBGPU_PRELOAD "${UL_ASAN_RT}:${UL_WEBGPU_PRELOAD}")
  endif()
  foreach(name ${UL_WEBGPU_PROGRAMS})
    ul_add_webgpu_program(wgpu_${name}_linked ${name} unlost_webgpu)
    add_test(NAME webgpu_${name}_linked COMMAND wgpu_${name}_linked)
    add_test(NAME webgpu_${name}_preload COMMAND wgpu_${name})
    set_tests_properties(webgpu_${name}_linked PROPERTIES
      SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
      ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
    set_tests_properties(webgpu_${name}_preload PROPERTIES
      SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
      ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error;LD_PRELOAD=${UL_WEBGPU_PRELOAD}")
  endforeach()
  # At info level the layer says, once, that it is in the program and over
  # which implementation (issue 39), preloaded as linked.
  # unlost exec runs a webgpu.h program through the layer (issue 39); under
  # ASan the sanitizer's runtime is preloaded first, and exec adds the layer
  # after it.
  add_test(NAME test_unlost_exec COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_unlost_exec.sh ${CMAKE_BINARY_DIR}
    ${CMAKE_C_COMPILER} ${UL_DAWN_LIB})
  set(UL_EXEC_ENV "${UL_WEBGPU_TEST_ENV}")
  if(UL_SANITIZE MATCHES "address")
    list(APPEND UL_EXEC_ENV "LD_PRELOAD=${UL_ASAN_RT}")
  endif()
  set_tests_properties(test_unlost_exec PROPERTIES TIMEOUT 300 LABELS "webgpu" ENVIRONMENT "${UL_EXEC_ENV}")
  add_test(NAME webgpu_active_line COMMAND bash -c
    "out=$($<TARGET_FILE:wgpu_matmul> 2>&1) && grep -q 'libunlost-webgpu .* is active over .*; recovery on' <<<\"$out\"")
  set_tests_properties(webgpu_active_line PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=info;LD_PRELOAD=${UL_WEBGPU_PRELOAD}")
endif()

# Misuse tests and the descriptor fuzzer of the front door (linked to the
# static library: no implementation of their own).
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/webgpu/misuse_webgpu.c AND EXISTS ${CMAKE_SOURCE_DIR}/tests/webgpu/fuzz_webgpu.c)
  include(${CMAKE_SOURCE_DIR}/tests/webgpu/misuse.cmake OPTIONAL)
endif()

# Restore policies through the front door (unlost_webgpu.h): linked to the
# library, as a program that uses unlost's additions is.
if(TARGET unlost_webgpu)
  ul_add_webgpu_test(webgpu_policy policy_webgpu.c unlost_webgpu)
  add_test(NAME webgpu_policy COMMAND webgpu_policy)
  # Re-entry: the detector and a run through the static library; then a
  # program linked to the implementation with the library preloaded.
  # One bind group under several pipelines in one submit: what each writes
  # is marked, a checkpoint and a loss bring it back (src/exec/commands.c).
  ul_add_webgpu_test(webgpu_sharedgroup sharedgroup_webgpu.c unlost_webgpu)
  add_test(NAME webgpu_sharedgroup COMMAND webgpu_sharedgroup)
  set_tests_properties(webgpu_sharedgroup PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  ul_add_webgpu_test(webgpu_reentry reentry_webgpu.c unlost_webgpu_static)
  add_test(NAME webgpu_reentry COMMAND webgpu_reentry)
  # Readbacks at every step let asynchronous checkpoints commit (issue 38).
  ul_add_webgpu_test(webgpu_readback readback_webgpu.c unlost_webgpu_static)
  add_test(NAME webgpu_readback COMMAND webgpu_readback)
  set_tests_properties(webgpu_readback PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  set_tests_properties(webgpu_reentry PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  set(UL_ASAN_FIRST "")
  if(UL_SANITIZE MATCHES "address")
    set(UL_ASAN_FIRST "${UL_ASAN_RT}")
  endif()
  add_test(NAME webgpu_reentry_preload COMMAND bash ${CMAKE_SOURCE_DIR}/tests/webgpu/reentry_preload.sh
    $<TARGET_FILE:wgpu_stencil> $<TARGET_FILE:unlost_webgpu> ${UL_ASAN_FIRST})
  set_tests_properties(webgpu_reentry_preload PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV}")
  set_tests_properties(webgpu_policy PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  # A checkpoint while the program's map of a MAP_READ buffer is on its way
  # (the small log filled by uploads): it waits for the map, reads it.
  # The implementation's log messages through the layer, across a
  # recovery, never under an unlost lock (issue 40).
  ul_add_webgpu_test(webgpu_logging logging_webgpu.c unlost_webgpu)
  add_test(NAME webgpu_logging COMMAND webgpu_logging)
  set_tests_properties(webgpu_logging PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu;threads"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  # Programs built on another webgpu.h revision are refused, never misread
  # (issue 39): the stable header's instance descriptor, its entry points,
  # and an implementation that speaks it (a stand-in: none can run here).
  ul_add_webgpu_test(webgpu_revision revision_webgpu.c unlost_webgpu ${CMAKE_DL_LIBS})
  add_library(unlost_test_stable_impl MODULE ${CMAKE_SOURCE_DIR}/tests/webgpu/stable_impl.c)
  foreach(mode structs calls impl)
    add_test(NAME webgpu_revision_${mode} COMMAND webgpu_revision ${mode})
    set_tests_properties(webgpu_revision_${mode} PROPERTIES TIMEOUT 120 LABELS "webgpu"
      ENVIRONMENT "${UL_WEBGPU_TEST_ENV}")
  endforeach()
  set_tests_properties(webgpu_revision_impl PROPERTIES
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_WEBGPU_LIB=$<TARGET_FILE:unlost_test_stable_impl>")
  ul_add_webgpu_test(webgpu_mapckpt mapckpt_webgpu.c unlost_webgpu)
  add_test(NAME webgpu_mapckpt COMMAND webgpu_mapckpt)
  set_tests_properties(webgpu_mapckpt PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  # Futures and WaitAny (issue 36): the same program directly on the
  # implementation (the oracle) and linked to the library, their answers
  # compared; then threads, re-entrant waits and pending callbacks under
  # losses, through the library.
  ul_add_webgpu_test(webgpu_futures_direct futures_webgpu.c ${UL_DAWN_LIB} Threads::Threads)
  ul_add_webgpu_test(webgpu_futures_linked futures_webgpu.c unlost_webgpu Threads::Threads)
  add_test(NAME webgpu_futures COMMAND bash ${CMAKE_SOURCE_DIR}/tests/webgpu/futures_compare.sh
    $<TARGET_FILE:webgpu_futures_direct> $<TARGET_FILE:webgpu_futures_linked>)
  set_tests_properties(webgpu_futures PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "webgpu;threads"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  ul_add_webgpu_test(webgpu_lossfut lossfut_webgpu.c unlost_webgpu Threads::Threads)
  # Two threads mapping on one device, losses every 53 calls (observation 4).
  add_test(NAME webgpu_lossfut_threads COMMAND webgpu_lossfut threads)
  set_tests_properties(webgpu_lossfut_threads PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "webgpu;threads"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error;UNLOST_CHAOS=loss-every=53")
  # More pending work-done callbacks than the schedule's period (observation 10).
  add_test(NAME webgpu_lossfut_pending COMMAND webgpu_lossfut pending 40)
  set_tests_properties(webgpu_lossfut_pending PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error;UNLOST_CHAOS=loss-every=15")
endif()

# What objects cost in host memory: the same program linked to the
# implementation and to libunlost-webgpu; objmem_webgpu.sh bounds what the
# layer adds to one more buffer and bind group alive (issue 36, observation
# 12). What is left after a release is printed, not checked: Dawn frees its
# own part lazily, by a megabyte more or less from run to run (test_recovery's
# test_only_what_the_log_names_is_kept checks the layer's part exactly). Not
# under a sanitizer, whose allocator mallinfo2 does not see.
if(TARGET unlost_webgpu)
  ul_add_webgpu_test(webgpu_objmem_direct objmem_webgpu.c ${UL_DAWN_LIB})
  ul_add_webgpu_test(webgpu_objmem_linked objmem_webgpu.c unlost_webgpu)
  if(NOT UL_SANITIZE)
    add_test(NAME webgpu_objmem COMMAND bash ${CMAKE_SOURCE_DIR}/tests/webgpu/objmem_webgpu.sh ${CMAKE_BINARY_DIR}/tests/webgpu)
    set_tests_properties(webgpu_objmem PROPERTIES TIMEOUT 300 LABELS "webgpu" ENVIRONMENT "${UL_WEBGPU_TEST_ENV}")
  endif()
endif()

# Bounded input (issue 36): one program on webgpu.h built linked to the
# implementation and to the library; tests/webgpu/bounds_webgpu.sh runs a
# case on both and compares what the calls answered (chains with a cycle,
# strings with a NUL inside), loads the library as its own implementation
# (refused, in bounded time), and checks the chaos report of a program that
# never releases its instance.
if(TARGET unlost_webgpu)
  ul_add_webgpu_test(webgpu_bounds_direct bounds_webgpu.c ${UL_DAWN_LIB})
  ul_add_webgpu_test(webgpu_bounds_linked bounds_webgpu.c unlost_webgpu)
  # Each run's watchdog: three times as long under a sanitizer.
  set(ul_bounds_watchdog 20)
  if(UL_SANITIZE)
    set(ul_bounds_watchdog 60)
  endif()
  foreach(what chains strings selfload report)
    add_test(NAME webgpu_bounds_${what} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/webgpu/bounds_webgpu.sh ${what}
      $<TARGET_FILE:webgpu_bounds_direct> $<TARGET_FILE:webgpu_bounds_linked> $<TARGET_FILE:unlost_webgpu>)
    set_tests_properties(webgpu_bounds_${what} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "webgpu"
      ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error;BOUNDS_WATCHDOG_S=${ul_bounds_watchdog}")
  endforeach()
  # A fault point that injects nothing says so (issue 40): past the last
  # call, with the count of calls seen; outside an error scope, why.
  add_test(NAME webgpu_chaos_unmet COMMAND wgpu_gen_linked)
  set_tests_properties(webgpu_chaos_unmet PROPERTIES TIMEOUT 120 LABELS "webgpu"
    PASS_REGULAR_EXPRESSION "unlost chaos: loss@999999 injected nothing: the program made [0-9]+ counted call"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=warn;UNLOST_CHAOS=loss@999999")
  # A command buffer finished before a loss, submitted or released after
  # it while the lost device is destroyed in the background (issue 36,
  # observation 13): a crash or wrong data fails it.
  ul_add_webgpu_test(webgpu_cmdbuf cmdbuf_webgpu.c unlost_webgpu)
  add_test(NAME webgpu_cmdbuf_loss COMMAND webgpu_cmdbuf 48)
  set_tests_properties(webgpu_cmdbuf_loss PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "webgpu"
    ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error")
  # Teardown after any recovery history (issue 36): recoveries that fail,
  # a device that gives up, then the program releasing everything (the
  # device before its objects) or nothing at all; under ASan a double free
  # or a crash at exit fails it. The standby is on (UNLOST_STANDBY=1), as
  # on a GPU, and standby-fail makes its builds fail too.
  ul_add_webgpu_test(webgpu_teardown teardown_webgpu.c unlost_webgpu)
  set(UL_TEARDOWN_CASES
    "recovered|release|loss-every=15,recovery-fail=2"
    "recovered_exit|exit|loss-every=15,recovery-fail=2"
    "gave_up|release expect-lost|loss-every=9,recovery-fail=all,standby-fail=all"
    "gave_up_exit|exit expect-lost|loss-every=9,recovery-fail=all,standby-fail=all"
    "stalled|release expect-lost|loss-every=3"
    "stalled_exit|exit expect-lost|loss-every=3")
  foreach(tc ${UL_TEARDOWN_CASES})
    string(REPLACE "|" ";" tc "${tc}")
    list(GET tc 0 tname)
    list(GET tc 1 targs)
    list(GET tc 2 tspec)
    separate_arguments(targs)
    add_test(NAME webgpu_teardown_${tname} COMMAND webgpu_teardown ${targs})
    set_tests_properties(webgpu_teardown_${tname} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "webgpu"
      ENVIRONMENT "${UL_WEBGPU_TEST_ENV};UNLOST_LOG=error;UNLOST_STANDBY=1;UNLOST_CHAOS=${tspec}")
  endforeach()
endif()
