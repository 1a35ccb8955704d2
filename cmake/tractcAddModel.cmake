# tractc_add_model(<target> <model.onnx>
#                  [NAME <prefix>]              C symbol prefix and file name (default: <target>)
#                  [INPUT_SHAPES <NAME=D0,...>...]  pins for symbolic dims
#                  [TARGET <tractc target>]     generic, x86-64-avx2, aarch64, ...
#                  [OPTIONS <extra tractc arguments>...])
#
# Runs tractc at build time (again whenever the model or tractc changes) and
# makes <target> a static library of the generated <prefix>.cpp; linking it
# brings <prefix>.h and the runtime headers onto the include path.
function(tractc_add_model target model)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "NAME;TARGET" "INPUT_SHAPES;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tractc_add_model: unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME ${target})
  endif()
  get_filename_component(model "${model}" ABSOLUTE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tractc/${target}")
  set(args "${model}" -o "${dir}/${ARG_NAME}.cpp" --name "${ARG_NAME}")
  foreach(shape IN LISTS ARG_INPUT_SHAPES)
    list(APPEND args --input-shape "${shape}")
  endforeach()
  if(ARG_TARGET)
    list(APPEND args "--target=${ARG_TARGET}")
  endif()
  list(APPEND args ${ARG_OPTIONS})
  add_custom_command(
    OUTPUT "${dir}/${ARG_NAME}.cpp" "${dir}/${ARG_NAME}.h"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND tractc::tractc ${args}
    DEPENDS "${model}" tractc::tractc
    COMMENT "tractc: compiling ${ARG_NAME} from ${model}"
    VERBATIM)
  add_library(${target} STATIC "${dir}/${ARG_NAME}.cpp")
  target_include_directories(${target} PUBLIC "${dir}")
  target_link_libraries(${target} PUBLIC tractc::runtime)
  target_compile_features(${target} PUBLIC cxx_std_17)
endfunction()
