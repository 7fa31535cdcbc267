# silt_layer(name below...) makes an object library of src/<name>/**/*.c that
# sees only its own headers and those of the layers below it, so an upward
# include does not compile (DESIGN.md, Layers), as libgit2's build does it.
#
# Includes keep their spelling relative to src/ ("delta/scan.h"). The include
# root of a layer is a folder of the build tree, layer-roots/<name>/, holding
# one link per allowed layer (<name> itself and the layers below) to its
# folder under src/; src/ itself is on no layer's path. silt_layer_root() makes
# such a root for the command too (cli sees util only). Tests, fuzzers and
# benchmarks are not layers: they get all of src/ on their own targets, which
# changes nothing for the layers' compiles.
#
# scripts/check-source.py holds the same rules for the source check and
# scripts/check-include-roots.py proves the compile fails on an upward include;
# both are run by ctest (tests/CMakeLists.txt, check.layers and check.include_roots).
set(SILT_LAYERS "")
set(SILT_LAYER_ROOTS ${PROJECT_BINARY_DIR}/layer-roots)

# Makes layer-roots/<name>/ with a link to src/<layer> for each given layer and
# sets <out_var> to the folder. The folder is rebuilt at every configure, so a
# layer taken off the list loses its link.
function(silt_layer_root name out_var)
  set(root ${SILT_LAYER_ROOTS}/${name})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root})
  foreach(layer IN LISTS ARGN)
    if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/src/${layer})
      message(FATAL_ERROR "silt_layer_root(${name}): no src/${layer}")
    endif()
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${root}/${layer} SYMBOLIC)
  endforeach()
  set(${out_var} ${root} PARENT_SCOPE)
endfunction()

function(silt_layer name)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.c)
  if(NOT sources)
    return()
  endif()
  silt_layer_root(${name} root ${name} ${ARGN})
  add_library(silt_${name} OBJECT ${sources})
  # PRIVATE: the object libraries are only gathered into libsilt, and a target
  # that linked one must not inherit this layer's narrow root by accident.
  target_include_directories(silt_${name} PRIVATE ${root} ${PROJECT_SOURCE_DIR}/include
                             ${ROARING_INCLUDE})
  target_compile_definitions(silt_${name} PRIVATE SILT_BUILDING_LIBRARY=1)
  target_link_libraries(silt_${name} PUBLIC ${SILT_DEP_LIBS})
  set_property(TARGET silt_${name} PROPERTY SILT_BELOW "${ARGN}")
  set(SILT_LAYERS ${SILT_LAYERS} ${name} PARENT_SCOPE)
endfunction()
