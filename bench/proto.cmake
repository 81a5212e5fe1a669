# proto_read_bench: a program read from its HloModuleProto against its text (see
# bench/proto_read_bench.cc; bench/jax_mlp_protos.py writes the protos).
add_executable(proto_read_bench ${CMAKE_CURRENT_LIST_DIR}/proto_read_bench.cc)
target_link_libraries(proto_read_bench PRIVATE hloroof hloroof_warnings)
