# Compiler flags shared by every target.
# -Wformat-truncation is off: snprintf into a bounded buffer is how we truncate on
# purpose, and its release-build (-O3) false positives would break -Werror.
add_compile_options(-Wall -Wextra -Wshadow -Wno-unused-parameter -Wvla -Wformat=2
                    -Wno-format-truncation
                    $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes>
                    $<$<COMPILE_LANGUAGE:C>:-Wmissing-prototypes>)
add_compile_definitions(_FILE_OFFSET_BITS=64)
if(SILT_WERROR)
  add_compile_options(-Werror)
endif()
if(SILT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(SILT_DEBUG_ARENA=1)
endif()
if(SILT_BUILD_FUZZERS)
  # Coverage instrumentation of the library for the libFuzzer targets (fuzz/).
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
