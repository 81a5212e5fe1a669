# The hostile-input corpus (tests/hostile/README.md): inputs that crash, hang or grow without bound
# a reader that does not guard against them, each run through every command that reads it, with a
# timeout per run. Small inputs live in inputs/; make_hostile_inputs writes the big ones into the
# build tree first.
hloroof_add_test(hostile_test ${CMAKE_CURRENT_LIST_DIR}/hostile_test.cc)
target_include_directories(hostile_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)

if(NOT TARGET hloroof_cli)
  return()
endif()

# Outputs, standard output and profiles that hloroof wrote itself, through the command.
hloroof_add_test(hostile_cli_test ${CMAKE_CURRENT_LIST_DIR}/hostile_cli_test.cc)
target_include_directories(hostile_cli_test PRIVATE
  $<TARGET_PROPERTY:hloroof_xplane_proto,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(hostile_cli_test PRIVATE protobuf::libprotobuf ZLIB::ZLIB)
target_compile_definitions(hostile_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(hostile_cli_test hloroof_cli)

add_executable(make_hostile_inputs ${CMAKE_CURRENT_LIST_DIR}/make_hostile_inputs.cc)
target_link_libraries(make_hostile_inputs PRIVATE hloroof_warnings ZLIB::ZLIB)
add_dependencies(make_hostile_inputs hloroof_cli)

set(HOSTILE_INPUTS ${CMAKE_CURRENT_LIST_DIR}/inputs)
set(HOSTILE_GENERATED ${CMAKE_CURRENT_BINARY_DIR}/hostile)
add_test(NAME hostile.generate
         COMMAND make_hostile_inputs ${PROJECT_SOURCE_DIR} ${HOSTILE_GENERATED})
set_tests_properties(hostile.generate PROPERTIES FIXTURES_SETUP hostile_inputs)

# hostile_run(NAME EXPECT MESSAGE COMMAND_ARGS...): `hloroof COMMAND_ARGS...` must end as EXPECT
# says ("ok", "json" = ok with JSON on standard output, or "error" with MESSAGE in it). With
# HOSTILE_STDIN set, standard input reads that file.
# A run must end within 60 s (a hang is a failure); under the sanitizers, which make the
# largest inputs about ten times slower, within 300 s.
if(HLOROOF_SANITIZE)
  set(hostile_timeout 300)
else()
  set(hostile_timeout 60)
endif()
math(EXPR hostile_test_timeout "${hostile_timeout} + 30")

function(hostile_run name expect message)
  list(JOIN ARGN "|" words)
  set(defines -DCOMMAND=$<TARGET_FILE:hloroof_cli>|${words} -DTIMEOUT=${hostile_timeout})
  # With HOSTILE_MEMORY_KB set, the run gets that much address space (ulimit -v), outside the
  # sanitizer build (whose shadow memory takes terabytes of it).
  if(DEFINED HOSTILE_MEMORY_KB AND NOT HLOROOF_SANITIZE)
    set(defines "-DCOMMAND=/bin/sh|-c|ulimit -v ${HOSTILE_MEMORY_KB} && exec \"$0\" \"$@\"|$<TARGET_FILE:hloroof_cli>|${words}"
                -DTIMEOUT=${hostile_timeout})
  endif()
  if(DEFINED HOSTILE_STDIN)
    list(APPEND defines -DSTDIN=${HOSTILE_STDIN})
  endif()
  if(expect STREQUAL "json")
    list(APPEND defines -DEXPECT=ok -DJSON=ON)
  else()
    list(APPEND defines -DEXPECT=${expect})
  endif()
  if(NOT message STREQUAL "")
    list(APPEND defines "-DMESSAGE=${message}")
  endif()
  add_test(NAME hostile.${name}
           COMMAND ${CMAKE_COMMAND} ${defines} -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/run_hostile.cmake)
  set_tests_properties(hostile.${name} PROPERTIES TIMEOUT ${hostile_test_timeout}
                       FIXTURES_REQUIRED hostile_inputs)
endfunction()

# hostile_module(NAME FILE EXPECT MESSAGE): every command that reads an HLO module, on FILE.
function(hostile_module name file expect message)
  set(out ${HOSTILE_GENERATED}/${name})
  if(expect STREQUAL "error")
    hostile_run(${name}.parse error "${message}" parse ${file})
    hostile_run(${name}.cost error "${message}" cost ${file} --json)
    hostile_run(${name}.memory error "${message}" memory ${file})
    hostile_run(${name}.predict error "${message}" predict ${file})
    hostile_run(${name}.compare error "${message}" compare ${file} --devices tpu_v5e,h100)
  else()
    hostile_run(${name}.parse json "" parse ${file} --json)
    hostile_run(${name}.cost json "" cost ${file} --json --all)
    hostile_run(${name}.cost_text ok "" cost ${file} --all)
    hostile_run(${name}.memory json "" memory ${file} --json)
    hostile_run(${name}.predict json "" predict ${file} --json --top 0)
    hostile_run(${name}.predict_files ok "" predict ${file} --trace ${out}.trace.json
                --roofline ${out}.svg)
    hostile_run(${name}.compare json "" compare ${file} --devices tpu_v5e,h100 --json)
  endif()
endfunction()

# hostile_device(NAME FILE MESSAGE): a device spec every command must refuse, saying MESSAGE.
function(hostile_device name file message)
  hostile_run(${name}.devices error "${message}" devices ${file})
  hostile_run(${name}.devices_json error "${message}" devices ${file} --json)
  hostile_run(${name}.predict error "${message}" predict ${HOSTILE_INPUTS}/small.hlo
              --device ${file} --roofline ${HOSTILE_GENERATED}/${name}.svg)
  hostile_run(${name}.memory error "${message}" memory ${HOSTILE_INPUTS}/small.hlo
              --device ${file})
  hostile_run(${name}.compare error "${message}" compare ${HOSTILE_INPUTS}/small.hlo
              --devices tpu_v5e,${file})
endfunction()

# Call nesting: refused past the bound (unbounded, 100k levels overflow the stack); linear below
# it.
hostile_module(fusion_chain_20000 ${HOSTILE_GENERATED}/fusion_chain_20000.hlo error
               "calls nest more than 128 levels deep")
hostile_module(fusion_chain_120 ${HOSTILE_GENERATED}/fusion_chain_120.hlo ok "")
# A parameter of 200,000 scalar leaves: one buffer and allocation each, in time and memory
# linear in them (tests/memory/memory_wide_tuple_test.cc holds the analysis to 44 heap bytes a
# leaf, and the writing of memory --json's 47 MB, left out here, to 256 KiB).
foreach(command memory predict)
  hostile_run(wide_parameter.${command} ok "" ${command}
              ${HOSTILE_GENERATED}/wide_parameter_200000.hlo)
endforeach()
hostile_run(wide_parameter.trace ok "" predict ${HOSTILE_GENERATED}/wide_parameter_200000.hlo
            --trace ${HOSTILE_GENERATED}/wide_parameter.trace.json)
# Shardings and replica groups over 2^20 devices, in iota and mesh form, kept as written (each
# expanded is 2^20 ids, 8 MiB). Predict says the topology is too small for the mesh.
# Each within 1 GiB of address space, which the expanded forms pass.
set(HOSTILE_MEMORY_KB 1048576)
foreach(command parse cost memory)
  hostile_run(iota_shardings_400.${command} ok "" ${command}
              ${HOSTILE_GENERATED}/iota_shardings_400.hlo)
  hostile_run(mesh_groups_100.${command} ok "" ${command} ${HOSTILE_GENERATED}/mesh_groups_100.hlo)
endforeach()
hostile_run(iota_shardings_400.predict ok "" predict ${HOSTILE_GENERATED}/iota_shardings_400.hlo)
hostile_run(mesh_groups_100.predict error "devices" predict
            ${HOSTILE_GENERATED}/mesh_groups_100.hlo)
unset(HOSTILE_MEMORY_KB)
# Fan-out: 2^30 paths; each computation is timed and costed once.
hostile_module(call_fan_out_30 ${HOSTILE_GENERATED}/call_fan_out_30.hlo ok "")
hostile_module(conditional_fan_out_30 ${HOSTILE_GENERATED}/conditional_fan_out_30.hlo ok "")
# Nesting in the text.
hostile_module(tuple_deep ${HOSTILE_GENERATED}/tuple_deep.hlo error "nested more than 64")
hostile_module(physical_shape_deep ${HOSTILE_GENERATED}/physical_shape_deep.hlo error
               "nested more than 64")
hostile_module(literal_deep ${HOSTILE_GENERATED}/literal_deep.hlo error "nests deeper")
hostile_module(operands_deep ${HOSTILE_GENERATED}/operands_deep.hlo error "nested more than 64")
# Brace-balanced blobs are skipped without recursion; JSON in them is parsed without recursion.
hostile_module(brackets_deep ${HOSTILE_GENERATED}/brackets_deep.hlo ok "")
hostile_module(json_deep ${HOSTILE_GENERATED}/json_deep.hlo ok "")
# Values whose arithmetic overflows int64 (undefined behaviour that UBSan reports).
hostile_module(reduce_window_pad ${HOSTILE_INPUTS}/reduce_window_pad_2p62.hlo ok "")
# Bytes that are not UTF-8 in strings: JSON stays JSON.
hostile_module(invalid_utf8 ${HOSTILE_INPUTS}/invalid_utf8.hlo ok "")
hostile_module(parameter_number_2p31 ${HOSTILE_INPUTS}/parameter_number_2p31.hlo error
               "parameter number 2147483648 is out of range")
# A custom-call target holding terminal escapes (ESC [2J clears the screen, ESC ] 0 sets the
# title): printed raw in predict's unknown-work table and advise's evidence.
hostile_module(escape_target ${HOSTILE_INPUTS}/escape_target.hlo ok "")
hostile_run(escape_target.advise ok "" advise ${HOSTILE_INPUTS}/escape_target.hlo --device h100)
hostile_run(escape_target.predict_csv ok "" predict ${HOSTILE_INPUTS}/escape_target.hlo --csv)
# The same in an op's metadata, which predict --csv and compare --csv write in a cell.
hostile_run(escape_metadata.predict_csv ok "" predict ${HOSTILE_INPUTS}/escape_metadata.hlo --csv)
hostile_run(escape_metadata.compare_csv ok "" compare ${HOSTILE_INPUTS}/escape_metadata.hlo
            --devices tpu_v5e,h100 --csv)
# 24 nested loops of 1e18 trips: their time passes what a double holds, and the error says so.
set(file ${HOSTILE_GENERATED}/nested_loops_1e18.hlo)
hostile_run(nested_loops_1e18.cost json "" cost ${file} --json)
hostile_run(nested_loops_1e18.memory ok "" memory ${file})
hostile_run(nested_loops_1e18.predict error
            "the trip counts of the loops around it multiply past what a double holds"
            predict ${file} --device h100)
# HloProtos: an async-update that is its own operand (a cycle); a 64 KiB name referenced 32,768
# times (2 GiB of text written out); a buffer assignment that assigns one 1 MiB name 4,096 times
# and 160,000 buffers in one allocation (each name held once, looked up by hash); 8 MiB of
# 2-byte messages (each decoded takes many times its bytes).
hostile_module(async_update_cycle ${HOSTILE_GENERATED}/async_update_cycle.hlo.pb error
               "async-updates in a loop")
hostile_module(operand_name_amplification
               ${HOSTILE_GENERATED}/operand_name_amplification.hlo.pb error
               "names repeated at every reference")
hostile_module(buffer_assignment_copies ${HOSTILE_GENERATED}/buffer_assignment_copies.hlo.pb ok
               "")
hostile_module(tiny_messages ${HOSTILE_GENERATED}/tiny_messages.hlo.pb error
               "refused before decoding")
# A tuple of 16M leaves (64 MiB): its shape is written from its bytes, not decoded a message a
# leaf (2.2 GB); read within 768 MiB of address space (it needs between 300 and 400 MiB: the
# file, its shapes set aside, 117 MB of text and the module). 4M instructions of 4 bytes each
# (16 MiB, 2.9 GB decoded): refused before decoding.
set(HOSTILE_MEMORY_KB 786432)
foreach(command parse cost)
  hostile_run(tuple_leaves_16m.${command} ok "" ${command}
              ${HOSTILE_GENERATED}/tuple_leaves_16m.hlo.pb)
endforeach()
hostile_run(tiny_instructions.parse error "instructions in" parse
            ${HOSTILE_GENERATED}/tiny_instructions.hlo.pb)
unset(HOSTILE_MEMORY_KB)
# Replica groups in iota form stay in that form (2^24 devices expanded are 128 MiB of ids): parse
# and cost read their count and size only; predict says the topology is too small for them.
foreach(log2 20 24)
  set(file ${HOSTILE_INPUTS}/iota_groups_2p${log2}.hlo)
  hostile_run(iota_groups_2p${log2}.parse json "" parse ${file} --json)
  hostile_run(iota_groups_2p${log2}.cost json "" cost ${file} --json)
  hostile_run(iota_groups_2p${log2}.memory json "" memory ${file} --json)
endforeach()
hostile_run(iota_groups_2p24.predict error "16777216 devices" predict
            ${HOSTILE_INPUTS}/iota_groups_2p24.hlo)
hostile_run(iota_groups_2p20.predict error "holds 1048576 devices" predict
            ${HOSTILE_INPUTS}/iota_groups_2p20.hlo)

# Device specs.
hostile_device(device_peak_1e308 ${HOSTILE_GENERATED}/device_peak_1e308.json
               "field 'matrix_flops_per_s.bf16.value': must be from")
hostile_device(device_hbm_1e-300 ${HOSTILE_GENERATED}/device_hbm_1e-300.json
               "field 'hbm.bandwidth.value': must be from")
hostile_device(device_number_1e999 ${HOSTILE_GENERATED}/device_number_1e999.json
               "beyond a double")
hostile_device(device_number_400_digits ${HOSTILE_GENERATED}/device_number_400_digits.json
               "beyond a double")
hostile_device(device_array_deep ${HOSTILE_GENERATED}/device_array_deep.json "field 'x'")
# A device named with escapes (clear the screen, set the title, red, C1 CSI): read, and every
# report prints its names escaped (run_hostile.cmake fails on an ESC in the output).
set(escapes ${HOSTILE_GENERATED}/device_name_escapes.json)
hostile_run(device_name_escapes.predict ok "" predict ${HOSTILE_INPUTS}/small.hlo --device
            ${escapes})
hostile_run(device_name_escapes.compare ok "" compare ${HOSTILE_INPUTS}/small.hlo --devices
            tpu_v5e,${escapes})
hostile_run(device_name_escapes.memory ok "" memory ${HOSTILE_INPUTS}/small.hlo --device
            ${escapes})
# Files that are not regular files.
hostile_device(device_directory / "it is a directory")
hostile_device(device_dev_zero /dev/zero "it is a character device")
hostile_device(device_proc_mem /proc/self/mem "cannot read '/proc/self/mem'")
hostile_run(parse_directory error "it is a directory" parse /)
hostile_run(parse_dev_zero error "it is a character device" parse /dev/zero)
hostile_run(cost_dev_zero error "it is a character device" cost /dev/zero)

# Module attributes whose product overflows int64 (2^62 x 4): the CLI's note on idle devices
# multiplied them (undefined behaviour that UBSan reports); the topology cannot hold them.
hostile_run(replica_count_overflow.predict error "devices" predict
            ${HOSTILE_INPUTS}/replica_count_overflow.hlo --device tpu_v5e:2x2)
hostile_run(replica_count_overflow.memory ok "" memory
            ${HOSTILE_INPUTS}/replica_count_overflow.hlo --device tpu_v5e:2x2)

# Standard input that never ends: refused for what it is, not read to the 4 GiB limit.
set(HOSTILE_STDIN /dev/zero)
hostile_run(stdin_dev_zero.parse error "standard input: it is a character device" parse -)
hostile_run(stdin_dev_zero.predict error "standard input: it is a character device" predict -)
unset(HOSTILE_STDIN)
set(HOSTILE_STDIN ${HOSTILE_GENERATED}/nul_bytes.hlo)
hostile_run(stdin_nul.parse error "it holds a NUL byte (at byte 11)" parse -)
unset(HOSTILE_STDIN)

# Efficiencies: the smallest double above 0 made every op's time infinite.
hostile_device(device_efficiency_5e-324 ${HOSTILE_GENERATED}/device_efficiency_5e-324.json
               "field 'matmul_efficiency': expected a fraction from 0.001 to 1")

# Profiles that are not regular files: /dev/zero grew without bound, a named pipe hung.
foreach(profile dev_zero fifo)
  if(profile STREQUAL "dev_zero")
    set(path /dev/zero)
    set(what "it is a character device")
  else()
    set(path ${HOSTILE_GENERATED}/profile.fifo.trace.json)
    set(what "it is a named pipe")
  endif()
  hostile_run(profile_${profile}.profile error "${what}" profile ${HOSTILE_INPUTS}/small.hlo
              ${path} --device h100)
  hostile_run(profile_${profile}.calibrate error "${what}" calibrate ${path}
              --hlo ${HOSTILE_INPUTS}/small.hlo --device h100)
endforeach()

# File names of a dump directory print escaped (run_hostile.cmake refuses an ESC in any output).
hostile_run(dump_escapes.predict ok "" predict ${HOSTILE_GENERATED}/dump_escapes --device h100)
hostile_run(dump_escapes.memory ok "" memory ${HOSTILE_GENERATED}/dump_escapes)
hostile_run(dump_escapes.module error "no module named" predict ${HOSTILE_GENERATED}/dump_escapes
            --module other)

# Outputs that name an input are refused (they overwrote the input).
hostile_run(output_is_input.trace error "it is an input of this command" predict
            ${HOSTILE_GENERATED}/output_is_input.hlo
            --trace ${HOSTILE_GENERATED}/output_is_input.hlo)
hostile_run(output_is_input.diff error "it is an input of this command" diff
            ${HOSTILE_INPUTS}/small.hlo ${HOSTILE_GENERATED}/output_is_input.hlo
            --trace ${HOSTILE_GENERATED}/output_is_input.hlo)
hostile_run(output_is_input.roofline error "it is an input of this command" predict
            ${HOSTILE_GENERATED}/output_is_input.hlo
            --roofline ${HOSTILE_GENERATED}/../hostile/output_is_input.hlo)

# Profiles (docs/limits.md, "Profiles"). Trace JSON: a gzip bomb of events (5.3 MB
# compressed), of whitespace, of brackets, a string too long.
set(P ${HOSTILE_GENERATED})
foreach(command profile calibrate)
  if(command STREQUAL "profile")
    set(head profile ${HOSTILE_INPUTS}/small.hlo)
    set(tail --device h100)
  else()
    set(head calibrate)
    set(tail --hlo ${HOSTILE_INPUTS}/small.hlo --device h100)
  endif()
  # The events are counted as the text inflates, before it is parsed: refused within 512 MiB of
  # address space (the parse of 8.4 million events took 2 GB and 7 s to reach the limit).
  set(HOSTILE_MEMORY_KB 524288)
  hostile_run(events_bomb_json.${command} error "holds more than 8388608 events" ${head}
              ${P}/events_bomb.trace.json.gz ${tail})
  unset(HOSTILE_MEMORY_KB)
  hostile_run(whitespace_bomb.${command} error "inflates to more than 1 GiB of JSON text"
              ${head} ${P}/whitespace_bomb.trace.json.gz ${tail})
  hostile_run(brackets_bomb.${command} error "brackets, braces, commas and colons in a row"
              ${head} ${P}/brackets_bomb.trace.json.gz ${tail})
  hostile_run(long_string.${command} error "holds a string longer than 16 MiB" ${head}
              ${P}/long_string.trace.json.gz ${tail})
  # XSpace: planes and events past the bounds, refused before they are decoded.
  hostile_run(planes_bomb.${command} error "holds more than 4096 planes" ${head}
              ${P}/planes_bomb.xplane.pb ${tail})
  hostile_run(events_bomb_xplane.${command} error "holds more than 8388608 events" ${head}
              ${P}/events_bomb.xplane.pb ${tail})
  # An error lists 16 planes of 100, not every one.
  hostile_run(planes_100.${command} error "'p15' and 84 more" ${head} ${P}/planes_100.xplane.pb
              ${tail})
  # Bytes that are not UTF-8 in names: read (the module is not in it), no protobuf ERROR line.
  hostile_run(invalid_utf8_xplane.${command} error "has no op events of module 'small'" ${head}
              ${P}/invalid_utf8.xplane.pb ${tail})
endforeach()
# Two gzip members read whole; op names holding escape sequences and newlines print escaped.
hostile_run(two_members.profile ok "" profile ${P}/jit_step.hlo ${P}/two_members.trace.json.gz
            --device h100)
hostile_run(two_members.profile_json json "" profile ${P}/jit_step.hlo
            ${P}/two_members.trace.json.gz --device h100 --json)

# An input rewritten while it is read: never a signal (the mapped file raised SIGBUS).
add_test(NAME hostile.rewrite_while_reading
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/rewrite_while_reading.sh
                 $<TARGET_FILE:hloroof_cli> ${HOSTILE_INPUTS}/small.hlo
                 ${HOSTILE_GENERATED}/rewrite)
set_tests_properties(hostile.rewrite_while_reading PROPERTIES TIMEOUT 300)

# Out of memory under an address-space limit: an `error:` line and exit 1, never SIGABRT (an
# uncaught std::bad_alloc) or SIGSEGV (a worker thread left running while the main one
# unwound). Standard input grows in bounded steps and says how far it got. Not under the
# sanitizers, whose shadow memory needs more address space than any such limit.
if(NOT HLOROOF_SANITIZE)
  add_test(NAME hostile.out_of_memory_stdin
           COMMAND bash -c "ulimit -v 400000; yes abcdefgh | head -c 400M | \"$1\" parse -"
                   _ $<TARGET_FILE:hloroof_cli>)
  set_tests_properties(hostile.out_of_memory_stdin PROPERTIES TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "cannot read standard input: out of memory after")
  add_test(NAME hostile.out_of_memory_predict
           COMMAND bash -c "ulimit -v 400000; \"$1\" predict \"$2\" --device h100; test $? = 1"
                   _ $<TARGET_FILE:hloroof_cli> ${HOSTILE_GENERATED}/negate_chain_1500000.hlo)
  set_tests_properties(hostile.out_of_memory_predict PROPERTIES TIMEOUT 60
                       FIXTURES_REQUIRED hostile_inputs
                       PASS_REGULAR_EXPRESSION "error: out of memory: the input needs more memory")
endif()
