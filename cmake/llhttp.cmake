# llhttp's C sources ship in Debian's node-llhttp package (/usr/share/llhttp, header in
# /usr/share/include/llhttp). We compile them into a static library of our own; nothing is vendored.
find_path(LLHTTP_INCLUDE_DIR llhttp.h PATHS /usr/share/include/llhttp /usr/include/llhttp /usr/include
          REQUIRED)
find_path(LLHTTP_SOURCE_DIR llhttp.c PATHS /usr/share/llhttp REQUIRED)
add_library(llhttp STATIC ${LLHTTP_SOURCE_DIR}/llhttp.c ${LLHTTP_SOURCE_DIR}/api.c
                          ${LLHTTP_SOURCE_DIR}/http.c)
target_include_directories(llhttp SYSTEM PUBLIC ${LLHTTP_INCLUDE_DIR})
set_target_properties(llhttp PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 99)
target_compile_options(llhttp PRIVATE -w)
