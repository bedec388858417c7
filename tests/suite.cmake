# suite.cmake - lit/FileCheck tests, the corpus (interpreter vs numpy + round
# trip) and end-to-end command tests, all run by ctest.
# The set-up's virtual environment (Debian's python3 plus the pinned PyPI packages) when
# it exists, else Debian's python3.
find_program(PYTHON3 NAMES python3 PATHS ${CMAKE_SOURCE_DIR}/.venv/bin /usr/bin NO_DEFAULT_PATH)
set(LIT_PY /usr/lib/llvm-14/build/utils/lit/lit.py)
find_program(FILECHECK FileCheck PATHS /usr/lib/llvm-14/bin NO_DEFAULT_PATH)

if(EXISTS ${LIT_PY} AND FILECHECK)
  add_test(NAME lit
    COMMAND ${PYTHON3} ${LIT_PY} -q --no-progress-bar ${CMAKE_CURRENT_SOURCE_DIR}/lit
            -Dtvs=$<TARGET_FILE:tvs> -Dtvsc=$<TARGET_FILE:tvsc> -DFileCheck=${FILECHECK} -Dpython=${PYTHON3}
            -Dexec_root=${CMAKE_CURRENT_BINARY_DIR}/lit-out)
  set_tests_properties(lit PROPERTIES LABELS lit)
else()
  message(WARNING "lit or FileCheck not found (install llvm-14-tools): lit tests disabled")
endif()

# One ctest per corpus program: interpreter vs numpy reference, then round trip.
file(GLOB CORPUS_PROGRAMS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/*.tvs)
foreach(prog ${CORPUS_PROGRAMS})
  get_filename_component(name ${prog} NAME_WE)
  add_test(NAME corpus/${name}
    COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_program.py
            --tvs $<TARGET_FILE:tvs> --work ${CMAKE_CURRENT_BINARY_DIR}/corpus-work ${name})
  set_tests_properties(corpus/${name} PROPERTIES LABELS corpus)
endforeach()

file(GLOB E2E_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_*.sh)
foreach(t ${E2E_TESTS})
  get_filename_component(name ${t} NAME_WE)
  add_test(NAME e2e/${name} COMMAND bash ${t} $<TARGET_FILE:tvs> ${CMAKE_CURRENT_BINARY_DIR}/e2e-work/${name})
  set_tests_properties(e2e/${name} PROPERTIES LABELS e2e
    ENVIRONMENT "TVS_SOURCE_DIR=${CMAKE_SOURCE_DIR};PYTHON3=${PYTHON3};TVSC=$<TARGET_FILE:tvsc>;TVS_BUILD_DIR=${CMAKE_BINARY_DIR}")
endforeach()

# The fuzz target in replay mode: every seed input must go through cleanly.
add_executable(fuzz_frontend_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_frontend.c)
target_link_libraries(fuzz_frontend_replay PRIVATE tvs_lang tvs_ir tvs_base)
target_compile_options(fuzz_frontend_replay PRIVATE ${TVS_WARNINGS})
file(GLOB FUZZ_SEEDS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/*.tvs
     ${CMAKE_CURRENT_SOURCE_DIR}/lit/diag/Inputs/*.tvs ${CMAKE_CURRENT_SOURCE_DIR}/lit/*/Inputs/*.tvs
     ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/seeds/*.tvs ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/seeds/grown-*)
add_test(NAME fuzz/replay COMMAND fuzz_frontend_replay ${FUZZ_SEEDS})
set_tests_properties(fuzz/replay PROPERTIES LABELS fuzz)

if(TVS_FUZZ)
  add_executable(fuzz_frontend ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_frontend.c)
  target_compile_definitions(fuzz_frontend PRIVATE TVS_LIBFUZZER)
  target_compile_options(fuzz_frontend PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_frontend PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_frontend PRIVATE tvs_lang tvs_ir tvs_base)
endif()

include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.cmake)

# Structure: one-way folder dependencies (and the check's own failure cases).
add_test(NAME structure/layering COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/structure/test_layering.sh)
set_tests_properties(structure/layering PROPERTIES LABELS structure
  ENVIRONMENT "TVS_SOURCE_DIR=${CMAKE_SOURCE_DIR};PYTHON3=${PYTHON3}")
add_test(NAME structure/internals_doc COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/structure/check_internals_doc.py)
set_tests_properties(structure/internals_doc PROPERTIES LABELS structure)
# No function in sched/, ir/ or lang/ over 150 lines (primitives and passes read as steps).
add_test(NAME structure/function_length
  COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/structure/check_function_length.py --limit 150)
set_tests_properties(structure/function_length PROPERTIES LABELS structure)

# Graph operators: one ctest per case file, each case checked on the
# interpreter, the cpu target and a tvsc-compiled .so against numpy/torch.
file(GLOB OP_CASE_FILES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/ops/cases_*.py)
foreach(cf ${OP_CASE_FILES})
  get_filename_component(name ${cf} NAME_WE)
  add_test(NAME ops/${name}
    COMMAND ${PYTHON3} ${cf} --tvs $<TARGET_FILE:tvs> --tvsc $<TARGET_FILE:tvsc>
            --work ${CMAKE_CURRENT_BINARY_DIR}/ops-work/${name})
  set_tests_properties(ops/${name} PROPERTIES LABELS ops)
endforeach()
