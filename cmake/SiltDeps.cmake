# Third-party libraries, all from Debian packages (scripts/bootstrap.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(BROTLI REQUIRED IMPORTED_TARGET libbrotlidec libbrotlienc)
pkg_check_modules(SNAPPY REQUIRED IMPORTED_TARGET snappy)
pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)
find_library(ROARING_LIB roaring REQUIRED)
find_path(ROARING_INCLUDE roaring/roaring.h REQUIRED)

set(SILT_DEP_LIBS
  PkgConfig::ZSTD PkgConfig::LZ4 PkgConfig::ZLIB PkgConfig::BROTLI PkgConfig::SNAPPY
  PkgConfig::CJSON ${ROARING_LIB} Threads::Threads m)

# Line editing for `silt shell` (the command only, not the library).
find_library(READLINE_LIB readline REQUIRED)
