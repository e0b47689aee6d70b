// streamlab-viz: the predicted-vs-measured timeline viewer. Reads trace files only; never runs anything.
//   streamlab-viz PREDICTED.json [MEASURED.json] [--workload W.json]
//                 [--screenshot OUT.png [--frames N] [--view START:END] [--size WxH]]

#include <cfloat>
#include <cstdio>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "screenshot.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/viz/options.hpp"
#include "streamlab/viz/session.hpp"
#include "viewer.hpp"

namespace {

void glfw_error(int code, const char* description) {
  std::fprintf(stderr, "streamlab-viz: GLFW error %d: %s\n", code, description);
}

}  // namespace

int main(int argc, char** argv) {
  namespace viz = streamlab::viz;
  CLI::App cli{"streamlab-viz: timeline of a predicted trace and a measured trace of one workload, lane by lane"};
  std::string predicted, measured, workload, screenshot, view_text, select, hover_text, size_text = "1600x900";
  int frames = 3;
  cli.add_option("PREDICTED", predicted, "Trace predicted by the simulator (Chrome Trace JSON)")->required();
  cli.add_option("MEASURED", measured, "Trace measured on a GPU, of the same workload");
  cli.add_option("--workload", workload, "Workload JSON: enables dependency and critical-path highlighting");
  cli.add_option("--screenshot", screenshot, "Render without a person, write this PNG and exit (use xvfb-run)");
  cli.add_option("--frames", frames, "Frames rendered before the screenshot is taken")->check(CLI::Range(1, 1000));
  cli.add_option("--view", view_text, "Initial visible range START:END (e.g. 0:2ms; bare numbers are ns)");
  cli.add_option("--select", select, "Op id selected at start (outlines it, and with --workload its deps)");
  cli.add_option("--hover", hover_text, "With --screenshot: mouse at window pixel X,Y (shows that tooltip)");
  cli.add_option("--size", size_text, "Window size WIDTHxHEIGHT")->capture_default_str();
  CLI11_PARSE(cli, argc, argv);

  std::optional<std::pair<streamlab::model::Nanos, streamlab::model::Nanos>> view;
  std::pair<int, int> size;
  ImVec2 hover(-FLT_MAX, -FLT_MAX);
  try {
    if (!view_text.empty()) view = viz::parse_view_range(view_text);
    size = viz::parse_size(size_text);
    if (!hover_text.empty()) {
      const auto [hx, hy] = viz::parse_point(hover_text, "--hover");
      hover = ImVec2(static_cast<float>(hx), static_cast<float>(hy));
    }
  } catch (const streamlab::model::InputError& e) {
    std::fprintf(stderr, "streamlab-viz: %s\n", e.what());
    return 2;
  }

  viz::SessionFiles files{predicted, std::nullopt, std::nullopt};
  if (!measured.empty()) files.measured = measured;
  if (!workload.empty()) files.workload = workload;
  viz::Session session = viz::open_session(files);
  for (const auto& e : session.errors) std::fprintf(stderr, "streamlab-viz: error: %s\n", e.c_str());
  const bool had_errors = !session.errors.empty();

  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr, "streamlab-viz: cannot initialise GLFW (no display? headless: xvfb-run -a streamlab-viz ...)\n");
    return 3;
  }
  const bool headless = !screenshot.empty();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  if (headless) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  std::string title = "streamlab-viz  " + predicted + (measured.empty() ? "" : "  vs  " + measured);
  GLFWwindow* window = glfwCreateWindow(size.first, size.second, title.c_str(), nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "streamlab-viz: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 3;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(headless ? 0 : 1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout is computed, not remembered: screenshots are reproducible
  ImGui::StyleColorsDark();
  ImGui::GetStyle().Colors[ImGuiCol_PopupBg].w = 1.0f;  // tooltips over dense lanes must stay readable
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  int exit_code = 0;
  viz::app::ViewerOptions options;
  options.predicted_name = predicted;
  options.measured_name = measured;
  options.workload_name = workload;
  options.initial_view = view;
  options.fit_key = GLFW_KEY_F;
  viz::app::Viewer viewer(std::move(session), options);
  if (!select.empty() && !viewer.select_op_id(select)) {
    std::fprintf(stderr, "streamlab-viz: command line: --select: no op '%s' in the traces\n", select.c_str());
    if (headless) exit_code = 2;
  }

  int saved = 0;
  for (int frame = 1; !glfwWindowShouldClose(window); ++frame) {
    if (headless)
      glfwPollEvents();
    else
      glfwWaitEventsTimeout(0.25);  // idle when nothing happens; input wakes it at once
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (headless) io.MousePos = hover;  // not wherever Xvfb's pointer happens to be
    ImGui::NewFrame();
    // F12 saves what is on screen (interactive mode), e.g. for a report.
    const bool save_now = !headless && ImGui::IsKeyPressed(GLFW_KEY_F12, false);
    viewer.frame();
    ImGui::Render();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (save_now) {
      const std::string name = "streamlab-viz-" + std::to_string(++saved) + ".png";
      const auto why = viz::app::write_framebuffer_png(fb_w, fb_h, name);
      std::fprintf(stderr, "streamlab-viz: %s\n", why.empty() ? ("wrote " + name).c_str() : why.c_str());
    }
    if (headless && frame >= frames) {
      if (const auto why = viz::app::write_framebuffer_png(fb_w, fb_h, screenshot); !why.empty()) {
        std::fprintf(stderr, "streamlab-viz: %s\n", why.c_str());
        exit_code = 4;
      } else {
        std::fprintf(stderr, "streamlab-viz: wrote %s (%dx%d)\n", screenshot.c_str(), fb_w, fb_h);
        if (exit_code == 0) exit_code = had_errors ? 1 : 0;
      }
      break;
    }
    glfwSwapBuffers(window);
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}
