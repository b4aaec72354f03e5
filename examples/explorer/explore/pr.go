package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/tools/mcp"
)

// PRRef names a GitHub pull request.
type PRRef struct {
	Owner, Repo string
	Number      int
}

// URL is the pull request's canonical address.
func (r PRRef) URL() string {
	return fmt.Sprintf("https://github.com/%s/%s/pull/%d", r.Owner, r.Repo, r.Number)
}

// ParsePRURL parses https://github.com/OWNER/REPO/pull/N (a trailing
// /files, /commits or #fragment is accepted). Anything else wraps ErrUsage.
func ParsePRURL(raw string) (PRRef, error) {
	bad := func(why string) (PRRef, error) {
		return PRRef{}, fmt.Errorf("%w: --pr-url %q: %s (want https://github.com/OWNER/REPO/pull/N)", ErrUsage, raw, why)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return bad(err.Error())
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return bad("not an http(s) URL")
	}
	if h := strings.ToLower(u.Hostname()); h != "github.com" && h != "www.github.com" {
		return bad("host " + u.Host + " is not github.com")
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" {
		return bad("not a pull request path")
	}
	if len(parts) > 5 || (len(parts) == 5 && !slices.Contains([]string{"files", "commits", "checks"}, parts[4])) {
		return bad("unexpected path after the pull request number")
	}
	owner, repo := parts[0], parts[1]
	if !reGitHubName.MatchString(owner) || !reGitHubName.MatchString(repo) {
		return bad("bad owner or repository name")
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return bad("pull request number " + strconv.Quote(parts[3]) + " is not a positive integer")
	}
	return PRRef{Owner: owner, Repo: repo, Number: n}, nil
}

var reGitHubName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// PullRequest is what the explorer reads of a pull request.
type PullRequest struct {
	Ref   PRRef    `json:"ref"`
	Title string   `json:"title"`
	Body  string   `json:"body"`
	Files []PRFile `json:"files"`
	// TotalFiles is the number of changed files before the budget cut
	// (0: len(Files)).
	TotalFiles int    `json:"total_files,omitempty"`
	Diff       string `json:"diff"`
	// Source says where it came from: "mcp:<server>" or "gh".
	Source string `json:"source"`
	// Cuts describes each budget cut (the texts carry markers too).
	Cuts []string `json:"cuts,omitempty"`
}

// PRFile is one changed file.
type PRFile struct {
	Path      string `json:"path"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

// PRSource fetches a pull request: the GitHub MCP server (MCPPRSource),
// the gh CLI (GHCLI) or anything else.
type PRSource interface {
	FetchPR(ctx context.Context, ref PRRef) (PullRequest, error)
}

// GHCLI fetches pull requests with the gh CLI (`gh pr view URL --json
// title,body,files` and `gh pr diff URL`), which must be installed and
// signed in.
type GHCLI struct {
	// Path of the gh binary ("": gh on PATH).
	Path string
}

// FetchPR implements PRSource. A missing gh or a failing call is a
// *SetupError carrying gh's own message.
func (g GHCLI) FetchPR(ctx context.Context, ref PRRef) (PullRequest, error) {
	bin := g.Path
	if bin == "" {
		bin = "gh"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: the gh CLI is not installed (%v); install it and run `gh auth login`, or configure an MCP server named %q", err, GitHubMCPServer)}
	}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, path, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return nil, &SetupError{Err: fmt.Errorf("--pr-url: gh %s: %s", strings.Join(args[:2], " "), clip(msg, 500))}
		}
		return stdout.Bytes(), nil
	}
	out, err := run("pr", "view", ref.URL(), "--json", "title,body,files")
	if err != nil {
		return PullRequest{}, err
	}
	var view struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		Files []struct {
			Path      string `json:"path"`
			Additions int    `json:"additions"`
			Deletions int    `json:"deletions"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &view); err != nil {
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: gh pr view: unexpected output: %v", err)}
	}
	diff, err := run("pr", "diff", ref.URL())
	if err != nil {
		return PullRequest{}, err
	}
	pr := PullRequest{Ref: ref, Title: view.Title, Body: view.Body, Diff: string(diff), Source: "gh"}
	for _, f := range view.Files {
		pr.Files = append(pr.Files, PRFile(f))
	}
	return pr, nil
}

// GitHubMCPServer is the name of the MCP server, in mcp_servers.json, that
// --pr-url uses when it is configured.
const GitHubMCPServer = "github"

// MCPPRSource fetches pull requests through the official GitHub MCP server
// (github/github-mcp-server): its pull_request_read tool (methods get,
// get_files, get_diff), or, in older versions, get_pull_request,
// get_pull_request_files and get_pull_request_diff; all take owner, repo
// and pullNumber.
type MCPPRSource struct {
	Session *mcp.Session
}

// FetchPR implements PRSource.
func (s MCPPRSource) FetchPR(ctx context.Context, ref PRRef) (PullRequest, error) {
	ts, err := s.Session.Tools(ctx)
	if err != nil {
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: list tools: %w", s.Session.Name, err)}
	}
	have := map[string]bool{}
	for _, t := range ts {
		have[t.Name()] = true
	}
	call := func(tool string, args map[string]any) (string, error) {
		args["owner"], args["repo"], args["pullNumber"] = ref.Owner, ref.Repo, ref.Number
		raw, err := json.Marshal(args)
		if err != nil {
			return "", err
		}
		out, err := s.Session.Call(ctx, tool, raw)
		if err != nil {
			return "", &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: %s: %w", s.Session.Name, tool, err)}
		}
		return out, nil
	}
	var getPR, getFiles, getDiff func() (string, error)
	switch {
	case have["pull_request_read"]:
		getPR = func() (string, error) { return call("pull_request_read", map[string]any{"method": "get"}) }
		getFiles = func() (string, error) {
			return call("pull_request_read", map[string]any{"method": "get_files", "perPage": 100})
		}
		getDiff = func() (string, error) { return call("pull_request_read", map[string]any{"method": "get_diff"}) }
	case have["get_pull_request"] && have["get_pull_request_files"] && have["get_pull_request_diff"]:
		getPR = func() (string, error) { return call("get_pull_request", map[string]any{}) }
		getFiles = func() (string, error) { return call("get_pull_request_files", map[string]any{"perPage": 100}) }
		getDiff = func() (string, error) { return call("get_pull_request_diff", map[string]any{}) }
	default:
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q has neither pull_request_read nor get_pull_request, get_pull_request_files and get_pull_request_diff", s.Session.Name)}
	}
	pr := PullRequest{Ref: ref, Source: "mcp:" + s.Session.Name}
	text, err := getPR()
	if err != nil {
		return PullRequest{}, err
	}
	var head struct {
		Title string `json:"title"`
		Body  string `json:"body"`
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: pull request: not JSON: %v", s.Session.Name, err)}
	}
	pr.Title, pr.Body = head.Title, head.Body
	if text, err = getFiles(); err != nil {
		return PullRequest{}, err
	}
	// The REST API's file objects ({filename, additions, deletions, …}).
	var files []struct {
		Filename  string `json:"filename"`
		Additions int    `json:"additions"`
		Deletions int    `json:"deletions"`
	}
	if err := json.Unmarshal([]byte(text), &files); err != nil {
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: files: not a JSON list: %v", s.Session.Name, err)}
	}
	for _, f := range files {
		pr.Files = append(pr.Files, PRFile{Path: f.Filename, Additions: f.Additions, Deletions: f.Deletions})
	}
	if pr.Diff, err = getDiff(); err != nil {
		return PullRequest{}, err
	}
	return pr, nil
}

// PRBudget bounds what of a pull request goes into a prompt.
type PRBudget struct {
	Body  int // bytes of the description (8 KiB)
	Diff  int // bytes of the diff (40 KiB), shared fairly between files
	Files int // changed files listed (80)
}

// DefaultPRBudget is the budget of --pr-url.
func DefaultPRBudget() PRBudget { return PRBudget{Body: 8 << 10, Diff: 40 << 10, Files: 80} }

// minFileShare is the smallest diff share worth giving a file; below it,
// the largest files' diffs are left out (and said so).
const minFileShare = 512

// Cut returns pr within the budget, every cut marked in the text and
// described in Cuts. The diff is shared fairly: files whose diff fits an
// equal share of what is left are kept whole, the larger ones are cut to
// their share at a line end.
func (pr PullRequest) Cut(b PRBudget) PullRequest {
	out := pr
	out.Cuts = slices.Clone(pr.Cuts)
	if b.Body > 0 && len(pr.Body) > b.Body {
		marker := fmt.Sprintf("\n[… description cut: %d of %d bytes shown]", b.Body, len(pr.Body))
		out.Body = cutUTF8(pr.Body, b.Body-len(marker)) + marker
		out.Cuts = append(out.Cuts, fmt.Sprintf("description: %d of %d bytes", len(out.Body), len(pr.Body)))
	}
	if out.TotalFiles == 0 {
		out.TotalFiles = len(pr.Files)
	}
	if b.Files > 0 && len(pr.Files) > b.Files {
		out.Files = slices.Clone(pr.Files[:b.Files])
		out.Cuts = append(out.Cuts, fmt.Sprintf("files: %d of %d listed", b.Files, out.TotalFiles))
	}
	if b.Diff > 0 && len(pr.Diff) > b.Diff {
		out.Diff = cutDiff(pr.Diff, b.Diff)
		out.Cuts = append(out.Cuts, fmt.Sprintf("diff: %d of %d bytes, shared between files", len(out.Diff), len(pr.Diff)))
	}
	return out
}

// cutDiff cuts a unified diff to at most budget bytes with a fair share per
// file.
func cutDiff(diff string, budget int) string {
	secs := splitDiff(diff)
	order := make([]int, len(secs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(secs[a]) - len(secs[b]) })
	kept := make([]string, len(secs))
	omittedNote := func(n int) string {
		return fmt.Sprintf("[… diffs of %d more files left out: over the diff budget]\n", n)
	}
	avail := budget
	omitted := 0
	if n := avail / minFileShare; n < len(order) {
		// Too many files for a useful share each: the largest are left out.
		avail -= len(omittedNote(len(secs)))
		n = avail / minFileShare
		omitted = len(order) - n
		order = order[:n]
	}
	for k, i := range order {
		share := avail / (len(order) - k)
		s := secs[i]
		if len(s) <= share {
			kept[i] = s
		} else {
			marker := fmt.Sprintf("[… cut: %d of %d bytes of this file's diff shown]\n", share, len(s))
			head := cutUTF8(s, share-len(marker))
			if j := strings.LastIndexByte(head, '\n'); j > 0 {
				head = head[:j+1]
			} else {
				head += "\n"
			}
			kept[i] = head + marker
		}
		avail -= len(kept[i])
	}
	var b strings.Builder
	for _, s := range kept {
		b.WriteString(s)
	}
	if omitted > 0 {
		b.WriteString(omittedNote(omitted))
	}
	return b.String()
}

// splitDiff splits a unified diff into per-file sections ("diff --git"
// headers); text before the first header is its own section.
func splitDiff(diff string) []string {
	var secs []string
	start := 0
	for i := 0; i < len(diff); {
		j := strings.Index(diff[i:], "diff --git ")
		if j < 0 {
			break
		}
		at := i + j
		if at == 0 || diff[at-1] == '\n' {
			if at > start {
				secs = append(secs, diff[start:at])
			}
			start = at
		}
		i = at + len("diff --git ")
	}
	if start < len(diff) {
		secs = append(secs, diff[start:])
	}
	return secs
}

// cutUTF8 returns at most n bytes of s, not splitting a rune.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// prSource picks how to fetch the pull request: Config.PRSource, else the
// MCP server named "github" in Config.MCPConfig, else the gh CLI. The
// returned func closes what it opened.
func (cfg *Config) prSource(ctx context.Context) (PRSource, func(), error) {
	if cfg.PRSource != nil {
		return cfg.PRSource, func() {}, nil
	}
	if cfg.MCPConfig != "" {
		mc, err := mcp.LoadConfig(cfg.MCPConfig)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: --mcp-config: %v", ErrUsage, err)
		}
		if sc, ok := mc.Servers[GitHubMCPServer]; ok && !sc.Disabled {
			sess, err := mcp.Connect(ctx, GitHubMCPServer, sc, mcp.Options{Logger: cfg.Logger})
			if err != nil {
				return nil, nil, &SetupError{Err: fmt.Errorf("--pr-url: %w", err)}
			}
			return MCPPRSource{Session: sess}, func() { _ = sess.Close() }, nil
		}
	}
	return GHCLI{}, func() {}, nil
}
