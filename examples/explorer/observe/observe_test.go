package observe

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() []Event {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	g := Event{Goal: "explore", GoalIndex: 1, GoalTotal: 2, Time: at}
	with := func(e Event) Event {
		e.Goal, e.GoalIndex, e.GoalTotal, e.Time = g.Goal, g.GoalIndex, g.GoalTotal, g.Time
		return e
	}
	return []Event{
		with(Event{Kind: GoalStart, Text: "Explore the\napp", Budget: 30}),
		with(Event{Kind: StepStart, Step: 1, Persona: "new_user", Action: "click"}),
		with(Event{Kind: Step, Step: 1, Budget: 30, Persona: "new_user", Action: "click", URL: "/projects", OK: true, Bugs: 0}),
		with(Event{Kind: ToolCall, Persona: "new_user", Tool: "execute_browser_command", Args: `{"intent":{"action":"click"}}`}),
		with(Event{Kind: ToolResult, Persona: "new_user", Tool: "execute_browser_command", Result: "ok: click"}),
		with(Event{Kind: ToolResult, Persona: "new_user", Tool: "get_dom_snapshot", Error: "ref e9 is stale"}),
		with(Event{Kind: AgentText, Persona: "new_user", Text: "I clicked around."}),
		with(Event{Kind: BugFound, Bug: &Bug{ID: "BUG-1", Title: "Server error on /projects", Severity: "high", URL: "/projects"}}),
		with(Event{Kind: StepLimit, Persona: "new_user", Step: 10, Budget: 10}),
		with(Event{Kind: GoalComplete, Steps: 11, Bugs: 1, Text: "done"}),
	}
}

func TestConsole(t *testing.T) {
	var b bytes.Buffer
	c := NewConsole(&b, ConsoleOptions{})
	for _, ev := range sample() {
		c.Observe(ev)
	}
	assert.Equal(t, "[1/2 explore] step 1/30 new_user       bugs 0  click /projects\n", b.String(), "without Detail: the progress lines only")

	b.Reset()
	c = NewConsole(&b, ConsoleOptions{Detail: true})
	for _, ev := range sample() {
		c.Observe(ev)
	}
	want := []string{
		"[1/2 explore] goal start (budget 30): Explore the app",
		"[1/2 explore] step 1 new_user: click",
		"[1/2 explore] step 1/30 new_user       bugs 0  click /projects",
		`[1/2 explore] new_user → execute_browser_command {"intent":{"action":"click"}}`,
		"[1/2 explore] new_user ← execute_browser_command ok: click",
		"[1/2 explore] new_user ← get_dom_snapshot error: ref e9 is stale",
		"[1/2 explore] new_user says: I clicked around.",
		"[1/2 explore] bug BUG-1 [high] Server error on /projects (/projects)",
		"[1/2 explore] step limit: new_user stopped at step 10 of 10",
		"[1/2 explore] goal complete: 11 steps, 1 bugs; done",
	}
	assert.Equal(t, strings.Join(want, "\n")+"\n", b.String())

	b.Reset()
	c = NewConsole(&b, ConsoleOptions{TTY: true, Detail: true})
	evs := sample()
	c.Observe(evs[2])
	c.Observe(evs[2])
	c.Observe(evs[9])
	assert.Equal(t, "\r\033[K"+ProgressLine(evs[2])+"\r\033[K"+ProgressLine(evs[2])+"\n[1/2 explore] goal complete: 11 steps, 1 bugs; done\n", b.String(),
		"a TTY rewrites the progress line and ends it before a detail line")

	var nilConsole *Console
	nilConsole.Observe(evs[0]) // no panic
}

func TestJSONLRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	j, err := CreateJSONL(p)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, ev := range sample() {
				j.Observe(ev)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, j.Close())
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	got, err := ReadJSONL(f)
	require.NoError(t, err)
	require.Len(t, got, 4*len(sample()), "every event, one line each, none torn")
	counts := map[Kind]int{}
	for _, ev := range got {
		counts[ev.Kind]++
	}
	for _, k := range Kinds() {
		if k == ToolResult {
			assert.Equal(t, 8, counts[k])
			continue
		}
		assert.Equal(t, 4, counts[k], k)
	}
	var bug Event
	for _, ev := range got {
		if ev.Kind == BugFound {
			bug = ev
		}
	}
	assert.Equal(t, sample()[7], bug)

	// long fields are cut
	var b bytes.Buffer
	jl := NewJSONL(&b)
	jl.MaxField = 10
	jl.Observe(Event{Kind: AgentText, Text: strings.Repeat("é", 20)})
	back, err := ReadJSONL(&b)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(back[0].Text), 10)

	_, err = CreateJSONL(filepath.Join(t.TempDir(), "no", "such", "dir", "x.jsonl"))
	assert.Error(t, err)
	_, err = ReadJSONL(strings.NewReader("{\"kind\":\"step\"}\nnot json\n"))
	assert.ErrorContains(t, err, "line 2")
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestJSONLKeepsFirstError(t *testing.T) {
	j := NewJSONL(failWriter{})
	j.Observe(Event{Kind: Step})
	j.Observe(Event{Kind: Step})
	assert.ErrorContains(t, j.Err(), "disk full")
	assert.ErrorContains(t, j.Close(), "disk full")
}

func TestMultiNopFunc(t *testing.T) {
	var r1, r2 Recorder
	var n int
	o := Multi(nil, &r1, Nop{}, Multi(&r2, Func(func(Event) { n++ })))
	for _, ev := range sample() {
		Emit(o, ev)
	}
	Emit(o, Event{Kind: StepStart}) // Emit stamps the time
	assert.Len(t, r1.Events(), len(sample())+1)
	assert.Len(t, r2.Events(), len(sample())+1)
	assert.Equal(t, len(sample())+1, n)
	assert.False(t, r1.Of(StepStart)[1].Time.IsZero())
	assert.Len(t, r1.Of(ToolResult), 2)
	assert.Equal(t, Nop{}, Multi())
	assert.Equal(t, Observer(&r1), Multi(nil, &r1))
	Emit(nil, Event{}) // no panic
	Func(nil).Observe(Event{})
}
