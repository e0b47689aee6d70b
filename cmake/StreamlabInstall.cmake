# `cmake --install`: the executables, the libraries with their headers, the chart scripts, and a CMake
# package (streamlabConfig.cmake + version file) exporting streamlab::model, ::import, ::policies, ::sim,
# ::experiments and, when they were built, ::executor (CUDA) and ::viz. A consumer writes
#   find_package(streamlab 0.1 REQUIRED [COMPONENTS executor viz])
#   target_link_libraries(app PRIVATE streamlab::sim)
# (examples/ is such a consumer; .ci/run builds it against an install).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STREAMLAB_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/streamlab)
set(_streamlab_libs model import policies sim experiments)
set(_streamlab_components "")
foreach(optional executor viz)
  if(TARGET streamlab_${optional})
    list(APPEND _streamlab_libs ${optional})
    list(APPEND _streamlab_components ${optional})
  endif()
endforeach()

foreach(lib ${_streamlab_libs})
  set_target_properties(streamlab_${lib} PROPERTIES EXPORT_NAME ${lib})
  # Every library's public headers live under include/streamlab/<lib>/ (one folder per layer).
  target_include_directories(streamlab_${lib} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${lib}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
# The warning flags travel with the static libraries only as a link-only dependency (no flags reach a
# consumer), but the export set must name it.
set_target_properties(streamlab_warnings PROPERTIES EXPORT_NAME warnings)

list(TRANSFORM _streamlab_libs PREPEND streamlab_ OUTPUT_VARIABLE _streamlab_lib_targets)
install(TARGETS ${_streamlab_lib_targets} streamlab_warnings EXPORT streamlabTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS streamlab EXPORT streamlabTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET streamlab-viz)
  set_target_properties(streamlab-viz PROPERTIES EXPORT_NAME viz-app)
  install(TARGETS streamlab-viz EXPORT streamlabTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
set_target_properties(streamlab PROPERTIES EXPORT_NAME cli)

# experiment_charts.py, sweep_charts.py and their style module: `streamlab experiment render/report` and
# `streamlab sweep` look in
# <prefix>/share/streamlab/plot (charts.hpp).
install(FILES ${PROJECT_SOURCE_DIR}/scripts/plot/experiment_charts.py ${PROJECT_SOURCE_DIR}/scripts/plot/streamlab_style.py
              ${PROJECT_SOURCE_DIR}/scripts/plot/sweep_charts.py
              ${PROJECT_SOURCE_DIR}/scripts/plot/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/streamlab/plot)
install(FILES ${PROJECT_SOURCE_DIR}/model/profiles/h100-sxm.json ${PROJECT_SOURCE_DIR}/model/profiles/h100-sxm-2026-11-24.json DESTINATION ${CMAKE_INSTALL_DATADIR}/streamlab/profiles)

install(EXPORT streamlabTargets NAMESPACE streamlab:: DESTINATION ${STREAMLAB_INSTALL_CMAKEDIR})
set(STREAMLAB_EXPORTED_COMPONENTS "${_streamlab_components}")
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/streamlabConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/streamlabConfig.cmake
                              INSTALL_DESTINATION ${STREAMLAB_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/streamlabConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/streamlabConfig.cmake ${PROJECT_BINARY_DIR}/streamlabConfigVersion.cmake
        DESTINATION ${STREAMLAB_INSTALL_CMAKEDIR})
