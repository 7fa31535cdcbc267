# silt_layer(name below...) makes an object library of src/<name>/**/*.c that
# sees only its own headers and those of the layers below (an upward include
# does not compile because those headers are not on its path... all of src/
# is on the path, so layering is checked by scripts/check-layers.sh).
set(SILT_LAYERS "")
function(silt_layer name)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.c)
  if(NOT sources)
    return()
  endif()
  add_library(silt_${name} OBJECT ${sources})
  target_include_directories(silt_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src
                             ${PROJECT_SOURCE_DIR}/include ${ROARING_INCLUDE})
  target_compile_definitions(silt_${name} PRIVATE SILT_BUILDING_LIBRARY=1)
  target_link_libraries(silt_${name} PUBLIC ${SILT_DEP_LIBS})
  set_property(TARGET silt_${name} PROPERTY SILT_BELOW "${ARGN}")
  set(SILT_LAYERS ${SILT_LAYERS} ${name} PARENT_SCOPE)
endfunction()
