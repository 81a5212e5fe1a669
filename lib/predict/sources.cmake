target_sources(hloroof_predict PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/calibrated_expected_time.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_expected_time.cc
  ${CMAKE_CURRENT_LIST_DIR}/combined_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_gpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_tpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_xla_gpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_models.cc
  ${CMAKE_CURRENT_LIST_DIR}/diff.cc
  ${CMAKE_CURRENT_LIST_DIR}/expected_inputs.cc
  ${CMAKE_CURRENT_LIST_DIR}/expected_time.cc
  ${CMAKE_CURRENT_LIST_DIR}/gpu_expected_time.cc
  ${CMAKE_CURRENT_LIST_DIR}/gpu_families.cc
  ${CMAKE_CURRENT_LIST_DIR}/measured_models.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule_clock.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_timing.cc
  ${CMAKE_CURRENT_LIST_DIR}/passes.cc
  ${CMAKE_CURRENT_LIST_DIR}/predict.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_walk.cc
  ${CMAKE_CURRENT_LIST_DIR}/timeline.cc
  ${CMAKE_CURRENT_LIST_DIR}/tpu_expected_time.cc
  ${CMAKE_CURRENT_LIST_DIR}/tpu_models.cc
  ${CMAKE_CURRENT_LIST_DIR}/variant_table.cc
)

# The measured GPU tables (data/measured, derived from openxla/xla by tools/measured_tables.py)
# are compiled in like the device specs; Eigen fits the models to them.
file(GLOB hloroof_measured_tables CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/data/measured/*.tsv)
hloroof_embed_files(TARGET hloroof_predict OUTPUT measured_table_files.cc
                    FUNCTION measured_table_files HEADER predict/measured_files.h
                    FILES ${hloroof_measured_tables})
# Header-only: its include directory alone, so installed packages need no Eigen.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
get_target_property(hloroof_eigen_includes Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(hloroof_predict SYSTEM PRIVATE ${hloroof_eigen_includes})
target_link_libraries(hloroof_predict PRIVATE PkgConfig::RE2)
# The private headers the layers above include (hloroof_share_headers): the op index the
# XSpace writer and the advice look ops up in, the expected times the profile layer compares,
# the GPU loops' host launches the advice finds.
hloroof_share_headers(predict expected_time.h gpu_families.h measured_models.h op_index.h)
