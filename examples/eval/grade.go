package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"
	"github.com/tmc/langchaingo/llms"
)

// DOMResult is the verdict of one DOM check.
type DOMResult struct {
	Check string `json:"check"`
	Pass  bool   `json:"pass"`
	// Got is what the page showed when the check failed.
	Got string `json:"got,omitempty"`
}

// GradeDOM runs every check on the final page with Playwright. A bad
// selector fails its check with the reason; it is not an error.
func GradeDOM(ctx context.Context, page playwright.Page, checks []DOMCheck) []DOMResult {
	out := make([]DOMResult, 0, len(checks))
	for _, c := range checks {
		if ctx.Err() != nil {
			out = append(out, DOMResult{Check: c.String(), Got: ctx.Err().Error()})
			continue
		}
		ok, got := domCheck(page, c)
		r := DOMResult{Check: c.String(), Pass: ok}
		if !ok {
			r.Got = got
		}
		out = append(out, r)
	}
	return out
}

func domCheck(page playwright.Page, c DOMCheck) (bool, string) {
	if c.JS != "" {
		return jsCheck(page, c)
	}
	if c.URLMatches != "" {
		re := c.url
		if re == nil {
			if err := c.validate(); err != nil {
				return false, err.Error()
			}
			re = c.url
		}
		u := page.URL()
		return re.MatchString(u), "url " + u
	}
	l := page.Locator(c.Locator)
	n, err := l.Count()
	if err != nil {
		return false, "locator: " + firstLine(err)
	}
	switch {
	case c.Count != nil:
		return n == *c.Count, fmt.Sprintf("%d matches", n)
	case c.Visible, c.Hidden:
		vis := false
		for i := range n {
			if v, err := l.Nth(i).IsVisible(); err == nil && v {
				vis = true
				break
			}
		}
		if c.Visible {
			return vis, fmt.Sprintf("%d matches, none visible", n)
		}
		return !vis, "visible"
	}
	if n == 0 {
		return false, "no match"
	}
	first := l.First()
	switch {
	case c.TextEquals != nil, c.TextContains != nil:
		txt, err := first.InnerText(playwright.LocatorInnerTextOptions{Timeout: playwright.Float(2000)})
		if err != nil {
			return false, "text: " + firstLine(err)
		}
		txt = strings.Join(strings.Fields(txt), " ")
		if c.TextEquals != nil {
			return txt == strings.Join(strings.Fields(*c.TextEquals), " "), fmt.Sprintf("text %q", txt)
		}
		return strings.Contains(txt, *c.TextContains), fmt.Sprintf("text %q", txt)
	case c.Attribute != nil:
		v, err := first.GetAttribute(c.Attribute.Name, playwright.LocatorGetAttributeOptions{Timeout: playwright.Float(2000)})
		if err != nil {
			return false, "attribute: " + firstLine(err)
		}
		return v == c.Attribute.Equals, fmt.Sprintf("%s=%q", c.Attribute.Name, v)
	}
	return false, "empty check"
}

// jsCheck evaluates c.JS in page within JSTimeout and compares the value
// with c.Equals as JSON (truthiness without Equals).
func jsCheck(page playwright.Page, c DOMCheck) (bool, string) {
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := page.Evaluate(c.JS)
		done <- result{v, err}
	}()
	var res result
	timer := time.NewTimer(JSTimeout)
	defer timer.Stop()
	select {
	case res = <-done:
	case <-timer.C:
		return false, fmt.Sprintf("js: no value within %v", JSTimeout)
	}
	if res.err != nil {
		return false, "js: " + firstLine(res.err)
	}
	got := jsonValue(res.v)
	gotText, _ := json.Marshal(got)
	if c.Equals == nil {
		return truthy(got), "value " + string(gotText)
	}
	want := jsonValue(c.Equals)
	wantText, _ := json.Marshal(want)
	return string(gotText) == string(wantText), "value " + string(gotText)
}

// jsonValue normalises v through JSON (numbers become float64, maps
// map[string]any) so that a page's value and a YAML value compare.
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return string(b)
	}
	return out
}

// truthy is JavaScript's truthiness of a JSON value (undefined arrives as
// nil).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// RefMeta is stored beside a reference screenshot (<name>.json).
type RefMeta struct {
	RecordedAt time.Time `json:"recorded_at"`
	Viewport   Size      `json:"viewport"`
	URL        string    `json:"url"`
	Width      int       `json:"width"`
	Height     int       `json:"height"`
}

// VisualResult is the verdict of a visual check.
type VisualResult struct {
	SSIM      float64 `json:"ssim"`
	Mismatch  float64 `json:"mismatch"`
	Threshold float64 `json:"threshold"`
	Pass      bool    `json:"pass"`
	// Recorded says the reference was missing and this screenshot became it.
	Recorded bool   `json:"recorded,omitempty"`
	Error    string `json:"error,omitempty"`
}

// GradeVisual compares a screenshot with the check's reference (path
// resolved against dir). When the reference is missing and record is set,
// the screenshot is stored as the reference with its RefMeta and the check
// passes as recorded.
func GradeVisual(shot []byte, c VisualCheck, dir string, record bool, meta RefMeta) VisualResult {
	res := VisualResult{Threshold: c.Threshold}
	if res.Threshold == 0 {
		res.Threshold = DefaultThreshold
	}
	path := c.Reference
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	cand, err := DecodePNG(shot)
	if err != nil {
		res.Error = "screenshot: " + err.Error()
		return res
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if !record {
			res.Error = fmt.Sprintf("no reference %s (run with --record to create it)", c.Reference)
			return res
		}
		meta.Width, meta.Height = cand.W, cand.H
		if err := writeReference(path, shot, meta); err != nil {
			res.Error = err.Error()
			return res
		}
		res.Recorded, res.Pass, res.SSIM = true, true, 1
		return res
	}
	if err != nil {
		res.Error = "reference: " + err.Error()
		return res
	}
	ref, err := DecodePNG(data)
	if err != nil {
		res.Error = fmt.Sprintf("reference %s: %v", c.Reference, err)
		return res
	}
	res.SSIM, res.Mismatch, err = Compare(ref, cand, c.Region)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Pass = res.SSIM >= res.Threshold && (c.MaxMismatch == 0 || res.Mismatch <= c.MaxMismatch)
	return res
}

func writeReference(path string, png []byte, meta RefMeta) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("record reference: %w", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("record reference: %w", err)
	}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(strings.TrimSuffix(path, ".png")+".json", append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("record reference: %w", err)
	}
	return nil
}

// JudgeVotes is how many times the judge is asked; the majority decides.
const JudgeVotes = 3

// JudgeRubric is the judge's system prompt.
const JudgeRubric = `You grade whether a web agent accomplished a task. You are strict.
Answer "yes" only if the final page, as shown, clearly satisfies the question and agrees with the reference answer.
Answer "no" if anything is missing, different, ambiguous, or only claimed by the agent but not visible on the page.
Do not trust the agent's claim. Reply with exactly one word: yes or no.`

// JudgeResult is the verdict of the LLM judge.
type JudgeResult struct {
	Votes []string `json:"votes"` // "yes", "no" or "invalid: …"
	Yes   int      `json:"yes"`
	Pass  bool     `json:"pass"`
	Error string   `json:"error,omitempty"`
}

// JudgeInput is what the judge sees.
type JudgeInput struct {
	Task     string
	Question string
	Ref      string
	Claim    string // the agent's answer or claim
	URL      string
	PageText string
	// Screenshot, when set, is a PNG of the final page, sent to the judge
	// as an image part after the text.
	Screenshot []byte
}

// GradeJudge asks model JudgeVotes times and passes on a majority of
// strict "yes" replies; any other reply is an invalid vote, counted as no.
func GradeJudge(ctx context.Context, model llms.Model, in JudgeInput) JudgeResult {
	var res JudgeResult
	text := in.PageText
	if len(text) > 6000 {
		text = text[:6000] + "\n[… cut]"
	}
	prompt := fmt.Sprintf("Task given to the agent: %s\nQuestion: %s\nReference answer: %s\nAgent's claim: %s\nFinal page URL: %s\nFinal page text:\n%s\n\nAnswer yes or no.",
		in.Task, in.Question, in.Ref, in.Claim, in.URL, text)
	human := llms.TextParts(llms.ChatMessageTypeHuman, prompt)
	if len(in.Screenshot) > 0 {
		human.Parts[0] = llms.TextContent{Text: prompt + "\nA screenshot of the final page follows."}
		human.Parts = append(human.Parts, llms.BinaryContent{MIMEType: "image/png", Data: in.Screenshot})
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, JudgeRubric),
		human,
	}
	for range JudgeVotes {
		resp, err := model.GenerateContent(ctx, msgs, llms.WithTemperature(0))
		if err != nil {
			res.Votes = append(res.Votes, "invalid: "+firstLine(err))
			res.Error = err.Error()
			continue
		}
		if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
			res.Votes = append(res.Votes, "invalid: empty reply")
			continue
		}
		v := ParseVote(resp.Choices[0].Content)
		res.Votes = append(res.Votes, v)
		if v == "yes" {
			res.Yes++
		}
	}
	res.Pass = res.Yes*2 > JudgeVotes
	return res
}

// ParseVote reads a strict yes/no reply: one word, case and trailing
// punctuation ignored. Anything else is "invalid: <reply>".
func ParseVote(reply string) string {
	w := strings.ToLower(strings.TrimSpace(reply))
	w = strings.TrimRight(w, ".!")
	if w == "yes" || w == "no" {
		return w
	}
	if len(reply) > 40 {
		reply = reply[:40] + "…"
	}
	return "invalid: " + reply
}
