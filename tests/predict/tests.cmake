hloroof_add_test(predict_test
  ${CMAKE_CURRENT_LIST_DIR}/collective_gpu_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_tpu_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule_clock_test.cc
)
