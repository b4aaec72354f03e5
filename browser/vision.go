package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/tools"
	"github.com/mxschmitt/playwright-go"
)

// MaxVisionImageBytes bounds a screenshot sent to a vision model: a bigger
// one is refused (crop to an element, or leave full_page off).
const MaxVisionImageBytes = 5 << 20

// CaptureImage takes a PNG screenshot of the user's page: the viewport,
// the whole scrollable page (fullPage), or only the element target names
// (a snapshot ref or a stable selector, as in intents). It is not an
// action: nothing is recorded on the tape and no health findings are
// collected. It waits at most the engine's action timeout.
func (s *Session) CaptureImage(ctx context.Context, target string, fullPage bool) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("browser: screenshot: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var png []byte
	var err error
	if strings.TrimSpace(target) != "" {
		r, rerr := s.resolve(target, false)
		if rerr != nil {
			return nil, rerr
		}
		png, err = r.loc.Screenshot(playwright.LocatorScreenshotOptions{Timeout: s.timeout()})
	} else {
		png, err = s.page.Screenshot(playwright.PageScreenshotOptions{FullPage: playwright.Bool(fullPage), Timeout: s.timeout()})
	}
	if err != nil {
		return nil, fmt.Errorf("browser: screenshot: %s", oneLine(err))
	}
	return png, nil
}

// VisionFunc asks a vision-capable model a question about an image and
// returns its answer. llm.VisionFunc(model) makes one from a langchaingo
// model (the browser package does not import llm).
type VisionFunc func(ctx context.Context, question string, image []byte, mimeType string) (string, error)

// VisualArgs are the arguments of analyze_visual_state.
type VisualArgs struct {
	Question string `json:"question" jsonschema:"description=what to ask about the page as it looks (layout\\, overlap\\, clipped or unreadable text\\, wrong colours\\, a broken image)"`
	Target   string `json:"target,omitempty" jsonschema:"description=crop the screenshot to this element: a snapshot ref (e12) or a stable selector (default: the viewport)"`
	FullPage bool   `json:"full_page,omitempty" jsonschema:"description=send the whole scrollable page instead of the viewport"`
	User     string `json:"user,omitempty" jsonschema:"description=the user whose page to look at (default: the engine's default user)"`
}

// BugShotArgs are the arguments of capture_bug_screenshot.
type BugShotArgs struct {
	Name     string `json:"name" jsonschema:"description=a short name for the bug this screenshot is evidence of (it names the file)"`
	Target   string `json:"target,omitempty" jsonschema:"description=capture only this element: a snapshot ref (e12) or a stable selector (default: the viewport)"`
	FullPage bool   `json:"full_page,omitempty" jsonschema:"description=capture the whole scrollable page"`
	Note     string `json:"note,omitempty" jsonschema:"description=what the screenshot shows (kept beside it)"`
	User     string `json:"user,omitempty" jsonschema:"description=the user whose page to capture"`
}

// BugShot is the record kept beside a bug screenshot (<file>.json).
type BugShot struct {
	Name   string    `json:"name"`
	File   string    `json:"file"`
	URL    string    `json:"url"`
	Title  string    `json:"title"`
	User   string    `json:"user"`
	Target string    `json:"target,omitempty"`
	Note   string    `json:"note,omitempty"`
	Time   time.Time `json:"time"`
	Bytes  int       `json:"bytes"`
}

// SaveBugShot writes png as <dir>/<name>-<unix-nanos>.png with its BugShot
// record beside it and returns the record. name is reduced to
// [A-Za-z0-9_-] and 60 characters.
func SaveBugShot(dir string, png []byte, shot BugShot) (BugShot, error) {
	if dir == "" {
		return BugShot{}, errors.New("no artifact directory configured for bug screenshots")
	}
	if len(png) == 0 {
		return BugShot{}, errors.New("empty screenshot")
	}
	name := strings.Trim(safeName(strings.TrimSpace(shot.Name)), "_")
	if name == "" {
		return BugShot{}, errors.New(`bad arguments: "name" is required, e.g. "overlapping-buttons"`)
	}
	if len(name) > 60 {
		name = name[:60]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return BugShot{}, err
	}
	if shot.Time.IsZero() {
		shot.Time = time.Now().UTC()
	}
	p := filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, shot.Time.UnixNano()))
	if err := os.WriteFile(p, png, 0o644); err != nil {
		return BugShot{}, err
	}
	shot.File, shot.Bytes = p, len(png)
	meta, _ := json.MarshalIndent(shot, "", "  ")
	if err := os.WriteFile(strings.TrimSuffix(p, ".png")+".json", meta, 0o644); err != nil {
		return BugShot{}, err
	}
	return shot, nil
}

// AnalyzeVisual answers a question about how the user's page looks: it
// captures the screenshot (cropped to target when set) and asks ask.
func (s *Session) AnalyzeVisual(ctx context.Context, ask VisionFunc, in VisualArgs) (string, error) {
	if ask == nil {
		return "", errors.New("no vision model configured")
	}
	if strings.TrimSpace(in.Question) == "" {
		return "", errors.New(`bad arguments: "question" is required`)
	}
	png, err := s.CaptureImage(ctx, in.Target, in.FullPage)
	if err != nil {
		return "", err
	}
	if len(png) > MaxVisionImageBytes {
		return "", fmt.Errorf("the screenshot is %d bytes, over the %d-byte limit: crop it to an element with target", len(png), MaxVisionImageBytes)
	}
	answer, err := ask(ctx, in.Question, png, "image/png")
	if err != nil {
		return "", fmt.Errorf("vision model: %w", err)
	}
	what := "the viewport"
	switch {
	case in.Target != "":
		what = "element " + in.Target
	case in.FullPage:
		what = "the whole page"
	}
	return fmt.Sprintf("%s\n\n(about a %d-byte PNG of %s at %s)", strings.TrimSpace(answer), len(png), what, s.page.URL()), nil
}

// VisionTools returns capture_bug_screenshot, which saves a named
// screenshot as bug evidence in <ArtifactDir>/bugs (with a JSON record of
// page, user and note beside it), and, when ask is set,
// analyze_visual_state, which sends the current screenshot (optionally
// cropped to an element) and a question to a vision-capable model and
// returns its answer. Both act as defaultUser when a call names no user.
func VisionTools(e *Engine, defaultUser string, ask VisionFunc) []tools.Tool {
	if defaultUser == "" {
		defaultUser = "default"
	}
	user := func(u string) string {
		if u == "" {
			return defaultUser
		}
		return u
	}
	shot := tools.New("capture_bug_screenshot",
		"Save a named PNG screenshot of the page (or of one element) as evidence of a bug; returns the saved file.",
		func(ctx context.Context, in BugShotArgs) (string, error) {
			s, err := e.User(ctx, user(in.User))
			if err != nil {
				return "", err
			}
			if e.cfg.ArtifactDir == "" {
				return "", errors.New("no artifact directory configured for bug screenshots")
			}
			png, err := s.CaptureImage(ctx, in.Target, in.FullPage)
			if err != nil {
				return "", err
			}
			rec, err := SaveBugShot(filepath.Join(e.cfg.ArtifactDir, "bugs"), png, BugShot{Name: in.Name, URL: s.URL(), Title: s.title(), User: s.User(), Target: in.Target, Note: in.Note})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("saved bug evidence %s (%d bytes PNG of %s)", rec.File, rec.Bytes, rec.URL), nil
		})
	out := []tools.Tool{shot}
	if ask != nil {
		out = append(out, tools.New("analyze_visual_state",
			"Ask a vision model a question about how the page looks now (a screenshot, optionally cropped to one element): overlapping or clipped elements, unreadable text, broken images, wrong colours — what the DOM does not show.",
			func(ctx context.Context, in VisualArgs) (string, error) {
				s, err := e.User(ctx, user(in.User))
				if err != nil {
					return "", err
				}
				return s.AnalyzeVisual(ctx, ask, in)
			}))
	}
	return out
}
