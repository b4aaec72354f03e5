package drive

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mxschmitt/playwright-go"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/internal/testapps/bugfarm"
)

// TestFixedBuildClean: every page of a fixed build, opened in Chromium
// (signed in when the app has a sign-in), shows no page error, no console
// error, no 4xx or 5xx, and no serious or critical axe-core violation — the
// fixed build is a correct app, so a finding on it is a false positive
// (go test ./internal/testapps/bugfarm/drive -run TestFixedBuildClean -bugfarm.seeds 1-20).
func TestFixedBuildClean(t *testing.T) {
	seeds, err := ParseSeeds(*seedsFlag)
	require.NoError(t, err)
	d := New(Options{})
	axeSrc, err := d.axe()
	require.NoError(t, err)
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			app := bugfarm.Generate(seed, bugfarm.Options{Fixed: true})
			base, stop, err := Serve(app)
			require.NoError(t, err)
			defer stop()
			for _, path := range app.Pages {
				problems := auditPage(t, base, app.SignInSteps(), path, axeSrc)
				require.Empty(t, problems, "seed %d, %s", seed, path)
			}
		})
	}
}

// auditPage opens path in a fresh context after pre and lists what is
// wrong with it.
func auditPage(t *testing.T, base string, pre []bugfarm.Step, path, axeSrc string) []string {
	t.Helper()
	bctx, err := testBrowser.Playwright().NewContext(playwright.BrowserNewContextOptions{BypassCSP: playwright.Bool(true)})
	require.NoError(t, err)
	defer func() { _ = bctx.Close() }()
	bctx.SetDefaultTimeout(10000)
	bctx.SetDefaultNavigationTimeout(10000)
	page, err := bctx.NewPage()
	require.NoError(t, err)
	var mu sync.Mutex
	var problems []string
	add := func(s string) { mu.Lock(); problems = append(problems, s); mu.Unlock() }
	page.On("pageerror", func(e error) { add("page error: " + e.Error()) })
	page.On("console", func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			add("console error: " + m.Text())
		}
	})
	page.On("response", func(r playwright.Response) {
		if r.Status() >= 400 {
			add(fmt.Sprintf("%d %s", r.Status(), r.URL()))
		}
	})
	for _, st := range pre {
		switch st.Op {
		case bugfarm.OpGoto:
			_, err = page.Goto(base + st.Path)
		case bugfarm.OpFill:
			err = page.Locator(st.Selector).Fill(st.Value)
		case bugfarm.OpClick:
			err = page.Locator(st.Selector).Click()
			if err == nil {
				err = page.WaitForURL(func(u string) bool { return !strings.HasSuffix(strings.SplitN(u, "?", 2)[0], "/signin") },
					playwright.PageWaitForURLOptions{Timeout: playwright.Float(10000)})
			}
		default:
			err = fmt.Errorf("sign-in step %s not played by this test", st.Op)
		}
		require.NoError(t, err, "sign-in step %+v", st)
	}
	_, err = page.Goto(base + path)
	require.NoError(t, err)
	require.NoError(t, page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateNetworkidle, Timeout: playwright.Float(10000)}))
	_, err = page.AddScriptTag(playwright.PageAddScriptTagOptions{Content: playwright.String(axeSrc)})
	require.NoError(t, err)
	v, err := page.Evaluate(axeRunJS, "")
	require.NoError(t, err)
	list, _ := v.([]any)
	for _, x := range list {
		add("axe: " + fmt.Sprint(x))
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), problems...)
}
