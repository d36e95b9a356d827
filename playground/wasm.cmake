# The playground's build: halo's semantics compiled to WebAssembly with Emscripten (Debian's
# `emscripten` package), for the page in playground/web/ (docs/playground.md). The top-level
# CMakeLists.txt includes this file instead of its own targets when configured with emcmake;
# scripts/build-playground.sh does that and assembles the page.
#
# Only header-only dependencies are used, from Debian's packages: the folder of symbolic
# links below puts exactly their headers on the include path (all of /usr/include would
# bring glibc's headers over Emscripten's own libc). fmt is used header-only; stb's image
# reader is compiled from Debian's header (playground/stb_implementation.cpp). What needs
# RapidCheck (the generators of fuzz/) or another process (campaigns) is left out:
# playground/browser_commands.cpp stands for those commands and says why.

set(HALO_WASM_HEADERS "${CMAKE_BINARY_DIR}/debian-headers")
file(MAKE_DIRECTORY "${HALO_WASM_HEADERS}")
foreach(dir boost fmt CLI nlohmann xtensor xtl stb)
  if(NOT EXISTS "/usr/include/${dir}")
    message(FATAL_ERROR "playground: /usr/include/${dir} is missing (scripts/setup.sh installs the Debian packages)")
  endif()
  file(CREATE_LINK "/usr/include/${dir}" "${HALO_WASM_HEADERS}/${dir}" SYMBOLIC)
endforeach()

file(GLOB HALO_WASM_SOURCES CONFIGURE_DEPENDS
  support/*.cpp semantics/*.cpp interp/*.cpp lower/*.cpp bounds/*.cpp schedule/*.cpp oracle/*.cpp
  candidates/*.cpp candidates/engines/*.cpp candidates/kernel/*.cpp candidates/exo/*.cpp
  candidates/halide/*.cpp candidates/tvm/*.cpp
  report/*.cpp
  tools/cli.cpp tools/cmd_beta0_engine.cpp tools/cmd_exo.cpp tools/cmd_explain.cpp tools/cmd_halide.cpp
  tools/cmd_import.cpp tools/cmd_kernel.cpp
  playground/*.cpp)

add_executable(halo_playground ${HALO_WASM_SOURCES})
# No Halide worker can run in a page: the list of built Halide versions is empty.
file(WRITE "${CMAKE_BINARY_DIR}/generated/halo_halide_versions.inc" "")
target_include_directories(halo_playground PRIVATE "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/generated")
target_include_directories(halo_playground SYSTEM PRIVATE "${HALO_WASM_HEADERS}")
# The paths the native build bakes in for candidates that run other programs: none of them
# exists in a browser, so each of those candidates reports itself unavailable.
target_compile_definitions(halo_playground PRIVATE FMT_HEADER_ONLY HALO_BROWSER
  HALO_GEMMINI_INCLUDE_DIR="" HALO_GEMMINI_RUNTIME_LIB="" HALO_KERNEL_AVX512_PRELUDE=""
  HALO_EXO_PYTHON="" HALO_EXO_HELPER="" HALO_TVM_DIR="" HALO_TVM_WORKER="" HALO_TVM_PYTHON="")
target_compile_options(halo_playground PRIVATE -fexceptions)
# Parsing the header-only libraries is most of each file's compile time (fmt header-only in
# particular): once, for the whole target.
target_precompile_headers(halo_playground PRIVATE <boost/multiprecision/cpp_int.hpp> <fmt/format.h>
  <nlohmann/json.hpp> <algorithm> <functional> <map> <memory> <optional> <set> <sstream> <string> <vector>)
# The examples and the malformed-input corpus the guide's commands name, at the same paths
# under the module's working folder /halo (playground/playground_api.cpp changes into it).
target_link_options(halo_playground PRIVATE
  -fexceptions -sMODULARIZE=1 -sEXPORT_NAME=createHaloModule -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1
  -sENVIRONMENT=worker,node -sTOTAL_STACK=67108864 -sINITIAL_MEMORY=134217728
  "-sEXPORTED_FUNCTIONS=['_halo_playground_call','_malloc','_free']"
  "-sEXPORTED_RUNTIME_METHODS=['UTF8ToString','stringToUTF8','lengthBytesUTF8']"
  "--embed-file=${CMAKE_SOURCE_DIR}/examples@/halo/examples"
  "--embed-file=${CMAKE_SOURCE_DIR}/tests/invalid@/halo/tests/invalid")
set_target_properties(halo_playground PROPERTIES SUFFIX ".js")
