# gen_hlo: writes a large synthetic HLO module (gen_hlo OUT.hlo --mb 100) for the parser
# benchmarks.
add_executable(gen_hlo ${CMAKE_CURRENT_LIST_DIR}/gen_hlo.cc)
target_link_libraries(gen_hlo PRIVATE hloroof_warnings absl::strings)
