package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"go.yaml.in/yaml/v3"
)

// DefaultThreshold is the SSIM a visual check needs when it names none.
const DefaultThreshold = 0.92

// DefaultFrozenTime is the instant pages see when a suite freezes time and
// names none.
var DefaultFrozenTime = time.Date(2025, 1, 15, 12, 0, 0, 0, time.UTC)

// Suite is a set of browser tasks and how to grade them (see ParseSuite for
// the YAML form).
type Suite struct {
	Name string `yaml:"name"`
	// BaseURL resolves relative start URLs; the runner may override it.
	BaseURL string `yaml:"base_url"`
	// Viewport of every trial (default 1280×800).
	Viewport Size `yaml:"viewport"`
	// Trials per task (default 1); the task passes on a majority.
	Trials int  `yaml:"trials"`
	Gate   Gate `yaml:"gate"`
	// FreezeTime is the instant Date and performance report (RFC 3339;
	// default DefaultFrozenTime). "off" lets time run.
	FreezeTime string `yaml:"freeze_time"`
	Tasks      []Task `yaml:"tasks"`

	// Dir is the directory relative reference paths resolve against (the
	// suite file's directory); not part of the YAML.
	Dir string `yaml:"-"`
}

// Size is a width and height in CSS pixels.
type Size struct {
	Width  int `yaml:"width" json:"width"`
	Height int `yaml:"height" json:"height"`
}

// Task is one thing the agent must do and the checks that decide whether it
// did.
type Task struct {
	ID string `yaml:"id"`
	// Task is the instruction given to the agent.
	Task string `yaml:"task"`
	// Start is the start URL: absolute, or a path resolved against the
	// suite's base URL.
	Start string `yaml:"start"`
	// Steps is the step budget, a hard limit (default 10).
	Steps int `yaml:"steps"`
	// Setup runs before the agent, after the start page loaded: browser
	// intents ({action: click, target: "#start"}) or JavaScript
	// ({js: "window.seed(42)"}). Its steps are not the agent's: they do not
	// count against Steps. A failing setup step fails the trial.
	Setup  []SetupStep `yaml:"setup"`
	Checks Checks      `yaml:"checks"`
	// Line is the task's line in the suite file.
	Line int `yaml:"-"`

	lines checkLines
}

// checkLines are the lines of a task's checks, for error messages.
type checkLines struct {
	dom           []int
	setup         []int
	visual, judge int
}

// SetupStep is one action run before the agent: a browser intent (the JSON
// intent's fields as YAML) or, with js, a JavaScript expression evaluated
// in the page (a returned Promise is awaited).
type SetupStep struct {
	// JS is a JavaScript expression; when set, the step is no intent.
	JS string `json:"js,omitempty"`
	// Intent is the browser intent as JSON (validated by browser.ParseIntent).
	Intent json.RawMessage `json:"intent,omitempty"`
}

// UnmarshalYAML reads {js: "…"} or an intent's fields.
func (st *SetupStep) UnmarshalYAML(n *yaml.Node) error {
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return fmt.Errorf("setup step: want a mapping (an intent or {js: …})")
	}
	if js, ok := m["js"]; ok {
		s, isStr := js.(string)
		if len(m) != 1 || !isStr || strings.TrimSpace(s) == "" {
			return fmt.Errorf("line %d: setup step: js takes a non-empty string and no other key", n.Line)
		}
		st.JS = s
		return nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("line %d: setup step: %v", n.Line, err)
	}
	if _, err := browser.ParseIntent(raw); err != nil {
		return fmt.Errorf("line %d: setup step: %v", n.Line, err)
	}
	st.Intent = raw
	return nil
}

// String describes the step in one line.
func (st SetupStep) String() string {
	if st.JS != "" {
		return "js " + st.JS
	}
	return string(st.Intent)
}

// Checks are a task's graders.
type Checks struct {
	DOM    []DOMCheck   `yaml:"dom"`
	Visual *VisualCheck `yaml:"visual"`
	Judge  *JudgeCheck  `yaml:"judge"`
}

// DOMCheck is one assertion on the final page. Exactly one of Visible,
// Hidden, TextEquals, TextContains, Count, Attribute (all with Locator),
// URLMatches or JS (without) is set. Locator is a Playwright selector (CSS,
// text=…, role=…, data-testid=…).
//
// JS is a JavaScript expression evaluated in the final page, such as a
// task page's own reward variable ("window.WOB_REWARD_GLOBAL"); with
// Equals the check passes when the value equals it (compared as JSON:
// 1 and 1.0 are equal), without Equals when the value is truthy. The
// evaluation is bounded by JSTimeout.
type DOMCheck struct {
	Locator      string          `yaml:"locator" json:"locator,omitempty"`
	Visible      bool            `yaml:"visible" json:"visible,omitempty"`
	Hidden       bool            `yaml:"hidden" json:"hidden,omitempty"`
	TextEquals   *string         `yaml:"text_equals" json:"text_equals,omitempty"`
	TextContains *string         `yaml:"text_contains" json:"text_contains,omitempty"`
	Count        *int            `yaml:"count" json:"count,omitempty"`
	Attribute    *AttributeCheck `yaml:"attribute" json:"attribute,omitempty"`
	// URLMatches is a regular expression the final URL must match.
	URLMatches string `yaml:"url_matches" json:"url_matches,omitempty"`
	// JS is a JavaScript expression evaluated in the page.
	JS string `yaml:"js" json:"js,omitempty"`
	// Equals is the value JS must produce (any YAML scalar, list or map).
	Equals any `yaml:"equals" json:"equals,omitempty"`

	url *regexp.Regexp
}

// JSTimeout bounds a JS check's evaluation (a Promise that never settles
// fails the check).
const JSTimeout = 5 * time.Second

// AttributeCheck asserts an attribute's value on the first match.
type AttributeCheck struct {
	Name   string `yaml:"name" json:"name"`
	Equals string `yaml:"equals" json:"equals"`
}

// String describes the check in one line (for reports).
func (c DOMCheck) String() string {
	switch {
	case c.URLMatches != "":
		return fmt.Sprintf("url matches %q", c.URLMatches)
	case c.JS != "":
		if c.Equals != nil {
			b, _ := json.Marshal(c.Equals)
			return fmt.Sprintf("js %s == %s", c.JS, b)
		}
		return fmt.Sprintf("js %s is truthy", c.JS)
	case c.Visible:
		return fmt.Sprintf("%s visible", c.Locator)
	case c.Hidden:
		return fmt.Sprintf("%s hidden", c.Locator)
	case c.TextEquals != nil:
		return fmt.Sprintf("%s text = %q", c.Locator, *c.TextEquals)
	case c.TextContains != nil:
		return fmt.Sprintf("%s text contains %q", c.Locator, *c.TextContains)
	case c.Count != nil:
		return fmt.Sprintf("count(%s) = %d", c.Locator, *c.Count)
	case c.Attribute != nil:
		return fmt.Sprintf("%s[%s] = %q", c.Locator, c.Attribute.Name, c.Attribute.Equals)
	}
	return "empty check"
}

// VisualCheck compares a screenshot of the final page with a reference.
type VisualCheck struct {
	// Reference is the PNG path, relative to the suite's directory.
	Reference string `yaml:"reference"`
	// Region, when set, is the part compared, in reference pixels.
	Region *Region `yaml:"region"`
	// Threshold is the SSIM needed (default DefaultThreshold).
	Threshold float64 `yaml:"threshold"`
	// MaxMismatch, when > 0, also caps the ratio of pixels whose grey
	// levels differ by more than PixelTolerance.
	MaxMismatch float64 `yaml:"max_mismatch"`
}

// Region is a rectangle in pixels.
type Region struct {
	X      int `yaml:"x" json:"x"`
	Y      int `yaml:"y" json:"y"`
	Width  int `yaml:"width" json:"width"`
	Height int `yaml:"height" json:"height"`
}

// JudgeCheck asks a model whether the outcome answers a question.
type JudgeCheck struct {
	Question string `yaml:"question"`
	// Reference is the correct answer the judge compares with.
	Reference string `yaml:"reference"`
	// Screenshot also shows the judge a PNG of the final page (the
	// viewport), for judge models that accept images.
	Screenshot bool `yaml:"screenshot"`
}

// Evidence says how the visual and judge graders combine in the gate.
type Evidence string

// Evidence modes.
const (
	EvidenceAny  Evidence = "any"  // visual OR judge (default)
	EvidenceAll  Evidence = "all"  // visual AND judge
	EvidenceNone Evidence = "none" // ignore both
)

// Gate decides a trial: DOM (unless DOM is false) AND the evidence.
type Gate struct {
	// DOM requires every DOM check to pass (default true).
	DOM *bool `yaml:"dom" json:"dom"`
	// Evidence combines the visual and judge verdicts (default any). A
	// grader that does not apply (no such check, or no judge model) is
	// left out; with none left the evidence holds.
	Evidence Evidence `yaml:"evidence" json:"evidence"`
}

// RequireDOM reports whether DOM checks gate the trial.
func (g Gate) RequireDOM() bool { return g.DOM == nil || *g.DOM }

// LineError is a suite error at a line of the file.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// LoadSuite reads and validates a suite file.
func LoadSuite(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	s, err := ParseSuite(data)
	if err != nil {
		var le *LineError
		if errors.As(err, &le) {
			le.File = path
		}
		return nil, fmt.Errorf("suite: %w", err)
	}
	s.Dir = filepath.Dir(path)
	return s, nil
}

var (
	yamlLine       = regexp.MustCompile(`line (\d+)`)
	yamlLinePrefix = regexp.MustCompile(`^line \d+: `)
)

// ParseSuite decodes a suite strictly (unknown keys are errors) and
// validates it; errors name the line. A suite looks like:
//
//	name: shop
//	base_url: http://127.0.0.1:8080
//	trials: 3
//	gate: {dom: true, evidence: any}
//	tasks:
//	  - id: subscribe
//	    task: Subscribe to the newsletter with ada@example.com
//	    start: /
//	    steps: 6
//	    checks:
//	      dom:
//	        - {locator: "#thanks", visible: true}
//	        - {url_matches: "/$"}
//	      visual: {reference: refs/subscribe.png, region: {x: 0, y: 0, width: 640, height: 400}}
//	      judge: {question: Was the subscription confirmed?, reference: yes}
func ParseSuite(data []byte) (*Suite, error) {
	var s Suite
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &LineError{Line: 1, Msg: "empty suite"}
		}
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			fmt.Sscan(m[1], &line)
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
		msg = yamlLinePrefix.ReplaceAllString(msg, "")
		return nil, &LineError{Line: line, Msg: msg}
	}
	// a second, untyped pass finds each task's line
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil && len(root.Content) == 1 {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "tasks" {
				for j, t := range m.Content[i+1].Content {
					if j < len(s.Tasks) {
						s.Tasks[j].Line = t.Line
						s.Tasks[j].lines = linesOf(t)
					}
				}
			}
		}
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// mapValue is the value node of key in a mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func linesOf(task *yaml.Node) checkLines {
	var cl checkLines
	if setup := mapValue(task, "setup"); setup != nil {
		for _, c := range setup.Content {
			cl.setup = append(cl.setup, c.Line)
		}
	}
	checks := mapValue(task, "checks")
	if dom := mapValue(checks, "dom"); dom != nil {
		for _, c := range dom.Content {
			cl.dom = append(cl.dom, c.Line)
		}
	}
	if v := mapValue(checks, "visual"); v != nil {
		cl.visual = v.Line
	}
	if j := mapValue(checks, "judge"); j != nil {
		cl.judge = j.Line
	}
	return cl
}

// line is the first known line among ls, else the task's.
func (t *Task) line(ls ...int) int {
	for _, l := range ls {
		if l > 0 {
			return l
		}
	}
	return t.Line
}

func (s *Suite) validate() error {
	if s.Viewport == (Size{}) {
		s.Viewport = Size{Width: 1280, Height: 800}
	}
	if s.Viewport.Width <= 0 || s.Viewport.Height <= 0 {
		return &LineError{Line: 1, Msg: "viewport: width and height must be positive"}
	}
	if s.Trials == 0 {
		s.Trials = 1
	}
	if s.Trials < 0 {
		return &LineError{Line: 1, Msg: "trials must be positive"}
	}
	switch s.Gate.Evidence {
	case "":
		s.Gate.Evidence = EvidenceAny
	case EvidenceAny, EvidenceAll, EvidenceNone:
	default:
		return &LineError{Line: 1, Msg: fmt.Sprintf("gate.evidence %q: want any, all or none", s.Gate.Evidence)}
	}
	if _, err := s.Frozen(); err != nil {
		return &LineError{Line: 1, Msg: err.Error()}
	}
	if s.BaseURL != "" {
		if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &LineError{Line: 1, Msg: fmt.Sprintf("base_url %q: want an http(s) URL", s.BaseURL)}
		}
	}
	if len(s.Tasks) == 0 {
		return &LineError{Line: 1, Msg: "no tasks"}
	}
	seen := map[string]bool{}
	for i := range s.Tasks {
		t := &s.Tasks[i]
		badAt := func(line int, format string, a ...any) error {
			return &LineError{Line: line, Msg: fmt.Sprintf("task %q: ", t.ID) + fmt.Sprintf(format, a...)}
		}
		bad := func(format string, a ...any) error { return badAt(t.Line, format, a...) }
		if t.ID == "" {
			return &LineError{Line: t.Line, Msg: fmt.Sprintf("task %d: id is required", i+1)}
		}
		if seen[t.ID] {
			return bad("duplicate id")
		}
		seen[t.ID] = true
		if strings.TrimSpace(t.Task) == "" {
			return bad("task (the instruction) is required")
		}
		if t.Start == "" {
			return bad("start is required")
		}
		if u, err := url.Parse(t.Start); err != nil || (u.IsAbs() && u.Scheme != "http" && u.Scheme != "https") {
			return bad("start %q: want an http(s) URL or a path", t.Start)
		}
		if t.Steps == 0 {
			t.Steps = 10
		}
		if t.Steps < 0 {
			return bad("steps must be positive")
		}
		if len(t.Checks.DOM) == 0 && t.Checks.Visual == nil && t.Checks.Judge == nil {
			return bad("no checks")
		}
		for j := range t.Checks.DOM {
			if err := t.Checks.DOM[j].validate(); err != nil {
				l := 0
				if j < len(t.lines.dom) {
					l = t.lines.dom[j]
				}
				return badAt(t.line(l), "dom check %d: %v", j+1, err)
			}
		}
		if v := t.Checks.Visual; v != nil {
			bad := func(format string, a ...any) error { return badAt(t.line(t.lines.visual), format, a...) }
			if v.Reference == "" {
				return bad("visual: reference is required")
			}
			if filepath.Ext(v.Reference) != ".png" {
				return bad("visual: reference %q must be a .png", v.Reference)
			}
			if v.Threshold == 0 {
				v.Threshold = DefaultThreshold
			}
			if v.Threshold < -1 || v.Threshold > 1 {
				return bad("visual: threshold %v outside [-1, 1]", v.Threshold)
			}
			if v.MaxMismatch < 0 || v.MaxMismatch > 1 {
				return bad("visual: max_mismatch %v outside [0, 1]", v.MaxMismatch)
			}
			if r := v.Region; r != nil && (r.Width <= 0 || r.Height <= 0 || r.X < 0 || r.Y < 0) {
				return bad("visual: region needs x, y >= 0 and a positive width and height")
			}
		}
		if j := t.Checks.Judge; j != nil && (strings.TrimSpace(j.Question) == "" || strings.TrimSpace(j.Reference) == "") {
			return badAt(t.line(t.lines.judge), "judge: question and reference are required")
		}
	}
	return nil
}

func (c *DOMCheck) validate() error {
	n := 0
	for _, set := range []bool{c.Visible, c.Hidden, c.TextEquals != nil, c.TextContains != nil, c.Count != nil, c.Attribute != nil, c.URLMatches != "", c.JS != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return errors.New("set exactly one of visible, hidden, text_equals, text_contains, count, attribute, url_matches, js")
	}
	if c.Equals != nil && c.JS == "" {
		return errors.New("equals goes with js")
	}
	if c.JS != "" {
		if c.Locator != "" {
			return errors.New("js takes no locator")
		}
		if strings.TrimSpace(c.JS) == "" {
			return errors.New("js: empty expression")
		}
		if _, err := json.Marshal(c.Equals); err != nil {
			return fmt.Errorf("equals: %v", err)
		}
		return nil
	}
	if c.URLMatches != "" {
		if c.Locator != "" {
			return errors.New("url_matches takes no locator")
		}
		re, err := regexp.Compile(c.URLMatches)
		if err != nil {
			return fmt.Errorf("url_matches: %w", err)
		}
		c.url = re
		return nil
	}
	if strings.TrimSpace(c.Locator) == "" {
		return errors.New("locator is required")
	}
	if c.Count != nil && *c.Count < 0 {
		return errors.New("count must be >= 0")
	}
	if c.Attribute != nil && c.Attribute.Name == "" {
		return errors.New("attribute: name is required")
	}
	return nil
}

// Frozen is the instant pages see, or the zero time when time runs.
func (s *Suite) Frozen() (time.Time, error) {
	switch s.FreezeTime {
	case "":
		return DefaultFrozenTime, nil
	case "off":
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s.FreezeTime)
	if err != nil {
		return time.Time{}, fmt.Errorf("freeze_time %q: want RFC 3339 or off", s.FreezeTime)
	}
	return t, nil
}

// StartURL resolves a task's start URL against base (the runner's, else the
// suite's).
func (s *Suite) StartURL(t Task, base string) (string, error) {
	if base == "" {
		base = s.BaseURL
	}
	u, err := url.Parse(t.Start)
	if err != nil {
		return "", fmt.Errorf("task %q: start: %w", t.ID, err)
	}
	if u.IsAbs() {
		return u.String(), nil
	}
	if base == "" {
		return "", fmt.Errorf("task %q: start %q is relative and no base URL is set", t.ID, t.Start)
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL: %w", err)
	}
	return b.ResolveReference(u).String(), nil
}
