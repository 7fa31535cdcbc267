# Compiler flags shared by every target.
# -Wformat-truncation is off: snprintf into a bounded buffer is how we truncate on
# purpose, and its release-build (-O3) false positives would break -Werror.
add_compile_options(-Wall -Wextra -Wshadow -Wno-unused-parameter -Wvla -Wformat=2
                    -Wno-format-truncation
                    $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes>
                    $<$<COMPILE_LANGUAGE:C>:-Wmissing-prototypes>)
add_compile_definitions(_FILE_OFFSET_BITS=64)
if(SILT_WERROR)
  # gcc's -Wmaybe-uninitialized at -O3 flags values that are set through an
  # out-parameter on every success path (our error model's shape); it stays a
  # warning, not an error, so the release build does not break on it.
  add_compile_options(-Werror -Wno-error=maybe-uninitialized)
endif()
if(SILT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(SILT_DEBUG_ARENA=1)
endif()
if(SILT_BUILD_FUZZERS)
  # libFuzzer needs coverage instrumentation in the library, not only in the
  # target, and AddressSanitizer to turn memory errors into crashes.
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SILT_BUILD_FUZZERS needs clang (configure with CC=clang)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address)
endif()
