// SPDX-License-Identifier: GPL-2.0
/*
 * zsng_experiment: runs the core's deterministic workloads in userspace and
 * prints the same lines as the kernel's debugfs files.
 *   zsng_experiment scenarios
 *   zsng_experiment experiment PATTERN POLICY SEED ZSPAGES_PER_CLASS
 *   zsng_experiment policies     the policy names, one a line, in ABI order
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "zsng_core.h"
#include "zsng_experiment.h"

static void emit(void *, const char *line)
{
	printf("%s\n", line);
}

int main(int argc, char **argv)
{
	int ret;

	if (argc == 2 && !strcmp(argv[1], "policies")) {
		/* From the core's one name table, for the scripts. */
		for (int p = 0; p < ZSNG_POLICY_NR; p++)
			printf("%s\n", zsng_core_policy_name(p));
		return 0;
	} else if (argc == 2 && !strcmp(argv[1], "scenarios")) {
		ret = zsng_scenarios_run(emit, nullptr);
	} else if (argc == 6 && !strcmp(argv[1], "experiment")) {
		int policy = zsng_core_policy_from_name(argv[3]);

		if (policy < 0) {
			fprintf(stderr, "unknown policy %s\n", argv[3]);
			return 2;
		}
		ret = zsng_experiment_run(argv[2], policy,
					  strtoul(argv[4], nullptr, 0),
					  strtoul(argv[5], nullptr, 0), emit,
					  nullptr);
	} else {
		fprintf(stderr,
			"usage: %s scenarios | experiment PATTERN POLICY SEED ZSPAGES | policies\n",
			argv[0]);
		return 2;
	}
	printf("result=%d\n", ret);
	return ret ? 1 : 0;
}
