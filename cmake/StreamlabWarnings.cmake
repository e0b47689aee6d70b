# One INTERFACE target carries the project's warning flags; every streamlab target links it.
add_library(streamlab_warnings INTERFACE)
add_library(streamlab::warnings ALIAS streamlab_warnings)
target_compile_options(streamlab_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
                           -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${STREAMLAB_WERROR}>>:-Werror>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${STREAMLAB_WERROR}>>:-Werror=all-warnings>)
