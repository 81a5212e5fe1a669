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
  proto     hlo_proto.h        memory.h
  predict   predict.h          memory.h
  report    report.h           xspace.h
  export    xspace.h           advise.h
  advise    advise.h           profile.h
  profile   profile.h          advise.h
  load      load.h             predict.h
  load      xspace_modules.h   profile.h
  load      hlo_text.h         device.h
  analysis  analysis.h         hloroof.h
  predict   diff.h             load.h
  predict   passes.h           analysis.h)
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

# A layer's private headers are fenced the same way (lib/CMakeLists.txt): its sources find, of
# lib/, their own folder and the headers the layers below them share, with exactly the include
# path a layer's sources get (its own include directories and its usage requirements).
# `layers.L.private_sees_H` must compile, `layers.L.private_not_H` must fail because the header
# is not found: a private header of a layer below that it does not share, or of a layer above.
set(hloroof_private_checks
  # layer   a private header it sees   another layer's private header it must not see
  text      ir/module_state.h          ir/mapped_memory.h
  proto     text/name_chars.h          memory/buffer_assignment.h
  report    util/wire_reader.h         export/wire_writer.h
  export    util/checked_math.h        report/json_writer.h
  profile   device/spec_units.h        advise/advise_internal.h
  analysis  util/number_text.h         advise/advise_internal.h)
while(hloroof_private_checks)
  list(POP_FRONT hloroof_private_checks layer seen unseen)
  foreach(pair "private_sees;${seen}" "private_not;${unseen}")
    list(GET pair 0 kind)
    list(GET pair 1 header)
    string(REPLACE "/" "_" stem ${header})
    set(source ${layer_checks_dir}/${layer}_${kind}_${stem}.cc)
    file(WRITE ${source} "#include \"${header}\"\n")
    set(includes $<TARGET_PROPERTY:hloroof_${layer},INCLUDE_DIRECTORIES>
                 $<TARGET_PROPERTY:hloroof_${layer},INTERFACE_INCLUDE_DIRECTORIES>)
    add_test(NAME layers.${layer}.${kind}_${header}
             COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only
                     "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>" ${source}
             COMMAND_EXPAND_LISTS)
    if(kind STREQUAL "private_not")
      string(REPLACE "." "\\." header_re ${header})
      set_tests_properties(layers.${layer}.${kind}_${header} PROPERTIES
        PASS_REGULAR_EXPRESSION "${header_re}.*(No such file|not found)")
    endif()
  endforeach()
endwhile()

# A program that only reads modules links the load layer, which brings proto, text, ir and util
# and no other layer: `layers.load.links` reads hloroof_load's link interface, and load_alone
# (linked with hloroof_load alone) reads the module an XSpace profile carries.
add_test(NAME layers.load.links COMMAND ${CMAKE_COMMAND} -E echo
                                        "$<TARGET_PROPERTY:hloroof_load,INTERFACE_LINK_LIBRARIES>")
set_tests_properties(layers.load.links PROPERTIES
  PASS_REGULAR_EXPRESSION "^hloroof_proto;hloroof_text;hloroof_ir;hloroof_util;"
  FAIL_REGULAR_EXPRESSION
    "hloroof_(device|cost|memory|predict|report|export|advise|profile|analysis)")
add_executable(load_alone ${CMAKE_CURRENT_LIST_DIR}/load_alone.cc)
target_link_libraries(load_alone PRIVATE hloroof_load hloroof_warnings)
set(load_alone_xspace ${PROJECT_SOURCE_DIR}/tests/data/h100/no_command_buffers/axpy/profile)
string(APPEND load_alone_xspace /plugins/profile/2026_11_23_02_20_21/vm.xplane.pb)
add_test(NAME layers.load.alone COMMAND load_alone ${load_alone_xspace})
set_tests_properties(layers.load.alone PROPERTIES
  PASS_REGULAR_EXPRESSION "entry [^\n]+\nread module jit_[^ ]+ of the [0-9]+ the profile carries")

# The command and the Python module compile against the library's public headers only: no
# folder of lib/ (private headers, sources) is on their include path.
foreach(target hloroof_cli _hloroof)
  if(TARGET ${target})
    add_test(NAME layers.${target}.public_headers
             COMMAND ${CMAKE_COMMAND} -E echo
                     "include path: $<JOIN:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>, >.")
    set_tests_properties(layers.${target}.public_headers PROPERTIES
      PASS_REGULAR_EXPRESSION "include path: "
      FAIL_REGULAR_EXPRESSION "${PROJECT_SOURCE_DIR}/lib[ /.]|lib/private")
  endif()
endforeach()
