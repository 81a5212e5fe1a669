# gen_hlo: writes a large synthetic HLO module (gen_hlo OUT.hlo --mb 100) for the parser
# benchmarks.
add_executable(gen_hlo ${CMAKE_CURRENT_LIST_DIR}/gen_hlo.cc)
target_link_libraries(gen_hlo PRIVATE hloroof_warnings absl::strings)

# run_measured: a command's wall and CPU time and its own peak resident memory
# (bench/command_speed.py runs every command through it).
if(UNIX)
  add_executable(run_measured ${CMAKE_CURRENT_LIST_DIR}/run_measured.cc)
  target_link_libraries(run_measured PRIVATE hloroof_warnings)
endif()
