package explore

import (
	"context"
	"encoding/json"

	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/tools"
)

// observer is where the mission's events go: Config.Observer, and the
// progress line on Config.Progress (an observe.Console without detail).
func (mr *missionRun) observer() observe.Observer {
	var progress observe.Observer
	if mr.cfg.progress != nil {
		progress = mr.cfg.progress
	}
	return observe.Multi(progress, mr.cfg.Observer)
}

// emit sends ev, placed in the mission, to the observers.
func (mr *missionRun) emit(ev observe.Event) {
	ev.Goal, ev.GoalIndex, ev.GoalTotal = mr.m.ThreadID, mr.index+1, mr.total
	observe.Emit(mr.observer(), ev)
}

func (mr *missionRun) emitGoalStart() {
	mr.emit(observe.Event{Kind: observe.GoalStart, Text: mr.m.Prompt, Budget: mr.m.Budget, URL: mr.m.StartURL})
}

func (mr *missionRun) emitGoalComplete(r report.MissionResult) {
	mr.emit(observe.Event{Kind: observe.GoalComplete, Steps: r.Steps, Bugs: len(r.Bugs), Error: r.Err, Budget: mr.budget})
}

func (mr *missionRun) emitBug(b findings.Bug) {
	mr.emit(observe.Event{Kind: observe.BugFound, Step: b.Step, Persona: b.Persona, URL: b.URL,
		Bug: &observe.Bug{ID: b.ID, Title: b.Title, Kind: b.Kind, URL: urlx.PathQuery(b.URL), Persona: b.Persona}})
}

// observedTool reports every call of a persona's tool to the observers:
// tool_call before, tool_result after, secret values replaced by their
// references (a model may type the password it was given).
type observedTool struct {
	tools.Tool
	mr      *missionRun
	persona string
}

func (o observedTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	sec := o.mr.secrets
	o.mr.emit(observe.Event{Kind: observe.ToolCall, Persona: o.persona, Tool: o.Name(), Args: sec.Redact(string(args))})
	out, err := o.Tool.Call(ctx, args)
	ev := observe.Event{Kind: observe.ToolResult, Persona: o.persona, Tool: o.Name(), Result: sec.Redact(out), OK: err == nil}
	if err != nil {
		ev.Error = sec.Redact(err.Error())
	}
	o.mr.emit(ev)
	return out, err
}
