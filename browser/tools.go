package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgraph/agentgraph/internal/safefile"
	"github.com/agentgraph/agentgraph/tools"
)

// CommandArgs are the arguments of execute_browser_command.
type CommandArgs struct {
	User   string `json:"user,omitempty" jsonschema:"description=the user whose isolated browser acts (default: the engine's default user)"`
	Intent Intent `json:"intent" jsonschema:"description=the browser action and its parameters; only the parameters of that action are allowed"`
}

// UserArgs name the acting user.
type UserArgs struct {
	User string `json:"user,omitempty" jsonschema:"description=the user whose page to read (default: the engine's default user)"`
}

// ScreenshotArgs are the arguments of capture_screenshot.
type ScreenshotArgs struct {
	User     string `json:"user,omitempty" jsonschema:"description=the user whose page to capture"`
	FullPage bool   `json:"full_page,omitempty" jsonschema:"description=capture the whole scrollable page"`
}

// SpecArgs are the arguments of generate_reproduction_spec.
type SpecArgs struct {
	Name    string `json:"name" jsonschema:"description=the test name (for a bug: its title)"`
	Bug     bool   `json:"bug,omitempty" jsonschema:"description=true when the steps reproduce a bug: the spec asserts the correct behaviour under test.fail()"`
	User    string `json:"user,omitempty" jsonschema:"description=only this user's actions (default: the default user)"`
	FromSeq int64  `json:"from_seq,omitempty" jsonschema:"description=first tape sequence number to include (default: the oldest in the window)"`
	ToSeq   int64  `json:"to_seq,omitempty" jsonschema:"description=last tape sequence number to include (default: the newest)"`
	File    string `json:"file,omitempty" jsonschema:"description=file name ending in .spec.ts to write inside the artifact directory"`
}

func actionsHelp() string {
	var b strings.Builder
	for _, a := range Actions() {
		b.WriteString("\n- " + Usage(a))
	}
	return b.String()
}

// Tools returns the browser tools bound to e, acting as defaultUser when a
// call names no user: execute_browser_command, get_dom_snapshot,
// capture_screenshot and generate_reproduction_spec.
func Tools(e *Engine, defaultUser string) []tools.Tool {
	if defaultUser == "" {
		defaultUser = "default"
	}
	user := func(u string) string {
		if u == "" {
			return defaultUser
		}
		return u
	}
	exec := tools.New("execute_browser_command",
		"Run one browser action in the app under test and get the outcome, the page and any health findings. Targets are refs from get_dom_snapshot (e12) or stable selectors; XPath and positional CSS are refused. Actions:"+actionsHelp(),
		func(ctx context.Context, in CommandArgs) (string, error) {
			s, err := e.User(ctx, user(in.User))
			if err != nil {
				return "", err
			}
			raw, err := json.Marshal(in.Intent)
			if err != nil {
				return "", err
			}
			r := s.Run(ctx, raw)
			if !r.OK {
				return "", fmt.Errorf("%s", r.Text())
			}
			return r.Text(), nil
		})
	snap := tools.New("get_dom_snapshot",
		"Get the current page as an accessibility snapshot: every interactable element has [ref=eN] to use as a target. Refs are valid until the page changes.",
		func(ctx context.Context, in UserArgs) (string, error) {
			s, err := e.User(ctx, user(in.User))
			if err != nil {
				return "", err
			}
			r := s.Do(ctx, Intent{Action: ActSnapshot})
			if !r.OK {
				return "", fmt.Errorf("%s", r.Error)
			}
			return r.Text(), nil
		})
	shot := tools.New("capture_screenshot",
		"Capture a PNG screenshot of the page as evidence; returns where it was saved.",
		func(ctx context.Context, in ScreenshotArgs) (string, error) {
			s, err := e.User(ctx, user(in.User))
			if err != nil {
				return "", err
			}
			r := s.Do(ctx, Intent{Action: ActScreenshot, FullPage: in.FullPage})
			if !r.OK {
				return "", fmt.Errorf("%s", r.Error)
			}
			return r.Text(), nil
		})
	spec := tools.New("generate_reproduction_spec",
		"Turn the recorded actions into a Playwright Test spec (.spec.ts) that replays them; with bug=true it asserts the correct behaviour under test.fail().",
		func(ctx context.Context, in SpecArgs) (string, error) {
			u := user(in.User)
			var picked []Entry
			for _, en := range e.Window().Entries() {
				if en.User != u || (in.FromSeq > 0 && en.Seq < in.FromSeq) || (in.ToSeq > 0 && en.Seq > in.ToSeq) {
					continue
				}
				picked = append(picked, en)
			}
			if len(picked) == 0 {
				return "", fmt.Errorf("no recorded actions of user %q in that range", u)
			}
			src, err := Translate([]Reproduction{{Name: in.Name, Entries: picked, Bug: in.Bug}}, SpecOptions{BaseURL: e.origins[0]})
			if err != nil {
				return "", err
			}
			if in.File == "" {
				return src, nil
			}
			if e.cfg.ArtifactDir == "" {
				return "", fmt.Errorf("no artifact directory configured; call without file to get the spec text")
			}
			name := filepath.Base(in.File)
			if name != in.File || !strings.HasSuffix(name, ".spec.ts") {
				return "", fmt.Errorf("file %q: want a plain file name ending in .spec.ts", in.File)
			}
			if err := os.MkdirAll(e.cfg.ArtifactDir, 0o700); err != nil {
				return "", err
			}
			p := filepath.Join(e.cfg.ArtifactDir, name)
			if err := safefile.WriteFile(p, []byte(src), 0o600); err != nil {
				return "", err
			}
			return fmt.Sprintf("wrote %s (%d steps)\n%s", p, len(picked), src), nil
		})
	return []tools.Tool{exec, snap, shot, spec}
}
