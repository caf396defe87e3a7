// What this machine is and how busy it is: the description `ciosim calibrate` writes into a platform, and
// the load `ciosim validate` records around its real runs.
#pragma once

#include <string>

namespace ciosim::app {

/// "2 x AMD EPYC 7B13, 23.5 GiB, Linux 6.1.0": hardware threads, CPU model, memory, kernel.
std::string machine_description();
/// The hardware part of a machine description: "2 x AMD EPYC 7B13, 23.5 GiB" (what calibration depends
/// on; the kernel release may change without changing the machine).
std::string machine_hardware(const std::string& description);
/// The 1-minute load average (/proc/loadavg); negative when it cannot be read.
double load_average();
/// "load average (1 min) B before and A after DURING, on N hardware threads", marked busy when either
/// exceeds half the threads: measured times then include other work.
std::string load_note(double before, double after, const std::string& during);

}  // namespace ciosim::app
