# Third-party libraries, all from Debian packages (scripts/bootstrap.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(BROTLI REQUIRED IMPORTED_TARGET libbrotlidec libbrotlienc)
pkg_check_modules(SNAPPY REQUIRED IMPORTED_TARGET snappy)
pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)
pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)
pkg_check_modules(CRYPTO REQUIRED IMPORTED_TARGET libcrypto)
find_library(ROARING_LIB roaring REQUIRED)
find_path(ROARING_INCLUDE roaring/roaring.h REQUIRED)

set(SILT_DEP_LIBS
  PkgConfig::ZSTD PkgConfig::LZ4 PkgConfig::ZLIB PkgConfig::BROTLI PkgConfig::SNAPPY
  PkgConfig::CJSON PkgConfig::CURL PkgConfig::CRYPTO ${ROARING_LIB} Threads::Threads m)

# Line editing for `silt shell` (the command only, not the library).
find_library(READLINE_LIB readline REQUIRED)

# The silt command links the compression libraries statically when their
# archives are installed (the Debian -dev packages ship them): every `silt
# sql` is a process of its own, and loading and relocating them cost more
# CPU than a small statement does. snappy is C++: with it static, libstdc++
# is linked statically too (only the few pieces snappy uses), which saves
# most (libstdc++ alone took 0.9 ms of a 1.9 ms start; docs/benchmarks.md,
# "Session 4: start-up and small steps"). libsilt.so keeps the shared ones.
option(SILT_STATIC_CODECS "Link the silt command with static compression libraries" ON)
set(SILT_CLI_DEP_LIBS ${SILT_DEP_LIBS})
set(SILT_CLI_STATIC OFF)
if(SILT_STATIC_CODECS AND NOT SILT_SANITIZE)
  find_library(SNAPPY_A NAMES libsnappy.a)
  find_library(ZSTD_A NAMES libzstd.a)
  find_library(LZ4_A NAMES liblz4.a)
  find_library(Z_A NAMES libz.a)
  find_library(BROTLIDEC_A NAMES libbrotlidec.a)
  find_library(BROTLIENC_A NAMES libbrotlienc.a)
  find_library(BROTLICOMMON_A NAMES libbrotlicommon.a)
  if(SNAPPY_A AND ZSTD_A AND LZ4_A AND Z_A AND BROTLIDEC_A AND BROTLIENC_A AND BROTLICOMMON_A)
    set(SILT_CLI_STATIC ON)
    set(SILT_CLI_DEP_LIBS ${ZSTD_A} ${LZ4_A} ${Z_A} ${BROTLIDEC_A} ${BROTLIENC_A}
        ${BROTLICOMMON_A} ${SNAPPY_A} PkgConfig::CJSON PkgConfig::CURL PkgConfig::CRYPTO ${ROARING_LIB}
        Threads::Threads m)
  endif()
endif()
