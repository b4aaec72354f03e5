package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/pullreq"
	"github.com/agentgraph/agentgraph/examples/explorer/pullreq/pullreqtest"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/tools"
	"github.com/agentgraph/agentgraph/tools/mcp"
)

func TestMissionPromptCap(t *testing.T) {
	// A cut file list says so in the planner's prompt.
	var files []pullreq.File
	for i := range 200 {
		files = append(files, pullreq.File{Path: fmt.Sprintf("f%03d.go", i), Additions: 1})
	}
	cut := pullreq.PR{Files: files}.Cut(pullreq.DefaultBudget())
	assert.Contains(t, pullreq.PlanPrompt(cut, nil), "Changed files (80 of 200)")

	long := strings.Repeat("ü", 2000) // 2-byte runes
	assert.Equal(t, long[:10], mission.CapPrompt(long[:10]))
	c := mission.CapPrompt(long)
	assert.LessOrEqual(t, len(c), mission.MaxPRMissionPrompt)
	assert.True(t, strings.HasSuffix(c, "…"))
	assert.True(t, json.Valid(mustJSON(t, c)))

	// path missions naming long paths stay within the cap
	pr := pullreq.PR{Ref: pullreq.Ref{Owner: "acme", Repo: "shop", Number: 9}, Title: strings.Repeat("T", 500)}
	for i := range 8 {
		pr.Files = append(pr.Files, pullreq.File{Path: "web/projects/" + strings.Repeat(fmt.Sprintf("segment%d/", i), 30) + "projects.go", Additions: 1})
	}
	ms := pullreq.PathMissions(pr, nil)
	require.NotEmpty(t, ms)
	for _, m := range ms {
		assert.LessOrEqual(t, len(m.Prompt), mission.MaxPRMissionPrompt)
	}
	// a model's long prompt is cut, not refused
	answer := fmt.Sprintf(`{"missions": [{"thread_id": "pr-9-x", "prompt": %q}]}`, strings.Repeat("explore every form; ", 200))
	got, err := pullreq.ParseModelMissions(answer, "http://127.0.0.1:1")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.LessOrEqual(t, len(got[0].Prompt), mission.MaxPRMissionPrompt)
	assert.True(t, strings.HasPrefix(got[0].Prompt, "explore every form; "))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// fakeGH puts a gh script first on PATH that answers `pr view … --json` with
// the recorded view JSON and `pr diff` with the diff, and logs its
// arguments to the returned file.
func fakeGH(t *testing.T, view, diff string, fail string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "view.json"), []byte(view), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pr.diff"), []byte(diff), 0o644))
	log := filepath.Join(dir, "args.log")
	script := fmt.Sprintf(`#!/bin/sh
echo "$@" >> %q
if [ -n %q ]; then echo %q >&2; exit 1; fi
case "$1 $2" in
  "pr view") cat %q ;;
  "pr diff") cat %q ;;
  *) echo "unknown command $1 $2" >&2; exit 2 ;;
esac
`, log, fail, fail, filepath.Join(dir, "view.json"), filepath.Join(dir, "pr.diff"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gh"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

const ghView = `{"body":"Adds sorting to the projects list.\n\nAlso tweaks settings.","files":[{"path":"internal/demoapp/templates/projects.html","additions":40,"deletions":3},{"path":"internal/demoapp/settings.go","additions":5,"deletions":1},{"path":"README.md","additions":2,"deletions":0}],"title":"Sortable projects"}`

func TestGHCLIFetch(t *testing.T) {
	diff := pullreqtest.FileDiff("internal/demoapp/templates/projects.html", 800) + pullreqtest.FileDiff("internal/demoapp/settings.go", 300)
	ref := pullreq.Ref{Owner: "acme", Repo: "shop", Number: 42}

	t.Run("ok", func(t *testing.T) {
		log := fakeGH(t, ghView, diff, "")
		pr, err := pullreq.GHCLI{}.FetchPR(context.Background(), ref)
		require.NoError(t, err)
		assert.Equal(t, "Sortable projects", pr.Title)
		assert.Contains(t, pr.Body, "sorting")
		assert.Equal(t, "gh", pr.Source)
		assert.Equal(t, diff, pr.Diff)
		require.Len(t, pr.Files, 3)
		assert.Equal(t, pullreq.File{Path: "internal/demoapp/templates/projects.html", Additions: 40, Deletions: 3}, pr.Files[0])
		args, err := os.ReadFile(log)
		require.NoError(t, err)
		assert.Equal(t, "pr view https://github.com/acme/shop/pull/42 --json title,body,files,changedFiles\npr diff https://github.com/acme/shop/pull/42\n", string(args))
	})
	t.Run("gh fails", func(t *testing.T) {
		fakeGH(t, ghView, diff, "GraphQL: Could not resolve to a pullreq.PR with the number of 42.")
		_, err := pullreq.GHCLI{}.FetchPR(context.Background(), ref)
		var se *SetupError
		require.ErrorAs(t, err, &se)
		assert.Contains(t, err.Error(), "gh pr view: GraphQL: Could not resolve")
		assert.Equal(t, ExitSetup, ExitCode(report.Result{}, err, FailOnNew))
	})
	t.Run("bad output", func(t *testing.T) {
		fakeGH(t, "not json", diff, "")
		_, err := pullreq.GHCLI{}.FetchPR(context.Background(), ref)
		assert.ErrorContains(t, err, "gh pr view: unexpected output")
	})
	t.Run("gh missing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := pullreq.GHCLI{}.FetchPR(context.Background(), ref)
		var se *SetupError
		require.ErrorAs(t, err, &se)
		assert.Contains(t, err.Error(), "the gh CLI is not installed")
		assert.Contains(t, err.Error(), `MCP server named "github"`)
	})
	t.Run("cancelled", func(t *testing.T) {
		fakeGH(t, ghView, diff, "")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := pullreq.GHCLI{}.FetchPR(ctx, ref)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

// The arguments of the official GitHub MCP server's PR tools (strictly
// decoded: a call with another argument fails).
type prArgs struct {
	Owner      string `json:"owner"`
	Repo       string `json:"repo"`
	PullNumber int    `json:"pullNumber"`
}
type prPageArgs struct {
	Owner      string `json:"owner"`
	Repo       string `json:"repo"`
	PullNumber int    `json:"pullNumber"`
	Page       int    `json:"page,omitempty"`
	PerPage    int    `json:"perPage,omitempty"`
}
type prReadArgs struct {
	Method     string `json:"method" jsonschema:"enum=get,enum=get_diff,enum=get_files"`
	Owner      string `json:"owner"`
	Repo       string `json:"repo"`
	PullNumber int    `json:"pullNumber"`
	Page       int    `json:"page,omitempty"`
	PerPage    int    `json:"perPage,omitempty"`
}

// fakeGitHubMCP serves the PR tools of github-mcp-server over streamable
// HTTP: pull_request_read (current) or the three get_pull_request* tools
// (older versions). It returns the mcp_servers.json path.
func fakeGitHubMCP(t *testing.T, legacy bool, diff string) string {
	t.Helper()
	pr := `{"number":42,"title":"Sortable projects","body":"Adds sorting.","state":"open","html_url":"https://github.com/acme/shop/pull/42"}`
	files := `[{"filename":"web/pages/projects/index.tsx","status":"modified","additions":40,"deletions":3,"changes":43,"patch":"@@"},{"filename":"web/api/settings_handler.go","status":"modified","additions":5,"deletions":1,"changes":6}]`
	return fakeGitHubMCPWith(t, legacy, pr, func(page, _ int) string {
		if page > 1 {
			return "[]"
		}
		return files
	}, diff, nil)
}

// fakeGitHubMCPWith is fakeGitHubMCP with the pull request JSON, a files
// page function (page, perPage → JSON list) and a log of the pages asked.
func fakeGitHubMCPWith(t *testing.T, legacy bool, pr string, files func(page, perPage int) string, diff string, pages *[]int) string {
	t.Helper()
	var mu sync.Mutex
	filesPage := func(page, perPage int) string {
		mu.Lock()
		defer mu.Unlock()
		if pages != nil {
			*pages = append(*pages, page)
		}
		return files(max(page, 1), perPage)
	}
	check := func(owner, repo string, n int) error {
		if owner != "acme" || repo != "shop" || n != 42 {
			return fmt.Errorf("no pull request %s/%s#%d", owner, repo, n)
		}
		return nil
	}
	var ts []tools.Tool
	if legacy {
		ts = append(ts,
			tools.New("get_pull_request", "Get details of a specific pull request", func(_ context.Context, a prArgs) (string, error) {
				return pr, check(a.Owner, a.Repo, a.PullNumber)
			}),
			tools.New("get_pull_request_files", "Get the files changed in a pull request", func(_ context.Context, a prPageArgs) (string, error) {
				return filesPage(a.Page, a.PerPage), check(a.Owner, a.Repo, a.PullNumber)
			}),
			tools.New("get_pull_request_diff", "Get the diff of a pull request", func(_ context.Context, a prArgs) (string, error) {
				return diff, check(a.Owner, a.Repo, a.PullNumber)
			}))
	} else {
		ts = append(ts, tools.New("pull_request_read", "Get information on a specific pull request", func(_ context.Context, a prReadArgs) (string, error) {
			if err := check(a.Owner, a.Repo, a.PullNumber); err != nil {
				return "", err
			}
			switch a.Method {
			case "get":
				return pr, nil
			case "get_files":
				return filesPage(a.Page, a.PerPage), nil
			case "get_diff":
				return diff, nil
			}
			return "", errors.New("unknown method " + a.Method)
		}))
	}
	ts = append(ts, tools.New("get_me", "Get my user", func(context.Context, struct{}) (string, error) { return `{"login":"me"}`, nil }))
	srv, err := mcp.NewServer("github-mcp-server", "test", ts...)
	require.NoError(t, err)
	hs := httptest.NewServer(mcp.HTTPHandler(srv, "/mcp"))
	t.Cleanup(hs.Close)
	cfgPath := filepath.Join(t.TempDir(), "mcp_servers.json")
	require.NoError(t, os.WriteFile(cfgPath, fmt.Appendf(nil, `{"mcpServers": {"github": {"url": %q}}}`, hs.URL+"/mcp"), 0o644))
	return cfgPath
}

// TestMCPPRSource300Files reads a pull request of 300 files over MCP: the
// files come 100 a page, so the source pages until the count is reached,
// and the cut keeps 80 of them listed and every file's diff header.
func TestMCPPRSource300Files(t *testing.T) {
	var all []map[string]any
	var diff strings.Builder
	for i := range 300 {
		name := fmt.Sprintf("web/pages/area%03d/view.go", i)
		all = append(all, map[string]any{"filename": name, "status": "modified", "additions": 1, "deletions": 1, "changes": 2})
		diff.WriteString(pullreqtest.HunkDiff(name, 1+(i%7)*20))
	}
	pr := `{"number":42,"title":"Big","body":"` + strings.Repeat("b", 20<<10) + `","changed_files":300}`
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			var pages []int
			cfgPath := fakeGitHubMCPWith(t, legacy, pr, func(page, perPage int) string {
				if perPage <= 0 {
					perPage = 30 // GitHub's default
				}
				lo, hi := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
				return string(mustJSON(t, all[lo:hi]))
			}, diff.String(), &pages)
			src, done, err := (&Config{MCPConfig: cfgPath}).prSource(context.Background())
			require.NoError(t, err)
			defer done()
			got, err := src.FetchPR(context.Background(), pullreq.Ref{Owner: "acme", Repo: "shop", Number: 42})
			require.NoError(t, err)
			assert.Equal(t, []int{1, 2, 3}, pages, "100 a page, past the first hundred")
			require.Len(t, got.Files, 300)
			assert.Equal(t, "web/pages/area299/view.go", got.Files[299].Path)
			assert.Equal(t, 300, got.TotalFiles)

			cut := got.Cut(pullreq.DefaultBudget())
			assert.Len(t, cut.Files, 80)
			assert.LessOrEqual(t, len(cut.Body), 8<<10)
			assert.LessOrEqual(t, len(cut.Diff), 40<<10)
			for i := range 300 {
				assert.Contains(t, cut.Diff, fmt.Sprintf("diff --git a/web/pages/area%03d/view.go", i))
			}
			plan, err := pullreq.PlanPR(context.Background(), cut, nil, "http://127.0.0.1:1", nil, nil)
			require.NoError(t, err)
			require.NotEmpty(t, plan.Missions)
			for _, m := range plan.Missions {
				assert.LessOrEqual(t, len(m.Prompt), mission.MaxPRMissionPrompt)
			}
		})
	}
}

func TestMCPPRSource(t *testing.T) {
	diff := pullreqtest.FileDiff("web/pages/projects/index.tsx", 600)
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			cfgPath := fakeGitHubMCP(t, legacy, diff)
			// gh would fail: the MCP server must be the one used.
			fakeGH(t, "{}", "", "gh must not be called")
			cfg := Config{MCPConfig: cfgPath}
			src, done, err := cfg.prSource(context.Background())
			require.NoError(t, err)
			defer done()
			require.IsType(t, pullreq.MCPSource{}, src)
			pr, err := src.FetchPR(context.Background(), pullreq.Ref{Owner: "acme", Repo: "shop", Number: 42})
			require.NoError(t, err)
			assert.Equal(t, "mcp:github", pr.Source)
			assert.Equal(t, "Sortable projects", pr.Title)
			assert.Equal(t, "Adds sorting.", pr.Body)
			assert.Equal(t, diff, pr.Diff)
			assert.Equal(t, []pullreq.File{{Path: "web/pages/projects/index.tsx", Additions: 40, Deletions: 3}, {Path: "web/api/settings_handler.go", Additions: 5, Deletions: 1}}, pr.Files)

			_, err = src.FetchPR(context.Background(), pullreq.Ref{Owner: "acme", Repo: "shop", Number: 41})
			var se *SetupError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), "no pull request acme/shop#41", "the server's error reaches the user")
		})
	}
	t.Run("no github server: gh", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "mcp_servers.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"mcpServers": {"files": {"command": "mcp-files"}}}`), 0o644))
		src, done, err := (&Config{MCPConfig: p}).prSource(context.Background())
		require.NoError(t, err)
		defer done()
		assert.IsType(t, pullreq.GHCLI{}, src)
	})
	t.Run("bad config", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "mcp_servers.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"mcpServers": {"github": {"colour": "red"}}}`), 0o644))
		_, _, err := (&Config{MCPConfig: p}).prSource(context.Background())
		assert.ErrorIs(t, err, ErrUsage)
		assert.ErrorContains(t, err, "colour")
	})
}

func TestPathMissions(t *testing.T) {
	pr := pullreq.PR{Ref: pullreq.Ref{Owner: "acme", Repo: "shop", Number: 42}, Title: "Sortable projects", Files: []pullreq.File{
		{Path: "internal/demoapp/templates/projects.html", Additions: 40, Deletions: 3},
		{Path: "internal/demoapp/projects.go", Additions: 20},
		{Path: "internal/demoapp/projects_test.go", Additions: 30},
		{Path: "web/pages/settings/index.tsx", Additions: 5},
		{Path: "handlers/search_handler.go", Additions: 7},
		{Path: "app/routes/checkout.$step.tsx", Additions: 9},
		{Path: "README.md", Additions: 100},
		{Path: ".github/workflows/ci.yml", Additions: 100},
		{Path: "go.sum", Additions: 100},
	}}
	links := []string{"/", "/projects", "/projects/new", "/search", "/settings", "/release-notes"}
	ms := pullreq.PathMissions(pr, links)
	require.Len(t, ms, 4)
	want := []struct{ thread, start string }{
		{"pr-42-projects", "/projects"},
		{"pr-42-checkout", ""},
		{"pr-42-search", "/search"},
		{"pr-42-settings", "/settings"},
	}
	for i, w := range want {
		assert.Equal(t, w.thread, ms[i].ThreadID)
		assert.Equal(t, w.start, ms[i].StartURL, w.thread)
		require.NoError(t, mission.ValidThread(ms[i].ThreadID))
	}
	assert.Contains(t, ms[0].Prompt, "internal/demoapp/templates/projects.html, internal/demoapp/projects.go, internal/demoapp/projects_test.go")
	assert.Contains(t, ms[0].Prompt, "Sortable projects")
	assert.Contains(t, ms[1].Prompt, "app/routes/checkout.$step.tsx")
	for _, m := range ms {
		assert.NotContains(t, m.Prompt, "README.md")
	}

	t.Run("bounded", func(t *testing.T) {
		var many pullreq.PR
		for i := range 30 {
			many.Files = append(many.Files, pullreq.File{Path: fmt.Sprintf("pages/area%c.go", 'a'+i%26), Additions: i})
		}
		assert.Len(t, pullreq.PathMissions(many, nil), pullreq.MaxPRMissions)
	})
	t.Run("docs only: the whole app", func(t *testing.T) {
		ms := pullreq.PathMissions(pullreq.PR{Ref: pullreq.Ref{Number: 3}, Files: []pullreq.File{{Path: "docs/intro.md"}, {Path: "README.md"}}}, nil)
		require.Len(t, ms, 1)
		assert.Equal(t, "pr-3", ms[0].ThreadID)
		assert.Contains(t, ms[0].Prompt, "whole app")
	})
}

func TestPlanPRWithModel(t *testing.T) {
	pr := pullreq.PR{Ref: pullreq.Ref{Owner: "acme", Repo: "shop", Number: 42}, Title: "Sortable projects", Body: "Adds sorting.",
		Files: []pullreq.File{{Path: "web/projects.go", Additions: 3}}, Diff: pullreqtest.FileDiff("web/projects.go", 300), Cuts: []string{"diff: 1 of 2 bytes"}}
	const target = "http://127.0.0.1:8080"
	good := "Here you go:\n```json\n" + `{"missions": [{"thread_id": "pr-42-sort", "prompt": "Sort the projects list by every column, twice", "start_url": "http://127.0.0.1:8080/projects?sort=name", "team": "standard", "budget": 40}, {"thread_id": "pr-42-a11y", "prompt": "Check the new sort buttons with a keyboard", "team": "advanced"}]}` + "\n```"
	tests := []struct {
		name       string
		replies    []llm.Reply
		by         string
		threads    []string
		errs       int
		retryNames string // what the second call must tell the model
	}{
		{"valid JSON", []llm.Reply{llm.Say(good)}, "model", []string{"pr-42-sort", "pr-42-a11y"}, 0, ""},
		{"garbage, then valid", []llm.Reply{llm.Say("Sure! I'd test sorting."), llm.Say(good)}, "model", []string{"pr-42-sort", "pr-42-a11y"}, 1, "no JSON object"},
		{"bad missions, then valid", []llm.Reply{llm.Say(`{"missions": [{"thread_id": "bad id!", "prompt": ""}]}`), llm.Say(good)}, "model", []string{"pr-42-sort", "pr-42-a11y"}, 1, "prompt is required"},
		{"off-target start URL, then valid", []llm.Reply{llm.Say(`{"missions": [{"thread_id": "x", "prompt": "p", "start_url": "https://evil.example/"}]}`), llm.Say(good)}, "model", []string{"pr-42-sort", "pr-42-a11y"}, 1, "not within the app"},
		{"garbage twice: path missions", []llm.Reply{llm.Say("no"), llm.Say(`{"missions": `)}, "paths", []string{"pr-42-projects"}, 2, "no JSON object"},
		{"model down: path missions", []llm.Reply{{Err: &llm.CallError{Status: 503, Transient: true, Err: errors.New("unavailable")}}}, "paths", []string{"pr-42-projects"}, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := llm.NewScripted(tc.replies...)
			plan, err := pullreq.PlanPR(context.Background(), pr, model, target, []string{"/projects"}, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.by, plan.By)
			var threads []string
			for _, m := range plan.Missions {
				threads = append(threads, m.ThreadID)
			}
			assert.Equal(t, tc.threads, threads)
			assert.Len(t, plan.ModelErrors, tc.errs)
			calls := model.Calls()
			require.NotEmpty(t, calls)
			first := calls[0].Messages
			require.Len(t, first, 2)
			prompt := first[1].Parts[0].(llms.TextContent).Text
			for _, want := range []string{pr.Ref.URL(), "Sortable projects", "Adds sorting.", "web/projects.go (+3 −0)", "diff --git a/web/projects.go", "/projects", "Cut to budget: diff: 1 of 2 bytes"} {
				assert.Contains(t, prompt, want)
			}
			if tc.retryNames != "" {
				require.Len(t, calls, 2, "one retry")
				last := calls[1].Messages[len(calls[1].Messages)-1]
				assert.Contains(t, last.Parts[0].(llms.TextContent).Text, tc.retryNames)
			}
			if plan.By == "model" {
				assert.Equal(t, "/projects?sort=name", plan.Missions[0].StartURL, "an absolute URL within the app becomes its path")
				assert.Equal(t, 40, plan.Missions[0].Budget)
				assert.Equal(t, mission.TeamAdvanced, plan.Missions[1].Team)
			} else {
				assert.Equal(t, "/projects", plan.Missions[0].StartURL)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := pullreq.PlanPR(ctx, pr, llm.NewScripted(llm.Say("x")), target, nil, nil)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

// TestRunPRMissions runs the explorer with --pr-url against the notes
// fixture app, the pull request coming from a fake gh: without a model the
// missions come from the changed paths, start where the app links the
// area, and run; with one, the model's missions run. The plan is written
// to pr_missions.json.
func TestRunPRMissions(t *testing.T) {
	view := `{"title":"Note form validation","body":"Validates the new-note form; fixes the stats page.","files":[` +
		`{"path":"web/templates/new.html","additions":12,"deletions":2},{"path":"web/handlers/stats_handler.go","additions":3,"deletions":1},{"path":"docs/notes.md","additions":9,"deletions":0}]}`
	diff := pullreqtest.FileDiff("web/templates/new.html", 400) + pullreqtest.FileDiff("web/handlers/stats_handler.go", 200)
	tests := []struct {
		name    string
		model   func(target string) llms.Model
		by      string
		threads []string
		starts  []string
	}{
		{"paths", nil, "paths", []string{"pr-5-new", "pr-5-stats"}, []string{"/new", "/stats"}},
		{"model", func(target string) llms.Model {
			return llm.NewScripted(llm.Say(fmt.Sprintf(`{"missions":[{"thread_id":"pr-5-form","prompt":"Submit the new-note form with empty and long text","start_url":"%s/new"}]}`, target)))
		}, "model", []string{"pr-5-form"}, []string{"/new"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := fixtureApp(t)
			log := fakeGH(t, view, diff, "")
			dir := t.TempDir()
			cfg := Config{Target: app.URL, PRURL: "https://github.com/acme/notes/pull/5", Budget: 3, ReportDir: dir, Browser: testBrowser}
			if tc.model != nil {
				cfg.PlannerModel = tc.model(app.URL)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			res, err := Run(ctx, cfg)
			require.NoError(t, err)
			var threads, starts []string
			for _, m := range res.Missions {
				assert.Empty(t, m.Err)
				assert.Positive(t, m.Steps)
				threads = append(threads, m.Mission.ThreadID)
				starts = append(starts, m.Mission.StartURL)
				require.NotEmpty(t, m.Timeline)
				assert.Equal(t, m.Mission.StartURL, urlx.PathQuery(m.Timeline[0].Entry.URL), "the mission opened its start URL first")
			}
			assert.Equal(t, tc.threads, threads)
			assert.Equal(t, tc.starts, starts)
			args, err := os.ReadFile(log)
			require.NoError(t, err)
			assert.Contains(t, string(args), "pr view https://github.com/acme/notes/pull/5")

			var plan pullreq.PRPlan
			raw, err := os.ReadFile(filepath.Join(dir, "pr_missions.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &plan))
			assert.Equal(t, tc.by, plan.By)
			assert.Equal(t, "Note form validation", plan.PR.Title)
			assert.Equal(t, "gh", plan.PR.Source)
			assert.Len(t, plan.PR.Files, 3)
		})
	}
}

// TestPRCut300Files cuts a pull request of 300 files — a few huge, most
// small — to the designed budget: 40 KB of diff shared per file, 8 KB of
// description, 80 files listed.
func TestPRCut300Files(t *testing.T) {
	pr := pullreq.PR{Ref: pullreq.Ref{Owner: "acme", Repo: "shop", Number: 300}, Title: "Big refactor", Body: strings.Repeat("Why: ", 4000)}
	var diff strings.Builder
	sizes := map[string]int{}
	lines := map[string]int{}
	for i := range 300 {
		name := fmt.Sprintf("web/a%03d.go", i)
		n := 1 // most files: one changed line
		switch {
		case i%50 == 7:
			n = 400 // six huge files
		case i%30 == 3:
			n = 6 // ten middling ones
		}
		sec := pullreqtest.HunkDiff(name, n)
		sizes[name], lines[name] = len(sec), n
		diff.WriteString(sec)
		pr.Files = append(pr.Files, pullreq.File{Path: name, Additions: n, Deletions: n})
	}
	pr.Diff = diff.String()
	require.Greater(t, len(pr.Diff), 200<<10)

	got := pr.Cut(pullreq.DefaultBudget())
	assert.LessOrEqual(t, len(got.Body), 8<<10)
	assert.Len(t, got.Files, 80)
	assert.Equal(t, 300, got.TotalFiles)
	assert.LessOrEqual(t, len(got.Diff), 40<<10)
	assert.Greater(t, len(got.Diff), 36<<10, "the budget is used")

	secs := pullreq.SplitDiff(got.Diff)
	require.Len(t, secs, 300, "every file keeps its section, in order")
	var cut []int
	hugeShown := []int{}
	for i, sec := range secs {
		name := fmt.Sprintf("web/a%03d.go", i)
		require.True(t, strings.HasPrefix(sec, "diff --git a/"+name+" b/"+name+"\n"), "file %d keeps its header", i)
		assert.Contains(t, sec, "+\tnew line 0 of "+name, "file %d keeps its first changed line", i)
		if strings.Contains(sec, "[… cut:") {
			assert.NotContains(t, sec, "context before", "%s: changed lines come before context lines", name)
			cut = append(cut, i)
			if lines[name] == 400 {
				hugeShown = append(hugeShown, strings.Count(sec, "\n+\tnew line"))
			}
		} else {
			for k := range lines[name] {
				assert.Contains(t, sec, fmt.Sprintf("+\tnew line %d of %s", k, name), "%s keeps every changed line", name)
			}
		}
	}
	for _, i := range cut {
		assert.Greater(t, lines[fmt.Sprintf("web/a%03d.go", i)], 1, "only the larger files are cut, never a one-line change")
	}
	t.Logf("diff %d of %d bytes; %d files cut; the six huge files (400 lines changed each) show %v of their added lines", len(got.Diff), len(pr.Diff), len(cut), hugeShown)
	require.Len(t, hugeShown, 6, "every huge file is cut")
	for _, n := range hugeShown {
		assert.InDelta(t, hugeShown[0], n, 2, "the huge files share equally")
		assert.Greater(t, n, 5, "a cut file still shows its first changes")
	}
	assert.Contains(t, got.Diff, "[… diff budget: context lines left out of")
	assert.Contains(t, strings.Join(got.Cuts, "; "), "shared between 300 files")
	prompt := pullreq.PlanPrompt(got, nil)
	assert.Contains(t, prompt, "Changed files (80 of 300)")
	assert.Less(t, len(prompt), 60<<10, "the planner's prompt stays bounded")
}
