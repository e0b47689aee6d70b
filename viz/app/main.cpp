// streamlab-viz: the multi-trace timeline viewer. Reads trace files only; never runs anything.
//   streamlab-viz TRACE.json [TRACE.json...] [--workload W.json] [--lanes engine|stream]
//                 [--align first|none|op:ID] [--select ID] [--search TEXT] [--view START:END] [--size WxH]
//                 [--screenshot OUT.png [--frames N] [--hover X,Y]] [--timing]
// Exit codes: 0 ok; 2 bad flag or bad input (with --screenshot nothing is written); 3 no display;
// 4 the screenshot could not be written.

#include <malloc.h>

#include <cfloat>
#include <csignal>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "screenshot.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/heap_reuse.hpp"
#include "streamlab/viz/alignment.hpp"
#include "streamlab/viz/options.hpp"
#include "streamlab/viz/session.hpp"
#include "viewer.hpp"

namespace {

constexpr int kExitInput = 2, kExitDisplay = 3, kExitWrite = 4;

void glfw_error(int code, const char* description) {
  std::fprintf(stderr, "streamlab-viz: GLFW error %d: %s\n", code, description);
}

}  // namespace

int main(int argc, char** argv) {
  namespace viz = streamlab::viz;
  // A file size limit must make the screenshot's write fail (exit 4, nothing left behind), not kill us.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App cli{"streamlab-viz: timelines of two or more traces of one workload (a measurement and predictions, "
               "or predictions under several policies) on one aligned time axis"};
  std::vector<std::string> traces;
  std::string workload, screenshot, view_text, select, search, hover_text, size_text = "1600x900";
  std::string lanes_text = "engine", align_text = "first";
  int frames = 3;
  bool timing = false;
  cli.add_option("TRACES", traces,
                 "Traces (Chrome Trace JSON) of one workload; the first is the reference the others are compared to")
      ->required();
  cli.add_option("--workload", workload, "Workload JSON: enables dependency and critical-path highlighting");
  cli.add_option("--lanes", lanes_text, "Lanes per engine (copy H2D, SMs, copy D2H, host) or per stream")
      ->capture_default_str();
  cli.add_option("--align", align_text,
                 "Common origin: 'first' (each trace's first device span at 0), 'none', or 'op:ID' (that op at 0)")
      ->capture_default_str();
  cli.add_option("--select", select, "Op id selected at start (outlines it in every trace, with --workload its deps)");
  cli.add_option("--search", search, "Search text at start (op id or name; selects the first match)");
  cli.add_option("--view", view_text, "Initial visible range START:END in aligned time (e.g. 0:2ms; bare numbers are ns)");
  cli.add_option("--size", size_text, "Window size WIDTHxHEIGHT")->capture_default_str();
  cli.add_option("--screenshot", screenshot, "Render without a person, write this PNG and exit (use xvfb-run)");
  cli.add_option("--frames", frames, "Frames rendered before the screenshot is taken")->check(CLI::Range(1, 1000));
  cli.add_option("--hover", hover_text, "With --screenshot: mouse at window pixel X,Y (shows that tooltip)");
  cli.add_flag("--timing", timing, "Print CPU time of reading, preparing and the first frame, and peak memory, on stderr");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "streamlab-viz: error: command line: %s\n", e.what());
    return kExitInput;
  }

  std::optional<std::pair<streamlab::model::Nanos, streamlab::model::Nanos>> view;
  std::pair<int, int> size;
  ImVec2 hover(-FLT_MAX, -FLT_MAX);
  viz::app::ViewerOptions options;
  try {
    if (!view_text.empty()) view = viz::parse_view_range(view_text);
    size = viz::parse_size(size_text);
    if (!hover_text.empty()) {
      const auto [hx, hy] = viz::parse_point(hover_text, "--hover");
      hover = ImVec2(static_cast<float>(hx), static_cast<float>(hy));
    }
    options.lane_mode = viz::parse_lane_mode(lanes_text);
    options.alignment = viz::parse_alignment(align_text);
  } catch (const streamlab::model::InputError& e) {
    std::fprintf(stderr, "streamlab-viz: error: %s\n", e.what());
    return kExitInput;
  }
  const bool headless = !screenshot.empty();
  streamlab::model::keep_freed_memory_for_reuse();  // reading's and the first frame's temporaries (heap_reuse.hpp)

  viz::SessionFiles files;
  for (const auto& t : traces) files.traces.emplace_back(t);
  if (!workload.empty()) files.workload = workload;
  viz::Session session = viz::open_session(files);
  for (const auto& e : session.errors) std::fprintf(stderr, "streamlab-viz: error: %s\n", e.c_str());
  // A screenshot of a failure is not a result: with bad input nothing is written (an existing file stays).
  if (headless && !session.errors.empty()) return kExitInput;
  const viz::OpenTimes open_times = session.times;
  // Reading builds and drops large temporaries (the JSON documents); give their pages back to the system
  // now, or the viewer would hold them for the whole session (glibc keeps freed heap otherwise).
  malloc_trim(0);
  const double cpu_before_viewer = viz::process_cpu_seconds();
  const long rss_opened = streamlab::model::resident_mib();  // the traces as the model holds them, plus op matching

  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr, "streamlab-viz: error: cannot initialise GLFW (no display? headless: xvfb-run -a streamlab-viz ...)\n");
    return kExitDisplay;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  if (headless) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  std::string title = "streamlab-viz ";
  for (const auto& t : traces) title += " " + t;
  GLFWwindow* window = glfwCreateWindow(size.first, size.second, title.c_str(), nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "streamlab-viz: error: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return kExitDisplay;
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
  auto shutdown = [window](int code) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return code;
  };
  const double cpu_window = viz::process_cpu_seconds() - cpu_before_viewer;  // GL and window set-up

  int exit_code = 0;
  options.initial_view = view;
  options.initial_selection = select;
  options.initial_search = search;
  options.fit_key = GLFW_KEY_F;
  const streamlab::model::ResourceUsage usage_viewer_start = streamlab::model::resource_usage();
  viz::app::Viewer viewer(std::move(session), options);
  if (!viewer.alignment_problem().empty()) {
    std::fprintf(stderr, "streamlab-viz: error: command line: %s\n", viewer.alignment_problem().c_str());
    if (headless) exit_code = kExitInput;
  }
  if (!select.empty() && !viewer.select_op_id(select)) {
    std::fprintf(stderr, "streamlab-viz: error: command line: --select: no op '%s' in the traces\n", select.c_str());
    if (headless) exit_code = kExitInput;
  }
  if (exit_code != 0) return shutdown(exit_code);

  int saved = 0;
  double later_frames_cpu = 0;  // frames after the first (--timing): what a steady view costs
  for (int frame = 1; !glfwWindowShouldClose(window); ++frame) {
    const double frame_start = viz::process_cpu_seconds();
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
    if (frame == 1 && timing) {
      glFinish();
      const streamlab::model::ResourceUsage first_frame = streamlab::model::resource_usage() - usage_viewer_start;
      const streamlab::model::ResourceUsage total = open_times.read + open_times.prepare + first_frame;
      const auto& st = viewer.setup_times();
      std::fprintf(stderr,
                   "streamlab-viz: timing: read %.3f s, prepare %.3f s, first frame %.3f s (viewer set-up and one "
                   "frame: summary %.3f s, lanes %.3f s, op table sort %.3f s), total to first frame %.3f s CPU "
                   "(%.3f user + %.3f sys, %ld minor faults) (window and GL set-up %.3f s not counted); peak RSS "
                   "%ld MiB; resident after opening %ld MiB, after the first frame %ld MiB\n",
                   open_times.read.cpu_s(), open_times.prepare.cpu_s(), first_frame.cpu_s(), st.summary.cpu_s(),
                   st.lanes.cpu_s(), st.table.cpu_s(), total.cpu_s(), total.user_s, total.sys_s, total.minor_faults,
                   cpu_window, first_frame.peak_rss_mib, rss_opened, streamlab::model::resident_mib());
      // Each step's user and system time and faults: which step grew, and whether in computing or in
      // touching fresh memory.
      const auto step = [](const char* name, const streamlab::model::ResourceUsage& u) {
        std::fprintf(stderr, " %s %.3f user + %.3f sys, %ld faults;", name, u.user_s, u.sys_s, u.minor_faults);
      };
      std::fprintf(stderr, "streamlab-viz: timing: steps:");
      step("read", open_times.read);
      step("prepare", open_times.prepare);
      step("summary", st.summary);
      step("lanes", st.lanes);
      step("op table sort", st.table);
      step("rest of the first frame", first_frame - st.summary - st.lanes - st.table);
      std::fprintf(stderr, "\n");
    }
    if (save_now) {
      const std::string name = "streamlab-viz-" + std::to_string(++saved) + ".png";
      const auto why = viz::app::write_framebuffer_png(fb_w, fb_h, name);
      std::fprintf(stderr, "streamlab-viz: %s\n", why.empty() ? ("wrote " + name).c_str() : ("error: " + why).c_str());
    }
    if (frame > 1) {
      glFinish();
      later_frames_cpu += viz::process_cpu_seconds() - frame_start;
    }
    if (headless && frame >= frames) {
      if (timing && frame > 1)
        std::fprintf(stderr, "streamlab-viz: timing: frames 2..%d: %.3f ms CPU per frame (UI, folding, GL submit)\n",
                     frame, 1e3 * later_frames_cpu / (frame - 1));
      if (const auto why = viz::app::write_framebuffer_png(fb_w, fb_h, screenshot); !why.empty()) {
        std::fprintf(stderr, "streamlab-viz: error: %s\n", why.c_str());
        exit_code = kExitWrite;
      } else {
        std::fprintf(stderr, "streamlab-viz: wrote %s (%dx%d)\n", screenshot.c_str(), fb_w, fb_h);
      }
      break;
    }
    glfwSwapBuffers(window);
  }

  return shutdown(exit_code);
}
