# A load client's resident memory is mostly code pages, not data: a plain 50-connection run keeps
# under 1 MiB of heap, histograms and stacks, but the kernel maps file pages 64 KiB at a time
# around each one touched (fault-around), and the few hundred functions a run executes were spread
# over the whole 2.8 MB of hail's text, and libstdc++'s. So, for the hail executable:
#   - every function in its own section (-ffunction-sections), placed by lld in the order of
#     cmake/hail_link_order.txt (the functions a plain run executes, bench/link_order.py), so that
#     they share a few windows and the rest of the text is never mapped;
#   - libstdc++ linked statically: only the parts hail uses, ordered with the rest, instead of the
#     whole shared library with its symbol tables and relocations (~0.9 MiB resident);
#   - LuaJIT's static archive (src/script/CMakeLists.txt), as wrk links its own, and then libgcc
#     statically too: nothing left needs libgcc_s, and LuaJIT's errors and C++ exceptions unwind
#     with the same copy of the unwinder;
#   - nghttp2 and liburing from their Debian static archives too (hail_prefer_archive): a shared
#     library's pages are resident from the start (~120 KiB for the two: headers, relocations,
#     init code) even in a run that never calls it, where unused archive code is never mapped.
#     zlib stays shared: lintian rejects an embedded copy (embedded-library);
#   - unreferenced sections dropped (--gc-sections);
#   - relative relocations packed (DT_RELR, glibc >= 2.36): ld.so reads ~4 KiB of them at start
#     instead of 100 KiB of .rela.dyn, which stayed resident. lld learned -z pack-relative-relocs
#     (with the GLIBC_ABI_DT_RELR dependency glibc insists on) in version 15; Debian 12's lld is
#     14, so the newest lld-NN package installed provides the linker (-B its directory).
# Measured (bench/RESULTS.md, issue 24): peak RSS with 50 keep-alive connections 6.9 -> 5.0 MiB.
# Without lld (Debian package lld) the link stays as it was; a stale order file only costs memory
# (names it lists that no longer exist are ignored, new functions land outside the packed range).
option(HAIL_COMPACT_LINK "Pack the functions a run executes together (lld), static libstdc++"
       ${HAIL_COMPACT_LINK_DEFAULT})

set(HAIL_LINK_ORDER_FILE ${PROJECT_SOURCE_DIR}/cmake/hail_link_order.txt)
set(HAIL_COMPACT_LINK_ACTIVE OFF)
if(HAIL_COMPACT_LINK)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld;-Wl,--symbol-ordering-file=${HAIL_LINK_ORDER_FILE}"
                    HAIL_HAVE_LLD_ORDERING)
  if(HAIL_HAVE_LLD_ORDERING)
    set(HAIL_COMPACT_LINK_ACTIVE ON)
    # Every library hail links is ours: sections per function everywhere, so that lld can move
    # each one (a whole object file's .text otherwise moves as one piece).
    add_compile_options(-ffunction-sections -fdata-sections)
    find_program(HAIL_LLD_PACKING ld.lld NO_DEFAULT_PATH
                 PATHS /usr/lib/llvm-19/bin /usr/lib/llvm-18/bin /usr/lib/llvm-17/bin
                       /usr/lib/llvm-16/bin /usr/lib/llvm-15/bin)
    if(HAIL_LLD_PACKING)
      get_filename_component(lld_dir ${HAIL_LLD_PACKING} DIRECTORY)
      check_linker_flag(CXX "-fuse-ld=lld;-B${lld_dir};-Wl,-z,pack-relative-relocs"
                        HAIL_HAVE_RELR)
      if(HAIL_HAVE_RELR)
        set(HAIL_RELR_OPTIONS -B${lld_dir} -Wl,-z,pack-relative-relocs)
      endif()
    endif()
    if(NOT HAIL_RELR_OPTIONS)
      message(STATUS "hail: no lld >= 15, relocations stay unpacked (apt-get install lld-16)")
    endif()
  else()
    message(STATUS "hail: lld not found, HAIL_COMPACT_LINK has no effect (apt-get install lld)")
  endif()
endif()

# hail_compact_link(<executable>): the link options above, where they apply.
function(hail_compact_link target)
  if(NOT HAIL_COMPACT_LINK_ACTIVE)
    return()
  endif()
  target_link_options(${target} PRIVATE -fuse-ld=lld
                      -Wl,--symbol-ordering-file=${HAIL_LINK_ORDER_FILE}
                      -Wl,--no-warn-symbol-ordering -Wl,--gc-sections ${HAIL_RELR_OPTIONS})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_link_options(${target} PRIVATE -static-libstdc++)
    get_property(luajit_static GLOBAL PROPERTY HAIL_LUAJIT_STATIC)
    if(luajit_static)
      target_link_options(${target} PRIVATE -static-libgcc)
    endif()
  endif()
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${HAIL_LINK_ORDER_FILE})
endfunction()

# hail_prefer_archive(<var> <shared target> <archive file> [<libraries it needs>...]): sets <var>
# to a target linking the library's Debian static archive where the compact link applies and the
# archive is installed, and to <shared target> otherwise. The headers stay the shared target's.
function(hail_prefer_archive out_var shared_target archive_file)
  set(${out_var} ${shared_target} PARENT_SCOPE)
  if(NOT HAIL_COMPACT_LINK_ACTIVE)
    return()
  endif()
  string(MAKE_C_IDENTIFIER ${archive_file} id)
  find_library(HAIL_ARCHIVE_${id} NAMES ${archive_file})
  if(NOT HAIL_ARCHIVE_${id})
    return()
  endif()
  set(name hail_archive_${id})
  if(NOT TARGET ${name})
    add_library(${name} INTERFACE)
    get_target_property(include_dirs ${shared_target} INTERFACE_INCLUDE_DIRECTORIES)
    if(include_dirs)
      target_include_directories(${name} INTERFACE ${include_dirs})
    endif()
    target_link_libraries(${name} INTERFACE ${HAIL_ARCHIVE_${id}} ${ARGN})
  endif()
  set(${out_var} ${name} PARENT_SCOPE)
endfunction()
