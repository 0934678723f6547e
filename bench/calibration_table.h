#pragma once
// hitcost-bench --calibrate: the calibration table of this host (floor/host_calibration.h), with
// PHP's own functions on the same bytes beside it when php-cli is installed (php_beside.h).
namespace hitcost::bench {

// argv as hitcost-bench got it; returns the exit code (0, 1 could not calibrate, 2 usage).
int run_calibration(int argc, char** argv);

}  // namespace hitcost::bench
