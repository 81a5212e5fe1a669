# The load layer: reading a module, for the command and Python alike (hloroof/load.h): files,
# standard input, dump directories and bytes, told apart by content; which module and entry;
# what about the input the figures do not assume. It sits on the profile layer, whose XSpace
# reader gives the module a profile carries.
target_sources(hloroof_load PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/load.cc
)
