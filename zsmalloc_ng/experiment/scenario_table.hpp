// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-computed compaction scenarios: one table, run by the kernel's
 * and userspace's scenario runner (scenarios.cpp, debugfs "scenarios" and
 * `zsng_experiment scenarios`) and checked against counts worked out by
 * hand per policy in tests/test_compaction.cpp.
 *
 * Each scenario fills zspages of the class for a kScenarioRequest-byte
 * request (class 1024: one page, 4 objects per zspage) and frees the
 * objects marked 'x' in @layout, one character per object in allocation
 * order ('.' keeps); then that class alone is compacted.
 */
#ifndef ZSNG_SCENARIO_TABLE_HPP
#define ZSNG_SCENARIO_TABLE_HPP

namespace zsng
{
struct Scenario {
	const char *name;
	const char *layout;
};

constexpr unsigned long kScenarioRequest = 1016;
/* The runner's arrays hold this many objects. */
constexpr unsigned int kScenarioMaxObjects = 64;

constexpr Scenario kScenarios[] = {
	/* one object in each of three zspages */
	{ "three-singles", "xxx.xxx.xxx." },
	/* 3,1 in use: one move frees a zspage */
	{ "one-move", "...xxx.x" },
	/* 1,1,1,1: four quarter-full zspages */
	{ "four-quarters", ".xxx.xxx.xxx.xxx" },
	/* 3,2,1 in use */
	{ "three-two-one", "...x..xx.xxx" },
	/* 2,2,2,2,1 */
	{ "twos", "..xx..xx..xx..xx.xxx" },
	/* nothing to gain: 4,4,3 */
	{ "no-gain", "...........x" },
};
constexpr unsigned int kNrScenarios =
	sizeof(kScenarios) / sizeof(kScenarios[0]);

} // namespace zsng

#endif
