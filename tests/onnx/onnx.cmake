# onnx.cmake - the ONNX importer's tests (included by tests/CMakeLists.txt):
#   onnx/commands     tvs import/run/show, tvsc, :load on small models, and bad input
#   onnx/conformance  ONNX's node tests (libonnx-testdata): a table per op and a
#                     pass-count floor that only ever rises (a fixed sample under
#                     TVS_TEST_QUICK=1, the sanitizer build)
#   onnx/networks     torchvision / torch.nn networks vs PyTorch (test_networks.py says which)
#   fuzz/onnx_replay  the importer's fuzz target over the node tests' models and
#                     tests/fuzz/seeds_onnx/ (inputs the fuzzer once crashed on)
add_executable(run_model_so ${CMAKE_CURRENT_SOURCE_DIR}/onnx/run_model_so.c)
target_link_libraries(run_model_so PRIVATE tvs_runtime_shared)
target_include_directories(run_model_so PRIVATE ${CMAKE_SOURCE_DIR})
target_compile_options(run_model_so PRIVATE ${TVS_WARNINGS})

add_test(NAME onnx/commands
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/onnx/test_commands.py --tvs $<TARGET_FILE:tvs>
          --tvsc $<TARGET_FILE:tvsc> --work ${CMAKE_CURRENT_BINARY_DIR}/onnx-work/commands)
set_tests_properties(onnx/commands PROPERTIES LABELS onnx)

set(ONNX_NODE_TESTS /usr/share/libonnx-testdata/data/node)
if(EXISTS ${ONNX_NODE_TESTS})
  # The floor: passed + frozen of the full run (932 tests) when it was last raised
  # (2026-11-25: 509 passed + 87 frozen, 0 failed, 336 unsupported, 0 crashes).
  add_test(NAME onnx/conformance
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/onnx/conformance.py --tvs $<TARGET_FILE:tvs>
            --data ${ONNX_NODE_TESTS} --min-pass 596 --quick-sample 8 --quick-min-pass 74)
  set_tests_properties(onnx/conformance PROPERTIES LABELS onnx TIMEOUT 900)

  file(GLOB ONNX_NODE_MODELS ${ONNX_NODE_TESTS}/*/model.onnx ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/seeds_onnx/*.onnx)
  string(REPLACE ";" "\n" ONNX_NODE_MODEL_LIST "${ONNX_NODE_MODELS}")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/onnx-fuzz-seeds.txt "${ONNX_NODE_MODEL_LIST}\n")
  add_executable(fuzz_onnx_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_onnx.c)
  target_link_libraries(fuzz_onnx_replay PRIVATE tvs_frontend tvs_lang tvs_ir tvs_base)
  target_compile_options(fuzz_onnx_replay PRIVATE ${TVS_WARNINGS})
  add_test(NAME fuzz/onnx_replay COMMAND fuzz_onnx_replay @${CMAKE_CURRENT_BINARY_DIR}/onnx-fuzz-seeds.txt)
  set_tests_properties(fuzz/onnx_replay PROPERTIES LABELS fuzz)
else()
  message(WARNING "libonnx-testdata not found: onnx/conformance and fuzz/onnx_replay disabled")
endif()

if(TVS_FUZZ)
  add_executable(fuzz_onnx ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_onnx.c)
  target_compile_definitions(fuzz_onnx PRIVATE TVS_LIBFUZZER)
  target_compile_options(fuzz_onnx PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_onnx PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_onnx PRIVATE tvs_frontend tvs_lang tvs_ir tvs_base)
endif()

add_test(NAME onnx/networks
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/onnx/test_networks.py --tvs $<TARGET_FILE:tvs>
          --tvsc $<TARGET_FILE:tvsc> --runner $<TARGET_FILE:run_model_so>
          --work ${CMAKE_CURRENT_BINARY_DIR}/onnx-work/networks)
set_tests_properties(onnx/networks PROPERTIES LABELS onnx TIMEOUT 1200)
