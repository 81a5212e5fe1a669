# The load layer: reading a module, for the command and Python alike (hloroof/load.h): files,
# standard input, dump directories and bytes, told apart by content; which module and entry;
# what about the input the figures do not assume. It sits on the proto layer, which reads HLO
# protos and the modules an XSpace profile carries, and the text layer: a program that only
# reads modules links proto, text, ir and util.
target_sources(hloroof_load PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/load.cc
)
