hloroof_add_test(predict_test
  ${CMAKE_CURRENT_LIST_DIR}/collective_gpu_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_tpu_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule_clock_test.cc
)
hloroof_add_test(measured_models_test ${CMAKE_CURRENT_LIST_DIR}/measured_models_test.cc)
target_include_directories(measured_models_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
hloroof_add_test(tpu_models_test ${CMAKE_CURRENT_LIST_DIR}/tpu_models_test.cc)
target_include_directories(tpu_models_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
hloroof_add_test(op_index_test ${CMAKE_CURRENT_LIST_DIR}/op_index_test.cc)
target_include_directories(op_index_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
hloroof_add_test(predict_step_test
  ${CMAKE_CURRENT_LIST_DIR}/flop_rate_peak_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernel_estimate_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/predict_collective_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/predict_examples_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/predict_roofline_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/predict_step_test.cc
)

# The whole corpus, as its own test so that its time and output stand apart.
hloroof_add_corpus_test(predict_corpus_test ${CMAKE_CURRENT_LIST_DIR}/predict_corpus_test.cc)
# The memory analysis and predictions on several devices run on threads at once give what they
# give one after the other (`hloroof compare` predicts its devices so).
hloroof_add_test(concurrent_analysis_test ${CMAKE_CURRENT_LIST_DIR}/concurrent_analysis_test.cc)
find_package(Threads REQUIRED)
target_link_libraries(concurrent_analysis_test PRIVATE Threads::Threads)
# Explanations made once for each set of figures they print.
hloroof_add_test(text_memo_test ${CMAKE_CURRENT_LIST_DIR}/text_memo_test.cc)
target_include_directories(text_memo_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
# The models of one op's time, and the combined model that picks one for each op.
hloroof_add_test(op_model_test ${CMAKE_CURRENT_LIST_DIR}/op_model_test.cc)
target_include_directories(op_model_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
# Every GEMM of a grid of shapes (16 to 2^23 a side) on every built-in GPU and TPU.
hloroof_add_test(gemm_grid_test ${CMAKE_CURRENT_LIST_DIR}/gemm_grid_test.cc)
# Compiler passes run on a module, each verified and predicted (hloroof/passes.h).
hloroof_add_test(passes_test ${CMAKE_CURRENT_LIST_DIR}/passes_test.cc)
# Each op's time asks each model once (ModelObserver).
hloroof_add_test(model_visits_test ${CMAKE_CURRENT_LIST_DIR}/model_visits_test.cc)
target_include_directories(model_visits_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
# Which measurements a device reads is its spec's measured_on; a GPU not built in is one file.
hloroof_add_test(device_provenance_test ${CMAKE_CURRENT_LIST_DIR}/device_provenance_test.cc)
