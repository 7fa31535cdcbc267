# Compiler flags shared by every target.
add_compile_options(-Wall -Wextra -Wshadow -Wno-unused-parameter -Wvla -Wformat=2
                    $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes>
                    $<$<COMPILE_LANGUAGE:C>:-Wmissing-prototypes>)
add_compile_definitions(_FILE_OFFSET_BITS=64)
if(SILT_WERROR)
  add_compile_options(-Werror)
endif()
if(CMAKE_BUILD_TYPE STREQUAL "Release" OR CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
  add_compile_options(-O2)
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
