# Warnings and sanitizers, applied to every target of the project through this interface target.
add_library(hloroof_warnings INTERFACE)
target_compile_options(hloroof_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wno-missing-field-initializers)
if(HLOROOF_WERROR)
  target_compile_options(hloroof_warnings INTERFACE -Werror)
endif()
if(HLOROOF_SANITIZE)
  # -O1, as the sanitizers' own documentation advises: fast enough to run, and the build (every
  # layer and test again) takes about a third less time than at -O2.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -O1)
  add_link_options(-fsanitize=address,undefined)
  # GCC's flow analysis misfires under sanitizer instrumentation (e.g. on absl::InlinedVector's
  # inline storage): its maybe-uninitialized warning is noise there, and -Werror would stop
  # the build on it. ASan and UBSan check the real thing at run time.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()
