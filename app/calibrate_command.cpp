// `ciosim calibrate [-n P] [--out platforms/NAME.toml] [--name NAME] [--work-dir DIR] [--quick]
//                  [--runs N] [--max-spread F]
//                  [--measurements FILE] [--mpirun PATH] [--hostfile FILE] [--mpirun-arg ARG]...`
//
// Starts `ciosim-mpi calibrate` under the launcher (validate/mpi_calibrate.hpp), fits a platform from its
// measurements (config/calibration.hpp) and writes it, every value with a "_source" saying how it was
// measured, plus the platform's own MPI and I/O network profiles ([network.profiles.NAME]).
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "app/cleanup.hpp"
#include "app/commands.hpp"
#include "app/machine.hpp"
#include "app/mpi_launch.hpp"
#include "app/staged_file.hpp"
#include "config/calibration.hpp"
#include "config/platform_file.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

std::string today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

/// Open MPI's eager limit of the transport the ping-pong used, from ompi_info next to the launcher.
void eager_from_ompi_info(const Launcher& l, bool one_host, const fs::path& tmp,
                          config::CalibrationContext& ctx) {
  if (l.flavor != MpiFlavor::OpenMpi) return;
  const fs::path info = fs::path(l.path).parent_path() / "ompi_info";
  const std::string btl = one_host ? "vader" : "tcp";
  const LaunchResult r =
      run_logged({info.string(), "--parsable", "--param", "btl", btl, "--level", "9"}, tmp);
  const std::string key = "mca:btl:" + btl + ":param:btl_" + btl + "_eager_limit:value:";
  const auto at = r.output.find(key);
  if (r.exit_code != 0 || at == std::string::npos) return;
  ctx.eager_threshold = std::atoll(r.output.c_str() + at + key.size());
  ctx.eager_source = "Open MPI btl_" + btl + "_eager_limit (ompi_info --param btl " + btl + " --level 9)";
}

}  // namespace

int calibrate_command(const CalibrateOptions& opt) {
  if (opt.ranks < 2)
    throw config::ConfigError("-n must be >= 2 (the ping-pong needs two ranks), got " +
                              std::to_string(opt.ranks));
  if (opt.runs < 1 || opt.runs > 100)
    throw config::ConfigError("--runs must be 1 to 100 (independent measurement jobs), got " +
                              std::to_string(opt.runs));
  if (!(opt.max_spread >= 1))
    throw config::ConfigError("--max-spread must be >= 1 (largest / smallest run), got " +
                              std::to_string(opt.max_spread));
  if (!(opt.timeout_s >= 0) || !std::isfinite(opt.timeout_s))
    throw config::ConfigError("--timeout must be a number of seconds >= 0 (0: no limit), got " +
                              config::format_double(opt.timeout_s));
  const fs::path out = opt.out.empty() ? fs::path("platforms/local.toml") : fs::path(opt.out);
  if (out.extension() != ".toml")
    throw config::ConfigError("--out " + out.string() + " must end in .toml (a platform file)");
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    throw config::ConfigError("--out " + out.string() + ": directory " + parent.string() + " does not exist");
  if (fs::is_directory(out, ec))
    throw config::ConfigError("--out " + out.string() + " is a directory; give a file path");
  const std::string name = opt.name.empty() ? out.stem().string() : opt.name;
  if (name.empty() || name.find_first_of(" \t\n\"'/") != std::string::npos)
    throw config::ConfigError("platform name " + config::quote(name) +
                              " is not valid: use letters, digits, '.', '_' and '-'");
  if (!opt.work_dir.empty() && !fs::is_directory(opt.work_dir, ec))
    throw config::ConfigError("--work-dir " + opt.work_dir + " is not a directory");
  // A signal removes the temporaries below and ends the MPI job (app/cleanup.hpp). Both outputs are
  // checked before anything is measured (a FIFO given as --measurements used to block calibrate forever
  // after the measurements), and each replaces its target only when whole.
  install_cleanup_handlers();
  StagedFile platform_out("--out", out);
  std::optional<StagedFile> measurements_out;
  if (!opt.measurements.empty()) measurements_out.emplace("--measurements", opt.measurements);
  const Launcher launcher = find_launcher(opt.mpi);
  const fs::path program = mpi_binary();

  std::string templ = (parent / ("." + out.filename().string() + ".calibrate-XXXXXX")).string();
  if (!::mkdtemp(templ.data()))
    throw std::runtime_error("cannot create a temporary directory in " + parent.string());
  const fs::path tmp = fs::absolute(templ);
  struct Cleanup {
    fs::path dir;
    int slot;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
      forget_temporary(slot);
    }
  } cleanup{tmp, remember_temporary_tree(tmp.string())};

  std::vector<nlohmann::json> runs;
  const double load_before = load_average();
  for (int k = 0; k < opt.runs; ++k) {
    const fs::path file = tmp / ("measurements-" + std::to_string(k) + ".json");
    std::vector<std::string> args{program.string(), "calibrate",
                                  "--out",          file.string(),
                                  "--work-dir",     opt.work_dir.empty() ? tmp.string() : opt.work_dir};
    if (opt.quick) args.push_back("--quick");
    const auto argv = launch_command(launcher, opt.ranks, opt.mpi, {}, args);
    if (!opt.quiet)
      std::cerr << "ciosim: measuring with " << opt.ranks << " ranks"
                << (opt.runs > 1 ? " (run " + std::to_string(k + 1) + " of " + std::to_string(opt.runs) + ")"
                                 : "")
                << ": " << shell_join(argv) << std::endl;
    const LaunchResult r = run_logged(argv, tmp / "mpi.log", opt.timeout_s);
    if (r.timed_out) throw_timed_out("the measurements", opt.timeout_s);
    if (r.exit_code != 0 || !fs::exists(file))
      throw std::runtime_error("the MPI measurements failed (exit " + std::to_string(r.exit_code) +
                               "): " + job_error(r.output, 4));
    runs.push_back(nlohmann::json::parse(slurp(file)));
    // The library's own collective write, under ROMIO (a launch of its own: the MPI-IO component is
    // chosen when MPI starts). Without it the platform has no nodes.romio_piece_s, which only
    // run.cpu_charge = "library" needs.
    const fs::path lib = tmp / ("library-" + std::to_string(k) + ".json");
    std::vector<std::string> lib_args{program.string(),
                                      "calibrate",
                                      "--library",
                                      "--out",
                                      lib.string(),
                                      "--work-dir",
                                      opt.work_dir.empty() ? tmp.string() : opt.work_dir};
    if (opt.quick) lib_args.push_back("--quick");
    const LaunchResult lr =
        run_logged(launch_command(launcher, opt.ranks, opt.mpi, romio_args(launcher), lib_args),
                   tmp / "lib.log", opt.timeout_s);
    if (lr.timed_out) throw_timed_out("the MPI library's own MPI_File_write_all", opt.timeout_s);
    if (lr.exit_code == 0 && fs::exists(lib))
      runs.back()["library_write_all"] = nlohmann::json::parse(slurp(lib)).at("library_write_all");
    else if (!opt.quiet)
      std::cerr << "ciosim: the MPI library's own MPI_File_write_all under ROMIO could not be measured (exit "
                << lr.exit_code << "): the platform gets no nodes.romio_piece_s; " << job_error(lr.output, 2)
                << std::endl;
  }
  // The load the measurements ran under: with other work on the machine they measure a share of it.
  const std::string load = load_note(load_before, load_average(), "the measurements");
  if (!opt.quiet && load.find("busy") != std::string::npos)
    std::cerr << "ciosim: warning: " << load << std::endl;
  const nlohmann::json m = opt.runs == 1 ? runs.front() : config::merge_measurements(runs);
  const std::string raw = m.dump(2) + "\n";

  config::CalibrationContext ctx;
  ctx.name = name;
  ctx.machine = machine_description();
  ctx.date = today();
  ctx.command = "ciosim calibrate -n " + std::to_string(opt.ranks) + (opt.quick ? " --quick" : "") +
                (opt.runs > 1 ? " --runs " + std::to_string(opt.runs) + " (medians of the runs)" : "") +
                " (" + (launcher.version.empty() ? launcher.path : launcher.version) + ")";
  ctx.cores = static_cast<int>(std::thread::hardware_concurrency());
  const auto hosts = m.at("hosts").get<std::vector<std::string>>();
  eager_from_ompi_info(launcher, hosts.size() >= 2 && hosts[0] == hosts[1], tmp / "ompi_info.log", ctx);
  config::PlatformFile pf = config::platform_from_measurements(m, ctx);
  pf.spec.description += "; " + load;
  if (opt.runs > 1) {
    // Each run fitted on its own: how far the runs disagree on the terms predictions depend on most.
    std::vector<config::PlatformFile> each;
    for (const auto& run : runs) each.push_back(config::platform_from_measurements(run, ctx));
    config::add_run_intervals(pf, each);
    std::string worst;
    double worst_spread = 1;
    for (const config::TermSpread& t : config::term_spreads(each)) {
      std::ostringstream range;
      range << t.term << " over " << opt.runs << " runs:";
      for (double v : t.values) range << " " << v * t.scale;
      range << " " << t.unit << " (largest / smallest " << t.spread() << ")";
      if (!opt.quiet) std::cerr << "ciosim: " << range.str() << std::endl;
      pf.spec.description += "; " + range.str();
      if (t.spread() > worst_spread) worst_spread = t.spread(), worst = range.str();
    }
    if (worst_spread > opt.max_spread)
      throw config::ConfigError("the calibration runs disagree too much to fit one platform: " + worst +
                                " exceeds --max-spread " + std::to_string(opt.max_spread) +
                                "; rerun on a quieter machine, or give a larger --max-spread to accept it");
  }

  std::string text =
      "# Platform measured on this machine by `" + ctx.command + "` on " + ctx.date +
      ".\n# Every value's \"_source\" says how it was measured. Rerun calibrate to refresh it.\n" +
      config::platform_toml(pf, "");
  (void)config::parse_platform(text, out.string());  // what we write must load
  platform_out.write(text);
  if (measurements_out) {
    measurements_out->write(raw);
    measurements_out->commit();
  }
  platform_out.commit();  // same directory: atomic
  const auto& s = pf.spec;
  const NetworkProfile& mpi = s.networks.front();
  std::cout << "platform " << name << " -> " << out.string() << "\n"
            << "  MPI one-way latency   "
            << (mpi.send_overhead_s + mpi.recv_overhead_s + 2 * mpi.link_latency_s) * 1e6 << " us\n"
            << "  MPI bandwidth         " << mpi.link_bandwidth_Bps / 1e6 << " MB/s\n"
            << "  memcpy                " << s.memcpy_Bps / 1e6 << " MB/s\n"
            << "  pack, per tuple       " << s.tuple_cost_s * 1e9 << " ns\n"
            << "  file write (all)      " << s.pvfs.disk_write_Bps / 1e6 << " MB/s\n"
            << "  file read             " << s.pvfs.disk_read_Bps / 1e6 << " MB/s\n"
            << "  per-request overhead  " << s.pvfs.request_overhead_s * 1e6 << " us\n"
            << "  per-region overhead   " << s.pvfs.region_overhead_s * 1e9 << " ns\n"
            << std::flush;
  return 0;
}

}  // namespace ciosim::app
