# The layering is enforced by the build: a layer's sources see the public headers of the layers
# below it (its DEPS in lib/CMakeLists.txt) and no others. Each test compiles one line, an
# #include, with exactly the include path a layer's sources get (the layer's usage requirements):
# `layers.L.sees_H` must compile, `layers.L.not_H` must fail because the header is not found. A
# layer may have several rows.
set(hloroof_layer_checks
  # layer   a header it sees   a header of a layer it must not see
  util      input_file.h       module.h
  ir        module.h           hlo_text.h
  text      hlo_text.h         cost.h
  cost      cost.h             device.h
  device    topology.h         cost.h
  memory    memory.h           predict.h
  proto     hlo_proto.h        predict.h
  predict   predict.h          memory.h
  report    report.h           advise.h
  advise    advise.h           profile.h
  profile   profile.h          advise.h
  load      load.h             advise.h
  predict   diff.h             load.h)
set(layer_checks_dir ${CMAKE_CURRENT_BINARY_DIR}/layer_checks)
while(hloroof_layer_checks)
  list(POP_FRONT hloroof_layer_checks layer seen unseen)
  foreach(pair "sees;${seen}" "not;${unseen}")
    list(GET pair 0 kind)
    list(GET pair 1 header)
    set(source ${layer_checks_dir}/${layer}_${kind}_${header}.cc)
    file(WRITE ${source} "#include \"hloroof/${header}\"\n")
    set(includes $<TARGET_PROPERTY:hloroof_${layer},INTERFACE_INCLUDE_DIRECTORIES>)
    add_test(NAME layers.${layer}.${kind}_${header}
             COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only
                     "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>" ${source}
             COMMAND_EXPAND_LISTS)
    if(kind STREQUAL "not")
      string(REPLACE "." "\\." header_re ${header})
      set_tests_properties(layers.${layer}.${kind}_${header} PROPERTIES
        PASS_REGULAR_EXPRESSION "hloroof/${header_re}.*(No such file|not found)")
    endif()
  endforeach()
endwhile()
