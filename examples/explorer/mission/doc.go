// Package mission is what the explorer is asked to do: a Mission (a
// prompt, a team, a start page, a budget, a thread id that names its
// report directory), missions files in YAML (LoadMissions, ParseMissions:
// every problem names its line), the goal templates that build missions
// from parameters (CreateTests, CompareVariants, SimulateAllUsers,
// FullSeed; {template: NAME, params: {…}} in a missions file), the
// built-in teams by name (Team, RouteTeam picks one from a prompt) and the
// shards a batch is split into (Shard, --shard i/n).
package mission
