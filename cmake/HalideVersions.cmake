# Every Halide version the Halide target can test (docs/halide.md, "Versions"), and one
# worker executable per version (candidates/halide/worker/).
#
# Found here, nothing downloaded:
#  * Debian's Halide 14 (libhalide14-0-dev), through its CMake package (cmake/Halide14);
#  * every official wheel scripts/setup.sh installed from PyPI, one directory per version
#    under HALO_HALIDE_PIP_ROOT (.venv/halide/VERSION/halide: lib64/libHalide.so, include/,
#    and the CMake package lib64/cmake/Halide whose HalideConfigVersion.cmake names the
#    version).
# Each wheel carries a CMake package too, but two `find_package(Halide)` in one project
# would define the same imported targets (Halide::Halide) and share one Halide_DIR cache
# entry; the wheel's library needs nothing but the C and C++ runtimes (its LLVM is linked
# in), so it is imported here directly, one target per version.
#
# Sets HALO_HALIDE_MAJORS (the major versions found, ascending), and per major M:
# HALO_HALIDE_M_VERSION, HALO_HALIDE_M_LINK (the target to link), HALO_HALIDE_M_INCLUDE,
# HALO_HALIDE_M_LIBRARY, HALO_HALIDE_M_ORIGIN (debian or pip), HALO_HALIDE_M_AUTOSCHEDULERS
# (the directory of its autoscheduler plugins, libautoschedule_NAME.so, or empty: none
# installed; docs/halide.md, "Autoschedulers"). halo_add_halide_workers()
# then adds the workers and the registry halo reads (candidates/halide/versions.cpp).

set(HALO_HALIDE_PIP_ROOT "${PROJECT_SOURCE_DIR}/.venv/halide" CACHE PATH
    "Where scripts/setup.sh installs the Halide wheels from PyPI, one directory per version")

set(HALO_HALIDE_MAJORS "")

find_package(Halide 14 CONFIG QUIET)
if(Halide_FOUND)
  string(REGEX MATCH "^[0-9]+" _major "${Halide_VERSION}")
  get_target_property(_inc Halide::Halide INTERFACE_INCLUDE_DIRECTORIES)
  list(GET _inc 0 _inc)
  list(APPEND HALO_HALIDE_MAJORS ${_major})
  set(HALO_HALIDE_${_major}_VERSION "${Halide_VERSION}")
  set(HALO_HALIDE_${_major}_LINK Halide::Halide)
  set(HALO_HALIDE_${_major}_INCLUDE "${_inc}")
  set(HALO_HALIDE_${_major}_LIBRARY "$<TARGET_FILE:Halide::Halide>")
  set(HALO_HALIDE_${_major}_ORIGIN debian)
  # Debian ships Adams2019, Li2018 and Mullapudi2016 as plugins beside each other, and its
  # CMake package names one of them.
  if(TARGET Halide::Adams2019)
    set(HALO_HALIDE_${_major}_AUTOSCHEDULERS "$<TARGET_FILE_DIR:Halide::Adams2019>")
  else()
    set(HALO_HALIDE_${_major}_AUTOSCHEDULERS "")
  endif()
else()
  message(STATUS "Halide: Debian's Halide 14 (libhalide14-0-dev) not found: no worker for it")
endif()

file(GLOB _halo_wheel_configs "${HALO_HALIDE_PIP_ROOT}/*/halide/lib64/cmake/Halide/HalideConfigVersion.cmake")
foreach(_cfg IN LISTS _halo_wheel_configs)
  file(STRINGS "${_cfg}" _line REGEX "^set\\(PACKAGE_VERSION \"[0-9]+\\.[0-9]+\\.[0-9]+\"\\)")
  string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" _version "${_line}")
  string(REGEX MATCH "^[0-9]+" _major "${_version}")
  get_filename_component(_root "${_cfg}/../../../.." ABSOLUTE)
  if(NOT _version OR NOT EXISTS "${_root}/lib64/libHalide.so" OR NOT EXISTS "${_root}/include/Halide.h")
    message(WARNING "Halide: ${_root} is not a complete Halide wheel (no version, libHalide.so or Halide.h): skipped")
    continue()
  endif()
  if(_major IN_LIST HALO_HALIDE_MAJORS)
    message(WARNING "Halide: a second Halide ${_major} (${_version} in ${_root}) skipped: one version per major")
    continue()
  endif()
  add_library(halo_halide_pip_${_major} SHARED IMPORTED)
  set_target_properties(halo_halide_pip_${_major} PROPERTIES
    IMPORTED_LOCATION "${_root}/lib64/libHalide.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_root}/include")
  list(APPEND HALO_HALIDE_MAJORS ${_major})
  set(HALO_HALIDE_${_major}_VERSION "${_version}")
  set(HALO_HALIDE_${_major}_LINK halo_halide_pip_${_major})
  set(HALO_HALIDE_${_major}_INCLUDE "${_root}/include")
  set(HALO_HALIDE_${_major}_LIBRARY "${_root}/lib64/libHalide.so")
  set(HALO_HALIDE_${_major}_ORIGIN pip)
  # A wheel carries its autoscheduler plugins beside libHalide.so.
  file(GLOB _plugins "${_root}/lib64/libautoschedule_*.so")
  set(HALO_HALIDE_${_major}_AUTOSCHEDULERS "")
  if(_plugins)
    set(HALO_HALIDE_${_major}_AUTOSCHEDULERS "${_root}/lib64")
  endif()
endforeach()
if(NOT _halo_wheel_configs)
  message(STATUS "Halide: no wheel from PyPI under ${HALO_HALIDE_PIP_ROOT} (scripts/setup.sh installs them; "
                 "without PyPI, halo tests Debian's Halide 14 alone)")
endif()
list(SORT HALO_HALIDE_MAJORS COMPARE NATURAL)
# The test suite tests Halide; a build of the fuzz targets alone (the fuzzing engines'
# images, .clusterfuzzlite/build.sh) may have none and then builds everything but the
# Halide target (`--target halide` says that no Halide worker is built).
if(NOT HALO_HALIDE_MAJORS AND HALO_BUILD_TESTS)
  message(FATAL_ERROR "Halide: no Halide found (install libhalide14-0-dev, or run scripts/setup.sh)")
elseif(NOT HALO_HALIDE_MAJORS)
  message(STATUS "Halide: none found: no worker, no halo_fuzz_halide (the Halide target is skipped)")
endif()
set(_summary "")
foreach(_m IN LISTS HALO_HALIDE_MAJORS)
  list(APPEND _summary "${HALO_HALIDE_${_m}_VERSION} (${HALO_HALIDE_${_m}_ORIGIN})")
endforeach()
list(JOIN _summary ", " _summary)
message(STATUS "Halide versions with a worker: ${_summary}")

# One worker per version: the Halide back end (worker/jit.cpp and worker/import_ir.cpp, the
# only code that includes Halide.h) and the request loop (worker/worker_main.cpp, which also
# runs `halo import`: candidates/halide/import.hpp), linked with halo_lib for the
# parser and the translation. HALO_HALIDE_MAJOR is what version checks in the worker test.
# Also the registry candidates/halide/versions.cpp reads: version, worker, headers and
# library (for the reproducers' command lines) of each.
function(halo_add_halide_workers)
  set(targets "")
  set(entries "")
  foreach(m IN LISTS HALO_HALIDE_MAJORS)
    set(jit halo_halide_jit_${m})
    add_library(${jit} OBJECT candidates/halide/worker/jit.cpp candidates/halide/worker/import_ir.cpp)
    target_link_libraries(${jit} PUBLIC halo_lib ${HALO_HALIDE_${m}_LINK})
    target_compile_definitions(${jit} PUBLIC HALO_HALIDE_MAJOR=${m} HALO_HALIDE_VERSION="${HALO_HALIDE_${m}_VERSION}"
                                             HALO_HALIDE_AUTOSCHEDULERS="${HALO_HALIDE_${m}_AUTOSCHEDULERS}")
    set(t halo_halide_worker_${m})
    add_executable(${t} candidates/halide/worker/worker_main.cpp)
    target_link_libraries(${t} PRIVATE ${jit})
    list(APPEND targets ${t})
    # halo's Halide target against this Halide alone on the same pipelines (bench/bench_halide.cpp).
    add_executable(halo_bench_halide_${m} bench/bench_halide.cpp)
    target_link_libraries(halo_bench_halide_${m} PRIVATE halo_cli ${jit})
    add_dependencies(halo_bench_halide_${m} ${t})
    string(APPEND entries "{\"${HALO_HALIDE_${m}_VERSION}\", ${m}, \"$<TARGET_FILE:${t}>\", "
                          "\"${HALO_HALIDE_${m}_INCLUDE}\", \"${HALO_HALIDE_${m}_LIBRARY}\", \"${HALO_HALIDE_${m}_ORIGIN}\", "
                          "\"${HALO_HALIDE_${m}_AUTOSCHEDULERS}\"},\n")
  endforeach()
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/generated/halo_halide_versions.inc" CONTENT "${entries}")
  target_include_directories(halo_lib PRIVATE "${PROJECT_BINARY_DIR}/generated")
  set(HALO_HALIDE_WORKER_TARGETS ${targets} PARENT_SCOPE)
endfunction()
