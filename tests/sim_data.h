/*
 * sim_data.h - the recorded real-simulator data of ../shared/data/sim
 * (Accel-Sim synthetic, MacSim vectormultadd) for the test programs that
 * read their traces: where they are, whether they are there, and their
 * trace folders unpacked into the program's temporary folder (tmpdir.h).
 * Header-only, as tmpdir.h, because each test file is its own program.
 */
#ifndef KS_TEST_SIM_DATA_H
#define KS_TEST_SIM_DATA_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tmpdir.h"

#define SIM KS_SHARED_DATA "/sim"
#define SYNTH SIM "/accelsim-synth"
#define MACSIM SIM "/macsim-vectormultadd"

/* the unpacked trace folders (sim_data_setup) */
static char synth_traces[4200], macsim_traces[4200];

static inline bool have_data(void) { return access(SYNTH "/per_launch.csv", R_OK) == 0; }

/* A cmocka group setup: the temporary folder, and where the data are there
 * the synthetic traces (synth_traces) and MacSim's kernels linked as its
 * kernel_config.txt names them (macsim_traces) unpacked into it. */
static inline int sim_data_setup(const char *prefix)
{
    if (tmpdir_setup(prefix) != 0)
        return -1;
    if (!have_data())
        return 0;
    char cmd[9000];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && tar -xJf '" SYNTH "/ksample-synth-traces.tar.xz' && mkdir m && cd m && "
             "tar -xJf '" MACSIM "/macsim-vectormultadd-4096-16384-traces.tar.xz' && "
             "mkdir tr && cp '" MACSIM "/kernel_config.txt' tr/ && "
             "tail -n +2 '" MACSIM "/composition.csv' | while IFS=, read l k s src; do "
             "ln -s \"$PWD/$src\" tr/Kernel$l; done",
             tmpdir);
    if (system(cmd) != 0)
        return -1;
    snprintf(synth_traces, sizeof synth_traces, "%s/syn", tmpdir);
    snprintf(macsim_traces, sizeof macsim_traces, "%s/m/tr", tmpdir);
    return 0;
}

#endif
