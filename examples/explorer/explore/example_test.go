package explore_test

import (
	"fmt"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
)

// Missions come from YAML; every problem names its line.
func ExampleParseMissions() {
	_, err := mission.ParseMissions("missions.yaml", []byte(`missions:
  - thread_id: checkout
    prompt: Buy a plan
    team: elite
  - prompt: No id
`))
	fmt.Println(err)
	// Output:
	// explore: missions missions.yaml:
	//   line 2: mission 1: team "elite": want standard or advanced
	//   line 5: mission 2: thread_id is required
}

// The exit code follows the --fail-on policy.
func ExampleExitCode() {
	res := report.Result{Missions: []report.MissionResult{{Bugs: []findings.Bug{{Kind: "http_5xx", New: false}}}}}
	fmt.Println(explore.ExitCode(res, nil, explore.FailOnNew), explore.ExitCode(res, nil, explore.FailOnAny))
	// Output: 0 1
}

// Mission prompts pick their team.
func ExampleRouteTeam() {
	fmt.Println(mission.RouteTeam("Explore the settings"), mission.RouteTeam("Keyboard-only accessibility pass"))
	// Output: standard advanced
}
