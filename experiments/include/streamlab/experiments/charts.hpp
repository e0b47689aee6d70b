#pragma once
/// \file charts.hpp
/// Experiment charts are drawn by `scripts/plot/experiment_charts.py` (matplotlib) from the result CSVs:
/// `<dir>/<E>.svg`, `.pdf` and `.png`. This runs that script as a child process (no shell): the charts
/// are an optional output, so a missing Python or matplotlib is reported, not fatal, to the callers that
/// write results (`streamlab experiment render` makes it an error).
///
/// Where things are found (first hit wins):
///   script:      $STREAMLAB_PLOT_DIR, `<exe>/../share/streamlab/plot` (installed), the source tree's
///                `scripts/plot` (build tree);
///   interpreter: $STREAMLAB_PYTHON, `/usr/bin/python3` (Debian's, which has python3-matplotlib),
///                `python3` on PATH.

#include <filesystem>
#include <string>
#include <vector>

namespace streamlab::experiments {

enum class ChartsOutcome : std::uint8_t {
  drawn,          ///< every chart written
  no_script,      ///< experiment_charts.py not found
  no_python,      ///< no interpreter could be started
  no_matplotlib,  ///< the interpreter has no matplotlib (script exit 3)
  bad_input,      ///< a result CSV/JSON the script cannot read (script exit 2; it printed why)
  failed,         ///< the script failed otherwise
};

struct ChartsRun {
  ChartsOutcome outcome = ChartsOutcome::drawn;
  std::string detail;  ///< one line saying what went wrong and how to fix it ("" when drawn)
};

/// The folder holding experiment_charts.py and streamlab_style.py; empty when none is found.
[[nodiscard]] std::filesystem::path plot_script_dir();

/// Draws the charts of the results in `dir` (only the experiments in `only` when it is not empty).
/// The script prints one line per chart to stdout and errors to stderr.
[[nodiscard]] ChartsRun draw_charts(const std::filesystem::path& dir, const std::vector<std::string>& only = {});

/// Runs `script` (a file of plot_script_dir(), e.g. "sweep_charts.py") with `args`, the same way
/// draw_charts runs experiment_charts.py; `quiet` sends the script's stdout to /dev/null.
[[nodiscard]] ChartsRun run_chart_script(const std::string& script, const std::vector<std::string>& args,
                                         bool quiet = false);

}  // namespace streamlab::experiments
