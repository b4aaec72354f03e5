package explore

import "github.com/agentgraph/agentgraph/examples/explorer/report"

// coverage reports the model at the end of a mission.
func (sw *sweep) coverage(stopped string) *report.Coverage {
	if sw == nil {
		return nil
	}
	return &report.Coverage{Stats: sw.model.Stats(), Stopped: stopped, Untried: sw.model.Untried(50), Graph: sw.model.Mermaid()}
}
