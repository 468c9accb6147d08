# What `cmake --install` puts where (GNUInstallDirs), and the Debian package CPack makes of it
# (`./run package`). The manual page and the completions are generated from hail's flag tables by
# hail_docgen (src/cli/cli_docs.h), so they cannot drift from --help.
include(GNUInstallDirs)

find_program(HAIL_SCDOC scdoc)
find_program(HAIL_GZIP gzip REQUIRED)
set(HAIL_DOCS_DIR ${CMAKE_BINARY_DIR}/docs)
set(HAIL_MAN ${HAIL_DOCS_DIR}/hail.1.gz)
set(HAIL_BASH ${HAIL_DOCS_DIR}/hail.bash)
set(HAIL_ZSH ${HAIL_DOCS_DIR}/_hail)
set(HAIL_CHANGELOG ${HAIL_DOCS_DIR}/changelog.gz)
add_custom_command(
  OUTPUT ${HAIL_BASH} ${HAIL_ZSH}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${HAIL_DOCS_DIR}
  COMMAND hail_docgen bash > ${HAIL_BASH}
  COMMAND hail_docgen zsh > ${HAIL_ZSH}
  DEPENDS hail_docgen
  COMMENT "hail shell completions")
# gzip -n: no name or time stamp in the header, so the file is reproducible (Debian policy).
add_custom_command(
  OUTPUT ${HAIL_CHANGELOG}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${HAIL_DOCS_DIR}
  COMMAND ${HAIL_GZIP} -9n < ${PROJECT_SOURCE_DIR}/packaging/debian/changelog > ${HAIL_CHANGELOG}
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog
  COMMENT "hail changelog")
set(HAIL_DOC_OUTPUTS ${HAIL_BASH} ${HAIL_ZSH} ${HAIL_CHANGELOG})
if(HAIL_SCDOC)
  add_custom_command(
    OUTPUT ${HAIL_MAN}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${HAIL_DOCS_DIR}
    COMMAND hail_docgen man | ${HAIL_SCDOC} | ${HAIL_GZIP} -9n > ${HAIL_MAN}
    DEPENDS hail_docgen
    COMMENT "hail(1)")
  list(APPEND HAIL_DOC_OUTPUTS ${HAIL_MAN})
else()
  message(STATUS "scdoc not found: no manual page (apt-get install scdoc)")
endif()
add_custom_target(hail_docs ALL DEPENDS ${HAIL_DOC_OUTPUTS})

install(TARGETS hail RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(HAIL_SCDOC)
  install(FILES ${HAIL_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES ${HAIL_BASH} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME hail)
install(FILES ${HAIL_ZSH} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
set(HAIL_DOC_FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/compat.md)
if(EXISTS ${PROJECT_SOURCE_DIR}/docs/json-schema.md)
  list(APPEND HAIL_DOC_FILES ${PROJECT_SOURCE_DIR}/docs/json-schema.md)
endif()
install(FILES ${HAIL_DOC_FILES} ${HAIL_CHANGELOG} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian's place for the license: the machine-readable copyright file.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package: CPack's DEB generator on the very files above. Depends come from the
# binary's shared libraries (dpkg-shlibdeps), so they follow whatever the build linked.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hail)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "hail maintainers <maintainers@users.noreply.a-seed-05d27844.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HTTP load generator with exact accounting and HDR latencies")
# The extended description (CPack puts the summary above it and indents each line).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "hail measures HTTP servers the way wrk, wrk2, ab and h2load do, with exact\naccounting of every request, latency percentiles from an HDR histogram and\ncoordinated-omission correction in open-loop runs. It speaks HTTP/1.0,\nHTTP/1.1 (keep-alive, pipelining, chunked) and HTTP/2, cleartext or over\nTLS, runs wrk's Lua scripts unchanged, accepts wrk's, ab's and webbench's\ncommand lines, and ships a built-in target server.")
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # hail_VERSION_ARCH.deb
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_SET_DESTDIR OFF)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/package)
include(CPack)
