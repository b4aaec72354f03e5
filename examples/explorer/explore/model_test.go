package explore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
	"github.com/agentgraph/agentgraph/llm"
)

// fakeModels builds the team's models the way main does (llm.Factory, the
// real langchaingo OpenAI client) against the fake chat-completions server.
func fakeModels(t *testing.T, srv *llmfake.Server) *Models {
	t.Helper()
	f := &llm.Factory{Detection: llm.Detection{Provider: llm.OpenAI, APIKey: "x", BaseURL: srv.URL(), Source: llm.EnvOpenAIKey},
		Env: llm.MapEnv(nil), Meter: llm.NewMeter(nil)}
	ms, err := ModelsFromFactory(context.Background(), f)
	require.NoError(t, err)
	return ms
}

// counter counts calls of one kind in a handler.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) next() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n - 1
}

const (
	personaSummary = "PERSONA-SUMMARY: signed in and sorted projects by budget; the server answered HTTP 500."
	modelWriteup   = "MODEL-WRITEUP: Sorting projects by budget crashes the handler (HTTP 500, BUG-5XX-SORT). Severity: high."
)

// sortBugScript is the scripted conversation: the supervisor chooses
// power_user, the persona signs in, sorts projects by budget (the demo app's
// seeded 5xx) and takes a snapshot, then stops; the supervisor chooses
// FINISH; the reporter writes.
func sortBugScript() llmfake.Handler {
	var routes counter
	personaSteps := []llmfake.Reply{
		llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/signin"}}`),
		llmfake.CallTool("execute_browser_command", `{"intent":{"action":"fill","target":"[data-testid=\"signin-email\"]","value":"`+demoapp.DemoEmail+`"}}`),
		llmfake.CallTool("execute_browser_command", `{"intent":{"action":"fill","target":"[data-testid=\"signin-password\"]","value":"`+demoapp.DemoPassword+`"}}`),
		llmfake.CallTool("execute_browser_command", `{"intent":{"action":"click","target":"[data-testid=\"signin-submit\"]"}}`),
		llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/projects?sort=budget"}}`),
		llmfake.CallTool("get_dom_snapshot", `{}`),
	}
	return func(r llmfake.Request) llmfake.Reply {
		switch {
		case r.HasTool(llm.ChooseTool):
			if routes.next() == 0 {
				return llmfake.CallTool(llm.ChooseTool, `{"choice":"power_user","reason":"sorting is untested"}`)
			}
			return llmfake.CallTool(llm.ChooseTool, `{"choice":"FINISH","reason":"the sort crash is found"}`)
		case r.HasTool("execute_browser_command"):
			if k := len(r.ToolResults()); k < len(personaSteps) {
				return personaSteps[k]
			}
			return llmfake.Text(personaSummary)
		default:
			return llmfake.Text(modelWriteup)
		}
	}
}

// TestModelDrivenRun: the supervisor routes by the model's choose call, the
// persona model drives the real Chromium through the browser tools, the
// seeded 5xx is found with its evidence, the reporter model writes
// test_report.md and usage is counted in summary.json.
func TestModelDrivenRun(t *testing.T) {
	srv := llmfake.New(sortBugScript())
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var rec observe.Recorder
	events, err := observe.CreateJSONL(filepath.Join(t.TempDir(), "events.jsonl"))
	require.NoError(t, err)
	var progress bytes.Buffer
	res, err := Run(ctx, onDemo(t, Config{Budget: 30, TurnSteps: 8, ReportDir: dir, Browser: testBrowser, Models: fakeModels(t, srv),
		Observer: observe.Multi(&rec, events), Progress: &progress}))
	require.NoError(t, err)
	require.NoError(t, events.Close())
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	mdir := filepath.Join(dir, "explore")

	// The observers saw the run: goal start, the persona's tool calls and
	// results in pairs, its steps, the bug, its summary, goal complete.
	evs := rec.Events()
	require.NotEmpty(t, evs)
	assert.Equal(t, observe.GoalStart, evs[0].Kind)
	assert.Equal(t, mission.DefaultMission().Prompt, evs[0].Text)
	last := evs[len(evs)-1]
	assert.Equal(t, observe.GoalComplete, last.Kind)
	assert.Equal(t, m.Steps, last.Steps)
	assert.Equal(t, len(m.Bugs), last.Bugs)
	calls, toolResults := rec.Of(observe.ToolCall), rec.Of(observe.ToolResult)
	require.Len(t, calls, 6)
	require.Len(t, toolResults, 6)
	assert.Equal(t, "execute_browser_command", calls[4].Tool)
	assert.Contains(t, calls[4].Args, "/projects?sort=budget")
	assert.Equal(t, "power_user", calls[4].Persona)
	assert.Contains(t, toolResults[4].Result+toolResults[4].Error, "Recorded as bugs")
	assert.Len(t, rec.Of(observe.StepStart), 5, "each execute_browser_command")
	assert.Len(t, rec.Of(observe.Step), m.Steps, "a step event per browser step")
	texts := rec.Of(observe.AgentText)
	require.Len(t, texts, 1)
	assert.Equal(t, personaSummary, texts[0].Text)
	var bugEv *observe.Event
	for _, ev := range rec.Of(observe.BugFound) {
		if strings.Contains(ev.Bug.URL, "/projects?sort=budget") {
			bugEv = &ev
		}
	}
	require.NotNil(t, bugEv, "bug_found for the sort crash")
	assert.Equal(t, "power_user", bugEv.Bug.Persona)
	for _, ev := range evs {
		assert.Equal(t, "explore", ev.Goal)
		assert.False(t, ev.Time.IsZero())
	}
	// the JSON-lines log holds the same events
	f, err := os.Open(events.Path())
	require.NoError(t, err)
	logged, err := observe.ReadJSONL(f)
	f.Close()
	require.NoError(t, err)
	assert.Len(t, logged, len(evs))
	// the progress line is the console observer's
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	assert.Contains(t, lines, observe.ProgressLine(rec.Of(observe.Step)[0]))
	assert.Contains(t, progress.String(), "[1/1 explore] step 6/30 power_user     bugs ")

	// Routing came from the model's tool calls.
	reqs := srv.Requests()
	var routes, personaCalls, reports []llmfake.Request
	for _, r := range reqs {
		switch {
		case r.HasTool(llm.ChooseTool):
			routes = append(routes, r)
		case r.HasTool("execute_browser_command"):
			personaCalls = append(personaCalls, r)
		default:
			reports = append(reports, r)
		}
	}
	require.Len(t, routes, 2, "power_user, then FINISH")
	assert.Contains(t, string(routes[0].ToolChoice), llm.ChooseTool, "the choice is forced through the choose function")
	assert.Contains(t, routes[0].Text(), "Mission: "+mission.DefaultMission().Prompt)
	assert.Contains(t, routes[1].Text(), "power_user: 6 steps", "the second brief carries the persona's turn")
	for _, want := range []string{"Bugs so far:", "Server error on /projects", "Explored paths", "/projects?sort=budget", "Memory of earlier sessions", "Team:\n- new_user"} {
		assert.Contains(t, routes[1].Text(), want, "the routing brief")
	}
	for _, r := range reqs {
		t.Logf("request: %d tools, %d messages, %d bytes", len(r.Tools), len(r.Messages), len(r.Raw))
	}
	trace, err := os.ReadFile(filepath.Join(mdir, "traces.log"))
	require.NoError(t, err)
	assert.Contains(t, string(trace), "next=power_user by=model")
	assert.Contains(t, string(trace), "next=FINISH by=model")

	// The persona model had the browser and memory tools and the persona's prompt.
	require.Len(t, personaCalls, 7, "six tool calls, then the summary")
	assert.ElementsMatch(t, []string{"execute_browser_command", "get_dom_snapshot", "capture_screenshot", "capture_bug_screenshot", "analyze_visual_state", "recall_past_findings", "record_observation"},
		personaCalls[0].ToolNames())
	assert.Contains(t, personaCalls[0].System(), "You are power_user")
	results := personaCalls[6].ToolResults()
	require.Len(t, results, 6)
	assert.Contains(t, results[4].Text(), "Recorded as bugs", "the tool result tells the model about the bug")
	assert.Contains(t, results[4].Text(), "Page snapshot:")

	// The actions ran in Chromium and are on the mission tape as the persona's.
	tape, _, err := browser.ReadTapeFile(filepath.Join(mdir, "action_tape.jsonl"))
	require.NoError(t, err)
	var mine []browser.Entry
	for _, e := range tape {
		if e.User == "power_user" {
			mine = append(mine, e)
		}
	}
	require.Len(t, mine, 6)
	assert.Equal(t, browser.ActNavigate, mine[4].Action)
	assert.Contains(t, mine[4].URL, "/projects?sort=budget")
	assert.Equal(t, browser.ActSnapshot, mine[5].Action)
	assert.NotContains(t, mine[3].URL, "/signin", "the click signed in")
	assert.Equal(t, 7, m.Steps, "the start page and the persona's six actions")
	assert.Contains(t, m.Explored, "/projects?sort=budget", "the model's pages join the coverage")

	// The seeded bug, with its evidence.
	require.NotNil(t, res.Demo)
	assert.Contains(t, res.Demo.Found, string(demoapp.Bug5xxSort))
	var sortBug *findings.Bug
	for i, b := range m.Bugs {
		if b.Kind == string(browser.FindServerError) && strings.Contains(b.Evidence, string(demoapp.Bug5xxSort)) {
			sortBug = &m.Bugs[i]
		}
	}
	require.NotNil(t, sortBug, "bugs: %+v", m.Bugs)
	assert.Equal(t, "power_user", sortBug.Persona)
	assert.Equal(t, mine[4].Seq, sortBug.TapeSeq)
	assert.FileExists(t, filepath.Join(mdir, sortBug.Spec))

	// The report is the model's, over the facts it was given.
	require.Len(t, reports, 1)
	assert.Contains(t, reports[0].Text(), string(demoapp.Bug5xxSort), "the reporter saw the evidence")
	assert.Contains(t, reports[0].Text(), "navigate /projects?sort=budget", "and the reproduction steps")
	md, err := os.ReadFile(filepath.Join(mdir, "test_report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), modelWriteup)
	assert.Contains(t, string(md), "| "+sortBug.ID+" |", "the factual table stays")

	// Usage and cost, per mission and per batch.
	var sum struct {
		Usage *report.Usage `json:"usage"`
	}
	raw, err := os.ReadFile(filepath.Join(mdir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	require.NotNil(t, sum.Usage)
	assert.Equal(t, len(reqs), sum.Usage.Calls)
	assert.Equal(t, 2, sum.Usage.ByRole["supervisor"].Calls)
	assert.Equal(t, 7, sum.Usage.ByRole["persona"].Calls)
	assert.Equal(t, 1, sum.Usage.ByRole["reporter"].Calls)
	assert.Positive(t, sum.Usage.InputTokens)
	assert.Positive(t, sum.Usage.CostUSD, "gpt-4o-mini is priced")
	require.NotNil(t, res.Usage)
	assert.Equal(t, len(reqs), res.Usage.Calls)
}

// garbageScript answers every role badly: choose with broken JSON, then an
// unknown persona; browser calls with an unknown action, an unknown tool,
// arguments that are not JSON and an unknown field; the reporter with HTTP
// 400.
func garbageScript() llmfake.Handler {
	var routes counter
	persona := []llmfake.Reply{
		llmfake.CallTool("execute_browser_command", `{"intent":{"action":"fly"}}`),
		llmfake.CallTool("teleport", `{}`),
		llmfake.CallTool("execute_browser_command", `not json`),
		llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/"},"colour":"red"}`),
		llmfake.CallTool("get_dom_snapshot", `{"user":"mallory"}`),
	}
	return func(r llmfake.Request) llmfake.Reply {
		switch {
		case r.HasTool(llm.ChooseTool):
			if routes.next()%2 == 0 {
				return llmfake.CallTool(llm.ChooseTool, `{"choice": `)
			}
			return llmfake.CallTool(llm.ChooseTool, `{"choice":"ghost"}`)
		case r.HasTool("execute_browser_command"):
			if k := len(r.ToolResults()); k < len(persona) {
				return persona[k]
			}
			return llmfake.Text("nothing worked")
		default:
			return llmfake.Error(400, "this model cannot write reports")
		}
	}
}

// TestModelDrivenGarbage: a model that answers garbage gets its errors back
// as text, the supervisor falls back to the rule policy each turn, the
// reporter to the template, and the mission ends without an error.
func TestModelDrivenGarbage(t *testing.T) {
	srv := llmfake.New(garbageScript())
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, onDemo(t, Config{Budget: 10, TurnSteps: 3, ReportDir: dir, Browser: testBrowser, Models: fakeModels(t, srv)}))
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	assert.Equal(t, 1, m.Steps, "only the start page: no garbage reached the browser")
	mdir := filepath.Join(dir, "explore")
	trace, err := os.ReadFile(filepath.Join(mdir, "traces.log"))
	require.NoError(t, err)
	assert.Contains(t, string(trace), "the rule policy routes this turn")
	assert.Contains(t, string(trace), `choice \"ghost\" is not one of the allowed options`)
	assert.Contains(t, string(trace), "next=FINISH")
	assert.Contains(t, string(trace), "the reporter model failed")
	assert.NotContains(t, string(trace), "by=model")

	// Each bad call came back to the persona model as an error text.
	var last llmfake.Request
	for _, r := range srv.Requests() {
		if r.HasTool("execute_browser_command") && len(r.ToolResults()) == 5 {
			last = r
		}
	}
	res5 := last.ToolResults()
	require.Len(t, res5, 5)
	for i, want := range []string{`unknown action "fly"`, `unknown tool "teleport"`, "not valid JSON", `unknown field "colour"`, "one browser user"} {
		assert.Contains(t, res5[i].Text(), "error", i)
		assert.Contains(t, res5[i].Text(), want, i)
	}

	md, err := os.ReadFile(filepath.Join(mdir, "test_report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "# Test report: explore")
	assert.NotContains(t, string(md), "Analysis (written by the reporter model)")
}

// TestModelTurnLimitAndLoop: a persona model that repeats the same action
// on the same page is nudged with a message instead of the action; at the
// turn's step limit the agent is stopped, and its next turn starts from the
// start URL, told to pick a different area.
func TestModelTurnLimitAndLoop(t *testing.T) {
	var routes counter
	home := llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/"}}`)
	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		switch {
		case r.HasTool(llm.ChooseTool):
			if routes.next() < 2 {
				return llmfake.CallTool(llm.ChooseTool, `{"choice":"new_user"}`)
			}
			return llmfake.CallTool(llm.ChooseTool, `{"choice":"FINISH"}`)
		case r.HasTool("execute_browser_command"):
			if strings.Contains(r.Text(), "Pick a different area") {
				return llmfake.Text("second turn: back on the start page")
			}
			switch len(r.ToolResults()) {
			case 0, 1, 2:
				return home
			case 3:
				return llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/release-notes"}}`)
			case 4:
				return llmfake.CallTool("execute_browser_command", `{"intent":{"action":"navigate","url":"/signin"}}`)
			}
			return llmfake.Text("should not be asked: the step limit ended the turn")
		default:
			return llmfake.Text("report")
		}
	})
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var rec observe.Recorder
	res, err := Run(ctx, onDemo(t, Config{Budget: 30, TurnSteps: 4, ReportDir: dir, Browser: testBrowser, Models: fakeModels(t, srv), Observer: &rec}))
	require.NoError(t, err)
	m := res.Missions[0]
	require.Empty(t, m.Err)
	limits := rec.Of(observe.StepLimit)
	require.Len(t, limits, 1, "the observer hears of the turn's step limit")
	assert.Equal(t, "new_user", limits[0].Persona)
	assert.Equal(t, 4, limits[0].Budget)

	var turn1 []llmfake.Request
	var turn2 int
	for _, r := range srv.Requests() {
		if !r.HasTool("execute_browser_command") {
			continue
		}
		if strings.Contains(r.Text(), "Pick a different area") {
			turn2++
		} else {
			turn1 = append(turn1, r)
		}
	}
	require.Len(t, turn1, 5, "the limit stopped the agent after its fourth browser action")
	assert.Contains(t, turn1[0].Text(), "Current page snapshot:", "the turn starts with a look at the page")
	results := turn1[4].ToolResults()
	assert.NotContains(t, results[1].Text(), "loop detected")
	assert.Contains(t, results[2].Text(), "loop detected", "the third same action on the same page (the start page) is not run")
	assert.Contains(t, results[2].Text(), "Go elsewhere")
	assert.Equal(t, 1, turn2, "the second turn was told to pick a different area")

	tape, _, err := browser.ReadTapeFile(filepath.Join(dir, "explore", "action_tape.jsonl"))
	require.NoError(t, err)
	var urls []string
	for _, e := range tape {
		if e.User == "new_user" {
			urls = append(urls, e.Params.URL)
		}
	}
	// start page, two runs of "/", release notes, sign-in, the reset to "/".
	assert.Equal(t, []string{"/", "/", "/", "/release-notes", "/signin", "/"}, urls)
	assert.Equal(t, 6, m.Steps)
	trace, err := os.ReadFile(filepath.Join(dir, "explore", "traces.log"))
	require.NoError(t, err)
	assert.Contains(t, string(trace), "loop detected")
	assert.Contains(t, string(trace), "reset to the start URL")
}

// TestModelPersonaProviderError: a provider error of the persona model
// fails the mission with the error (a checkpointed mission, which --resume
// or a batch retry continues), not a panic or a silent offline turn.
func TestModelPersonaProviderError(t *testing.T) {
	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		if r.HasTool(llm.ChooseTool) {
			return llmfake.CallTool(llm.ChooseTool, `{"choice":"adversarial"}`)
		}
		return llmfake.Error(400, "model not found")
	})
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, onDemo(t, Config{Budget: 10, ReportDir: dir, Browser: testBrowser, Models: fakeModels(t, srv)}))
	require.NoError(t, err)
	m := res.Missions[0]
	assert.Contains(t, m.Err, "persona adversarial: model:")
	assert.Contains(t, m.Err, "model not found")
	assert.Equal(t, ExitSetup, ExitCode(res, nil, FailOnNew))
}

// TestModelPersonaVision: a model persona asks analyze_visual_state about
// an element and saves bug evidence with capture_bug_screenshot; the
// screenshot reaches the (fake, OpenAI-wire) vision model as a PNG data
// URL, cropped to the element, and the evidence file lands in the
// mission's screenshots/bugs.
func TestModelPersonaVision(t *testing.T) {
	var routes counter
	var mu sync.Mutex
	var images []string
	persona := []llmfake.Reply{
		llmfake.CallTool("analyze_visual_state", `{"question":"Is the heading readable?","target":"role=heading"}`),
		llmfake.CallTool("capture_bug_screenshot", `{"name":"heading check","target":"role=heading","note":"how the heading looks"}`),
	}
	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		switch {
		case r.HasTool(llm.ChooseTool):
			if routes.next() == 0 {
				return llmfake.CallTool(llm.ChooseTool, `{"choice":"new_user","reason":"look at the start page"}`)
			}
			return llmfake.CallTool(llm.ChooseTool, `{"choice":"FINISH","reason":"done"}`)
		case r.HasTool("execute_browser_command"):
			if k := len(r.ToolResults()); k < len(persona) {
				return persona[k]
			}
			return llmfake.Text("looked at the heading")
		case strings.Contains(string(r.Raw), `"image_url"`):
			var req struct {
				Messages []struct {
					Content []struct {
						Type     string `json:"type"`
						ImageURL struct {
							URL string `json:"url"`
						} `json:"image_url"`
					} `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(r.Raw, &req); err != nil {
				return llmfake.Error(400, err.Error())
			}
			for _, m := range req.Messages {
				for _, c := range m.Content {
					if c.Type == "image_url" {
						mu.Lock()
						images = append(images, c.ImageURL.URL)
						mu.Unlock()
					}
				}
			}
			return llmfake.Text("VISION: the heading is readable, dark on light")
		default:
			return llmfake.Text("report")
		}
	})
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, onDemo(t, Config{Budget: 10, TurnSteps: 4, ReportDir: dir, Browser: testBrowser, Models: fakeModels(t, srv)}))
	require.NoError(t, err)
	require.Len(t, res.Missions, 1)
	require.Empty(t, res.Missions[0].Err)

	mu.Lock()
	require.Len(t, images, 1, "one screenshot went to the vision model")
	img := images[0]
	mu.Unlock()
	require.True(t, strings.HasPrefix(img, "data:image/png;base64,"))
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(img, "data:image/png;base64,"))
	require.NoError(t, err)
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	require.NoError(t, err, "a real PNG")
	assert.Less(t, cfg.Height, 200, "cropped to the heading, not the viewport")

	var last llmfake.Request
	for _, r := range srv.Requests() {
		if r.HasTool("execute_browser_command") {
			last = r
		}
	}
	results := last.ToolResults()
	require.Len(t, results, 2)
	assert.Contains(t, results[0].Text(), "VISION: the heading is readable")
	assert.Contains(t, results[1].Text(), "bug evidence saved as screenshots/bugs/heading_check-")
	shots, err := filepath.Glob(filepath.Join(dir, "explore", "screenshots", "bugs", "heading_check-*.png"))
	require.NoError(t, err)
	require.Len(t, shots, 1)
	assert.FileExists(t, strings.TrimSuffix(shots[0], ".png")+".json")
}
