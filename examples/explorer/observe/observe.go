// Package observe is the explorer's observer interface: the events of an
// agent or explorer run (a goal starts, a step starts or is taken, the
// agent says something, calls a tool and gets its result, a bug is found,
// a goal completes, a step limit is hit) go to an Observer, and observers
// mix: Console prints the live progress, JSONL logs every event as one
// JSON line to a file, Multi fans out to several, Nop drops them (tests),
// Func adapts a function and Recorder keeps them in memory.
//
//	jl, err := observe.CreateJSONL("events.jsonl")
//	...
//	defer jl.Close()
//	cfg.Observer = observe.Multi(observe.NewConsole(os.Stdout, observe.ConsoleOptions{Detail: true}), jl)
//
// Observers are called synchronously from the run and must be quick and
// safe for concurrent use (missions may run in parallel); every observer
// here is. An observer never fails a run: JSONL keeps its first write
// error for Err.
package observe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/internal/safefile"
)

// Kind names an event.
type Kind string

// The event kinds.
const (
	GoalStart    Kind = "goal_start"    // a goal (mission) starts: Goal, Text (its prompt), Budget
	StepStart    Kind = "step_start"    // a step is about to run: Step, Persona, Action
	Step         Kind = "step"          // a step was taken: Step, Budget, Persona, Action, URL, OK, Error, Bugs (the live progress line)
	AgentText    Kind = "agent_text"    // the agent said something (a persona's turn summary): Persona, Text
	ToolCall     Kind = "tool_call"     // the agent calls a tool: Persona, Tool, Args
	ToolResult   Kind = "tool_result"   // the tool answered: Persona, Tool, Result, Error
	BugFound     Kind = "bug_found"     // a new bug: Bug
	GoalComplete Kind = "goal_complete" // the goal ended: Steps, Bugs, Error, Text (outcome)
	StepLimit    Kind = "step_limit"    // a step limit (turn or budget) stopped the agent: Persona, Step, Budget
)

// Kinds lists every kind, in the order above.
func Kinds() []Kind {
	return []Kind{GoalStart, StepStart, Step, AgentText, ToolCall, ToolResult, BugFound, GoalComplete, StepLimit}
}

// Bug is what an event says of a bug.
type Bug struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Kind     string `json:"kind,omitempty"`
	Severity string `json:"severity,omitempty"`
	URL      string `json:"url,omitempty"`
	Persona  string `json:"persona,omitempty"`
}

// Event is one thing that happened. Which fields are set depends on Kind
// (see the kinds); Goal, GoalIndex and GoalTotal place it in a batch.
type Event struct {
	Kind      Kind      `json:"kind"`
	Time      time.Time `json:"time"`
	Goal      string    `json:"goal,omitempty"`
	GoalIndex int       `json:"goal_index,omitempty"` // 1-based
	GoalTotal int       `json:"goal_total,omitempty"`
	Persona   string    `json:"persona,omitempty"`
	Step      int       `json:"step,omitempty"`
	Budget    int       `json:"budget,omitempty"`
	Action    string    `json:"action,omitempty"`
	URL       string    `json:"url,omitempty"`
	OK        bool      `json:"ok,omitempty"`
	Text      string    `json:"text,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Args      string    `json:"args,omitempty"`
	Result    string    `json:"result,omitempty"`
	Error     string    `json:"error,omitempty"`
	Bugs      int       `json:"bugs,omitempty"` // bugs so far (Step) or in all (GoalComplete)
	Steps     int       `json:"steps,omitempty"`
	Bug       *Bug      `json:"bug,omitempty"`
}

// Observer receives events.
type Observer interface {
	Observe(Event)
}

// Func is an Observer made of a function.
type Func func(Event)

// Observe calls f.
func (f Func) Observe(ev Event) {
	if f != nil {
		f(ev)
	}
}

// Nop drops every event.
type Nop struct{}

// Observe does nothing.
func (Nop) Observe(Event) {}

// Multi returns an observer that passes each event to every non-nil
// observer, in order (Nop when there is none).
func Multi(obs ...Observer) Observer {
	var list multi
	for _, o := range obs {
		switch x := o.(type) {
		case nil, Nop:
		case multi:
			list = append(list, x...)
		default:
			list = append(list, o)
		}
	}
	switch len(list) {
	case 0:
		return Nop{}
	case 1:
		return list[0]
	}
	return list
}

type multi []Observer

func (m multi) Observe(ev Event) {
	for _, o := range m {
		o.Observe(ev)
	}
}

// Emit fills ev.Time when it is zero and passes ev to o (nothing when o is
// nil).
func Emit(o Observer, ev Event) {
	if o == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	o.Observe(ev)
}

// Recorder keeps every event in memory (tests, embedding).
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Observe records ev.
func (r *Recorder) Observe(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// Events returns a copy of the events so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Of returns the recorded events of kind k.
func (r *Recorder) Of(k Kind) []Event {
	var out []Event
	for _, ev := range r.Events() {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// ConsoleOptions configure a Console.
type ConsoleOptions struct {
	// TTY rewrites one progress line in place instead of printing a line
	// per step (Detail lines are still printed whole).
	TTY bool
	// Detail prints every event; without it only the step progress lines.
	Detail bool
	// Width cuts lines (default 110 on a TTY, 300 otherwise).
	Width int
}

// Console prints events for people: the live progress line per step
// ("[1/2 explore] step 3/30 new_user       bugs 1  click /projects") and,
// with Detail, a line per goal, tool call and result, agent text, bug and
// step limit.
type Console struct {
	mu   sync.Mutex
	w    io.Writer
	opts ConsoleOptions
	open bool // a TTY progress line is on screen
}

// NewConsole returns a Console writing to w.
func NewConsole(w io.Writer, opts ConsoleOptions) *Console {
	if opts.Width <= 0 {
		opts.Width = 300
		if opts.TTY {
			opts.Width = 110
		}
	}
	return &Console{w: w, opts: opts}
}

// Observe prints ev.
func (c *Console) Observe(ev Event) {
	if c == nil || c.w == nil {
		return
	}
	line := c.format(ev)
	if line == "" {
		return
	}
	if len(line) > c.opts.Width {
		line = cut(line, c.opts.Width)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ev.Kind == Step && c.opts.TTY {
		fmt.Fprintf(c.w, "\r\033[K%s", line)
		c.open = true
		return
	}
	if c.open {
		fmt.Fprint(c.w, "\n")
		c.open = false
	}
	fmt.Fprintln(c.w, line)
}

// ProgressLine is the progress line of a Step event.
func ProgressLine(ev Event) string {
	return fmt.Sprintf("[%d/%d %s] step %d/%d %-14s bugs %d  %s %s", ev.GoalIndex, ev.GoalTotal, ev.Goal, ev.Step, ev.Budget, ev.Persona, ev.Bugs, ev.Action, ev.URL)
}

func (c *Console) format(ev Event) string {
	if ev.Kind == Step {
		return ProgressLine(ev)
	}
	if !c.opts.Detail {
		return ""
	}
	where := fmt.Sprintf("[%d/%d %s]", ev.GoalIndex, ev.GoalTotal, ev.Goal)
	switch ev.Kind {
	case GoalStart:
		return fmt.Sprintf("%s goal start (budget %d): %s", where, ev.Budget, oneLine(ev.Text))
	case StepStart:
		return fmt.Sprintf("%s step %d %s: %s", where, ev.Step, ev.Persona, ev.Action)
	case AgentText:
		return fmt.Sprintf("%s %s says: %s", where, ev.Persona, oneLine(ev.Text))
	case ToolCall:
		return fmt.Sprintf("%s %s → %s %s", where, ev.Persona, ev.Tool, oneLine(ev.Args))
	case ToolResult:
		if ev.Error != "" {
			return fmt.Sprintf("%s %s ← %s error: %s", where, ev.Persona, ev.Tool, oneLine(ev.Error))
		}
		return fmt.Sprintf("%s %s ← %s %s", where, ev.Persona, ev.Tool, oneLine(ev.Result))
	case BugFound:
		if ev.Bug == nil {
			return where + " bug found"
		}
		return fmt.Sprintf("%s bug %s [%s] %s (%s)", where, ev.Bug.ID, ev.Bug.Severity, oneLine(ev.Bug.Title), ev.Bug.URL)
	case GoalComplete:
		s := fmt.Sprintf("%s goal complete: %d steps, %d bugs", where, ev.Steps, ev.Bugs)
		if ev.Error != "" {
			s += ", error: " + oneLine(ev.Error)
		}
		if ev.Text != "" {
			s += "; " + oneLine(ev.Text)
		}
		return s
	case StepLimit:
		return fmt.Sprintf("%s step limit: %s stopped at step %d of %d", where, ev.Persona, ev.Step, ev.Budget)
	}
	return fmt.Sprintf("%s %s", where, ev.Kind)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to n bytes without splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// JSONL writes each event as one JSON object per line. Writes are
// buffered and flushed after every event; the first write error is kept
// (Err) and later events are dropped.
type JSONL struct {
	path   string
	mu     sync.Mutex
	w      *bufio.Writer
	closer io.Closer
	err    error
	// MaxField cuts long text fields (Text, Args, Result, Error) to this
	// many bytes (default 4000; negative: no cut).
	MaxField int
}

// NewJSONL writes events to w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: bufio.NewWriter(w)} }

// CreateJSONL creates the file at path, replacing whatever was there (a
// planted symlink is replaced, not written through), and writes events to
// it; Close closes it.
func CreateJSONL(path string) (*JSONL, error) {
	f, err := safefile.OpenAppend(path, 0o666, true)
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	j := NewJSONL(f)
	j.closer, j.path = f, path
	return j, nil
}

// Observe writes ev.
func (j *JSONL) Observe(ev Event) {
	if j == nil {
		return
	}
	max := j.MaxField
	if max == 0 {
		max = 4000
	}
	if max > 0 {
		ev.Text, ev.Args, ev.Result, ev.Error = cut(ev.Text, max), cut(ev.Args, max), cut(ev.Result, max), cut(ev.Error, max)
	}
	b, err := json.Marshal(ev)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	if err != nil {
		j.err = err
		return
	}
	if _, err := j.w.Write(append(b, '\n')); err != nil {
		j.err = err
		return
	}
	j.err = j.w.Flush()
}

// Path is the file CreateJSONL created ("" for NewJSONL).
func (j *JSONL) Path() string { return j.path }

// Err is the first error writing an event.
func (j *JSONL) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Close flushes and closes the file CreateJSONL opened; it returns the
// first write error, if any.
func (j *JSONL) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	ferr := j.w.Flush()
	var cerr error
	if j.closer != nil {
		cerr = j.closer.Close()
		j.closer = nil
	}
	return errors.Join(j.err, ferr, cerr)
}

// ReadJSONL decodes a JSON-lines event log.
func ReadJSONL(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return out, fmt.Errorf("observe: line %d: %w", n, err)
		}
		out = append(out, ev)
	}
	return out, sc.Err()
}
