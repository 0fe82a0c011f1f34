# Locates the MariaDB header kit made by scripts/setup-deps.sh and defines the
# interface target mariadb::server_headers for code that includes sql/*.h.
#
# The kit must come from the exact source version of the mariadbd that will load
# the plugin (see scripts/setup-deps.sh); the engine checks sizeof(THD) against the
# value recorded for that version at build time (engine/abi_guard.cc).
set(ROWSOCKET_CACHE "$ENV{ROWSOCKET_CACHE}")
if(NOT ROWSOCKET_CACHE)
  set(ROWSOCKET_CACHE /var/cache/rowsocket)
endif()
if(NOT MARIADB_KIT)
  if(EXISTS "${ROWSOCKET_CACHE}/current-kit")
    file(READ "${ROWSOCKET_CACHE}/current-kit" MARIADB_KIT)
    string(STRIP "${MARIADB_KIT}" MARIADB_KIT)
  endif()
endif()
if(NOT MARIADB_KIT OR NOT EXISTS "${MARIADB_KIT}/.complete")
  message(FATAL_ERROR "MariaDB header kit not found; run scripts/setup-deps.sh "
                      "or pass -DMARIADB_KIT=<dir>")
endif()
file(READ "${MARIADB_KIT}/VERSION" MARIADB_DEB_VERSION)
string(STRIP "${MARIADB_DEB_VERSION}" MARIADB_DEB_VERSION)
message(STATUS "MariaDB header kit: ${MARIADB_KIT} (${MARIADB_DEB_VERSION})")

add_library(mariadb_server_headers INTERFACE)
target_include_directories(mariadb_server_headers SYSTEM INTERFACE
  ${MARIADB_KIT}/wsrep-lib/include
  ${MARIADB_KIT}/wsrep-lib/wsrep-API/v26
  ${MARIADB_KIT}/generated
  ${MARIADB_KIT}/include
  ${MARIADB_KIT}/sql)
target_compile_definitions(mariadb_server_headers INTERFACE
  MYSQL_DYNAMIC_PLUGIN HAVE_CONFIG_H DBUG_OFF NDEBUG _FILE_OFFSET_BITS=64)
target_link_libraries(mariadb_server_headers INTERFACE ${MARIADB_KIT}/libmysqlservices.a)
add_library(mariadb::server_headers ALIAS mariadb_server_headers)
