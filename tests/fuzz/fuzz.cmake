# fuzz.cmake - the fuzz targets beyond the front end's (included by suite.cmake).
# Each is built twice: as a replay binary that runs its seeds under ctest (in the
# normal and the sanitizer build), and, with TVS_FUZZ=ON (clang), as a libFuzzer
# target; scripts/fuzz_smoke.sh builds those and runs each a fixed number of runs.
set(FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
# name, libraries, seed globs
set(FUZZ_npy_LIBS tvs_runtime)
set(FUZZ_npy_SEEDS ${FUZZ_DIR}/seeds_npy/*)
set(FUZZ_sched_LIBS tvs_sched tvs_lang tvs_ir tvs_base)
set(FUZZ_sched_SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/lit/sched/Inputs/*.py ${FUZZ_DIR}/seeds_sched/*)
set(FUZZ_interp_LIBS tvs_lang tvs_ir tvs_base)
set(FUZZ_interp_SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/*.tvs ${FUZZ_DIR}/seeds_interp/*)
foreach(t npy sched interp)
  add_executable(fuzz_${t}_replay ${FUZZ_DIR}/fuzz_${t}.c)
  target_link_libraries(fuzz_${t}_replay PRIVATE ${FUZZ_${t}_LIBS})
  target_compile_options(fuzz_${t}_replay PRIVATE ${TVS_WARNINGS})
  file(GLOB seeds CONFIGURE_DEPENDS ${FUZZ_${t}_SEEDS})
  add_test(NAME fuzz/${t}_replay COMMAND fuzz_${t}_replay ${seeds})
  set_tests_properties(fuzz/${t}_replay PROPERTIES LABELS fuzz)
  if(TVS_FUZZ)
    add_executable(fuzz_${t} ${FUZZ_DIR}/fuzz_${t}.c)
    target_compile_definitions(fuzz_${t} PRIVATE TVS_LIBFUZZER)
    target_compile_options(fuzz_${t} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_${t} PRIVATE ${FUZZ_${t}_LIBS})
  endif()
endforeach()
