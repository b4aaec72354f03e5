package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// fixture serves a small app; third counts requests to a second origin
// that the page tries to load (they must be blocked).
type fixture struct {
	app   *httptest.Server
	third *httptest.Server
	hits  atomic.Int64
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{}
	f.third = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `document.body.style.background='red'`)
	}))
	t.Cleanup(f.third.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Shop</title></head><body style="margin:0;font:16px sans-serif">
<h1 id="title" data-plan="free">Plans</h1>
<ul><li class="row">Free</li><li class="row">Pro</li></ul>
<p id="now"></p>
<button data-testid="buy" onclick="document.getElementById('title').textContent='Thanks for buying Pro';document.getElementById('title').dataset.plan='pro';document.getElementById('done').hidden=false">Buy Pro</button>
<div id="done" hidden style="width:300px;height:200px;background:#2a7">Order confirmed</div>
<script src="%s/track.js"></script>
<script>document.getElementById('now').textContent = String(Date.now())</script>
</body></html>`, f.third.URL)
	})
	f.app = httptest.NewServer(mux)
	t.Cleanup(f.app.Close)
	return f
}

func str(s string) *string { return &s }
func num(n int) *int       { return &n }

func intents(t *testing.T, raw ...string) []browser.Intent {
	var out []browser.Intent
	for _, r := range raw {
		in, err := browser.ParseIntent([]byte(r))
		require.NoError(t, err)
		out = append(out, in)
	}
	return out
}

const buySuite = `name: shop
tasks:
  - id: buy
    task: Buy the Pro plan
    start: /
    steps: 3
    checks:
      dom:
        - {locator: "#done", visible: true}
        - {locator: "#title", text_equals: "Thanks for buying Pro"}
        - {locator: "#title", attribute: {name: data-plan, equals: pro}}
        - {locator: ".row", count: 2}
        - {url_matches: "/$"}
      visual: {reference: refs/buy.png, region: {x: 0, y: 0, width: 640, height: 400}}
      judge: {question: "Was the Pro plan bought?", reference: "yes, the page thanks for buying Pro"}
`

func loadSuite(t *testing.T, yaml string) *Suite {
	s, err := ParseSuite([]byte(yaml))
	require.NoError(t, err)
	s.Dir = t.TempDir()
	s.Viewport = Size{Width: 640, Height: 400}
	return s
}

// TestRunnerEndToEnd records a reference, then grades an honest agent (pass)
// and an agent that claims success without buying (caught), all graders on
// real Chromium.
func TestRunnerEndToEnd(t *testing.T) {
	f := newFixture(t)
	s := loadSuite(t, buySuite)
	ctx := context.Background()
	honest := &Scripted{Scripts: map[string]Script{"buy": {Intents: intents(t, `{"action":"click","target":"testid=buy"}`), Claim: true, Answer: "bought"}}}
	liar := &Scripted{Scripts: map[string]Script{"buy": {Claim: true, Answer: "bought"}}}

	// first run without --record: no reference, the visual grader fails
	r := &Runner{Harness: testHarness, Suite: s, Agent: honest, BaseURL: f.app.URL}
	rep, err := r.Run(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Rows, 1)
	assert.Equal(t, Pass, rep.Rows[0].DOM)
	assert.Equal(t, Fail, rep.Rows[0].Visual)
	assert.Contains(t, rep.Rows[0].VisRes.Error, "--record")
	assert.False(t, rep.Rows[0].Pass)

	// record: the reference and its date and viewport appear
	r.Record = true
	rep, err = r.Run(ctx)
	require.NoError(t, err)
	assert.True(t, rep.Rows[0].VisRes.Recorded)
	assert.True(t, rep.Rows[0].Pass)
	meta, err := os.ReadFile(filepath.Join(s.Dir, "refs/buy.json"))
	require.NoError(t, err)
	var m RefMeta
	require.NoError(t, json.Unmarshal(meta, &m))
	assert.Equal(t, Size{640, 400}, m.Viewport)
	assert.False(t, m.RecordedAt.IsZero())

	// the honest agent now passes against the reference
	r.Record = false
	rep, err = r.Run(ctx)
	require.NoError(t, err)
	row := rep.Rows[0]
	require.Empty(t, row.Error)
	assert.True(t, row.Pass, "%+v", row)
	assert.GreaterOrEqual(t, row.VisRes.SSIM, 0.99)
	assert.Equal(t, 1, row.Steps)
	assert.Empty(t, rep.FalseClaims)
	assert.Zero(t, f.hits.Load(), "third-party host blocked")

	// the liar claims success; DOM and visual disagree, and it is listed
	r.Agent = liar
	rep, err = r.Run(ctx)
	require.NoError(t, err)
	row = rep.Rows[0]
	assert.True(t, row.Claimed)
	assert.False(t, row.Pass)
	assert.Equal(t, Fail, row.DOM)
	assert.Equal(t, Fail, row.Visual)
	assert.Less(t, row.VisRes.SSIM, DefaultThreshold)
	assert.True(t, row.FalseClaim)
	require.Len(t, rep.FalseClaims, 1)
	assert.Contains(t, rep.FalseClaims[0], "buy#1")
	assert.Contains(t, rep.FalseClaims[0], "#done visible")
	assert.Equal(t, 1, rep.Total.FalseClaims)
	assert.Contains(t, rep.Table(), "| buy | FAIL | 0/1 (0%)")
	dir := t.TempDir()
	require.NoError(t, rep.Write(dir))
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "Self-reported success that was wrong (1)")
}

func TestGradeDOMPassAndFail(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	eng, sess, page, err := testHarness.Open(ctx, Size{640, 400}, f.app.URL+"/", PageOptions{Frozen: DefaultFrozenTime})
	require.NoError(t, err)
	defer eng.Close()
	require.True(t, sess.Do(ctx, browser.Intent{Action: browser.ActNavigate, URL: f.app.URL + "/"}).OK)

	// time is frozen for the page
	now, err := page.Locator("#now").InnerText()
	require.NoError(t, err)
	assert.Equal(t, strconv.FormatInt(DefaultFrozenTime.UnixMilli(), 10), now)

	checks := []DOMCheck{
		{Locator: "#title", Visible: true},
		{Locator: "#done", Hidden: true},
		{Locator: "#title", TextEquals: str("Plans")},
		{Locator: "#title", TextContains: str("Pla")},
		{Locator: ".row", Count: num(2)},
		{Locator: "#title", Attribute: &AttributeCheck{Name: "data-plan", Equals: "free"}},
		{URLMatches: `^http://127\.0\.0\.1:\d+/$`},
		// failing ones
		{Locator: "#done", Visible: true},
		{Locator: "#title", Hidden: true},
		{Locator: "#title", TextEquals: str("Pro")},
		{Locator: "#title", TextContains: str("zzz")},
		{Locator: ".row", Count: num(3)},
		{Locator: "#title", Attribute: &AttributeCheck{Name: "data-plan", Equals: "pro"}},
		{URLMatches: `/checkout$`},
		{Locator: "#missing", TextEquals: str("x")},
		{Locator: "###", Visible: true}, // a bad selector fails, no panic
	}
	for i := range checks {
		require.NoError(t, checks[i].validate())
	}
	res := GradeDOM(ctx, page, checks)
	require.Len(t, res, len(checks))
	for i, r := range res {
		assert.Equal(t, i < 7, r.Pass, "%s: %s", r.Check, r.Got)
	}
	assert.Equal(t, `text "Plans"`, res[9].Got)
	assert.Equal(t, "2 matches", res[11].Got)
}

func TestGradeJudge(t *testing.T) {
	in := JudgeInput{Task: "buy", Question: "bought?", Ref: "yes", Claim: "done", URL: "http://x/", PageText: "Thanks"}
	cases := []struct {
		replies []string
		yes     int
		pass    bool
	}{
		{[]string{"yes", "Yes.", "no"}, 2, true},
		{[]string{"no", "no", "yes"}, 1, false},
		{[]string{"yes", "Sure, it looks bought", "maybe"}, 1, false},
		{[]string{"YES", "yes!", "yes"}, 3, true},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.replies, ","), func(t *testing.T) {
			var rs []llm.Reply
			for _, r := range c.replies {
				rs = append(rs, llm.Say(r))
			}
			m := llm.NewScripted(rs...)
			res := GradeJudge(context.Background(), m, in)
			assert.Equal(t, c.yes, res.Yes)
			assert.Equal(t, c.pass, res.Pass)
			assert.Len(t, res.Votes, JudgeVotes)
			calls := m.Calls()
			require.Len(t, calls, JudgeVotes)
		})
	}
	// with a screenshot, the judge's message carries it as a PNG part
	shot := []byte("\x89PNG\r\n\x1a\nrest")
	m := llm.NewScripted(llm.Say("yes"), llm.Say("yes"), llm.Say("yes"))
	withShot := in
	withShot.Screenshot = shot
	assert.True(t, GradeJudge(context.Background(), m, withShot).Pass)
	human := m.Calls()[0].Messages[1]
	require.Len(t, human.Parts, 2)
	assert.Contains(t, human.Parts[0].(llms.TextContent).Text, "A screenshot of the final page follows.")
	assert.Equal(t, llms.BinaryContent{MIMEType: "image/png", Data: shot}, human.Parts[1])
	// an erroring model fails the judge without panicking
	res := GradeJudge(context.Background(), llm.NewScripted(), in)
	assert.False(t, res.Pass)
	assert.NotEmpty(t, res.Error)
}

// TestJudgeOnFinalPage wires the judge into a run: the visual reference is
// missing (visual fails), so the judge's majority decides the gate.
func TestJudgeOnFinalPage(t *testing.T) {
	f := newFixture(t)
	s := loadSuite(t, buySuite)
	honest := &Scripted{Scripts: map[string]Script{"buy": {Intents: intents(t, `{"action":"click","target":"testid=buy"}`), Claim: true}}}
	judge := llm.NewScriptedFunc(func(_ context.Context, msgs []llmsMessages, _ llmsCallOptions) (llm.Reply, error) {
		return llm.Say(judgeFromPage(msgs)), nil
	})
	r := &Runner{Harness: testHarness, Suite: s, Agent: honest, BaseURL: f.app.URL, Judge: judge}
	rep, err := r.Run(context.Background())
	require.NoError(t, err)
	row := rep.Rows[0]
	assert.Equal(t, Fail, row.Visual)
	assert.Equal(t, Pass, row.Judge)
	assert.True(t, row.Pass)

	r.Agent = &Scripted{Scripts: map[string]Script{"buy": {Claim: true}}}
	rep, err = r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Fail, rep.Rows[0].Judge)
	assert.True(t, rep.Rows[0].FalseClaim)

	// judge.screenshot: the judge also gets the final page as a PNG
	var images [][]byte
	var mu sync.Mutex
	looking := llm.NewScriptedFunc(func(_ context.Context, msgs []llmsMessages, _ llmsCallOptions) (llm.Reply, error) {
		for _, p := range msgs[len(msgs)-1].Parts {
			if b, ok := p.(llms.BinaryContent); ok && b.MIMEType == "image/png" {
				mu.Lock()
				images = append(images, b.Data)
				mu.Unlock()
			}
		}
		return llm.Say(judgeFromPage(msgs)), nil
	})
	s.Tasks[0].Checks.Judge.Screenshot = true
	r = &Runner{Harness: testHarness, Suite: s, Agent: honest, BaseURL: f.app.URL, Judge: looking}
	rep, err = r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Pass, rep.Rows[0].Judge)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, images, JudgeVotes, "every vote saw the screenshot")
	cfg, err := png.DecodeConfig(bytes.NewReader(images[0]))
	require.NoError(t, err)
	assert.Equal(t, s.Viewport.Width, cfg.Width)
}
