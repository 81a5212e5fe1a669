# The analysis layer: one module analysed on one device (hloroof/analysis.h), the prediction,
# memory analysis, advice and XSpace made at the same time where they can be and freed as soon
# as they are read; the command's `predict` and Python alike. One module on several devices
# (compare_devices), predicted side by side and handed over in order: the command's `compare`.
# The front door every caller takes around an analysis (prepare_analysis, choose_device,
# add_input_diagnostics): one rule for the device, one order for what was said.
# A measured profile joined with the prediction (join_profile, write_profile_xspaces): its
# `profile`. A device fitted to profiles read from files (calibrate_profiles): its `calibrate`.
# It sits on top: it uses the advise layer and the export layer, which no layer below it sees
# together.
target_sources(hloroof_analysis PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis.cc
  ${CMAKE_CURRENT_LIST_DIR}/calibration.cc
  ${CMAKE_CURRENT_LIST_DIR}/devices.cc
  ${CMAKE_CURRENT_LIST_DIR}/input.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_join.cc
)
# A capture's meta.json names its device (measured_device).
target_link_libraries(hloroof_analysis PRIVATE nlohmann_json::nlohmann_json)
