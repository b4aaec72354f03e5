package pullreq

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

	"github.com/agentgraph/agentgraph/examples/explorer/internal/xerr"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/tools/mcp"
)

// Ref names a GitHub pull request.
type Ref struct {
	Owner, Repo string
	Number      int
}

// URL is the pull request's canonical address.
func (r Ref) URL() string {
	return fmt.Sprintf("https://github.com/%s/%s/pull/%d", r.Owner, r.Repo, r.Number)
}

// ParseURL parses https://github.com/OWNER/REPO/pull/N (a trailing
// /files, /commits or #fragment is accepted). Anything else wraps xerr.ErrUsage.
func ParseURL(raw string) (Ref, error) {
	bad := func(why string) (Ref, error) {
		return Ref{}, fmt.Errorf("%w: --pr-url %q: %s (want https://github.com/OWNER/REPO/pull/N)", xerr.ErrUsage, raw, why)
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
	return Ref{Owner: owner, Repo: repo, Number: n}, nil
}

var reGitHubName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// PR is what the explorer reads of a pull request.
type PR struct {
	Ref   Ref    `json:"ref"`
	Title string `json:"title"`
	Body  string `json:"body"`
	Files []File `json:"files"`
	// TotalFiles is the number of changed files before the budget cut
	// (0: len(Files)).
	TotalFiles int    `json:"total_files,omitempty"`
	Diff       string `json:"diff"`
	// Source says where it came from: "mcp:<server>" or "gh".
	Source string `json:"source"`
	// Cuts describes each budget cut (the texts carry markers too).
	Cuts []string `json:"cuts,omitempty"`
}

// File is one changed file.
type File struct {
	Path      string `json:"path"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

// Source fetches a pull request: the GitHub MCP server (MCPSource),
// the gh CLI (GHCLI) or anything else.
type Source interface {
	FetchPR(ctx context.Context, ref Ref) (PR, error)
}

// GHCLI fetches pull requests with the gh CLI (`gh pr view URL --json
// title,body,files,changedFiles` and `gh pr diff URL`), which must be
// installed and signed in. gh may list only the first 100 files
// (cli/cli#5368); changedFiles gives the true count (TotalFiles).
type GHCLI struct {
	// Path of the gh binary ("": gh on PATH).
	Path string
}

// FetchPR implements Source. A missing gh or a failing call is a
// *SetupError carrying gh's own message.
func (g GHCLI) FetchPR(ctx context.Context, ref Ref) (PR, error) {
	bin := g.Path
	if bin == "" {
		bin = "gh"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return PR{}, &xerr.SetupError{Err: fmt.Errorf("--pr-url: the gh CLI is not installed (%v); install it and run `gh auth login`, or configure an MCP server named %q", err, GitHubMCPServer)}
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
			return nil, &xerr.SetupError{Err: fmt.Errorf("--pr-url: gh %s: %s", strings.Join(args[:2], " "), clip.String(msg, 500))}
		}
		return stdout.Bytes(), nil
	}
	out, err := run("pr", "view", ref.URL(), "--json", "title,body,files,changedFiles")
	if err != nil {
		return PR{}, err
	}
	var view struct {
		Title        string `json:"title"`
		Body         string `json:"body"`
		ChangedFiles int    `json:"changedFiles"`
		Files        []struct {
			Path      string `json:"path"`
			Additions int    `json:"additions"`
			Deletions int    `json:"deletions"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &view); err != nil {
		return PR{}, &xerr.SetupError{Err: fmt.Errorf("--pr-url: gh pr view: unexpected output: %v", err)}
	}
	diff, err := run("pr", "diff", ref.URL())
	if err != nil {
		return PR{}, err
	}
	pr := PR{Ref: ref, Title: view.Title, Body: view.Body, Diff: string(diff), Source: "gh"}
	for _, f := range view.Files {
		pr.Files = append(pr.Files, File(f))
	}
	pr.TotalFiles = max(view.ChangedFiles, len(pr.Files))
	return pr, nil
}

// GitHubMCPServer is the name of the MCP server, in mcp_servers.json, that
// --pr-url uses when it is configured.
const GitHubMCPServer = "github"

// The GitHub REST API lists a pull request's files at most 100 a page and
// 3000 in all.
const (
	prFilesPerPage = 100
	prMaxFilePages = 30
)

// MCPSource fetches pull requests through the official GitHub MCP server
// (github/github-mcp-server): its pull_request_read tool (methods get,
// get_files, get_diff), or, in older versions, get_pull_request,
// get_pull_request_files and get_pull_request_diff; all take owner, repo
// and pullNumber. The files are read page by page (perPage 100) until a
// short page or the pull request's changed_files count.
type MCPSource struct {
	Session *mcp.Session
}

// FetchPR implements Source.
func (s MCPSource) FetchPR(ctx context.Context, ref Ref) (PR, error) {
	ts, err := s.Session.Tools(ctx)
	if err != nil {
		return PR{}, &xerr.SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: list tools: %w", s.Session.Name, err)}
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
			return "", &xerr.SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: %s: %w", s.Session.Name, tool, err)}
		}
		return out, nil
	}
	var getPR, getDiff func() (string, error)
	var getFiles func(page int) (string, error)
	switch {
	case have["pull_request_read"]:
		getPR = func() (string, error) { return call("pull_request_read", map[string]any{"method": "get"}) }
		getFiles = func(page int) (string, error) {
			return call("pull_request_read", map[string]any{"method": "get_files", "perPage": prFilesPerPage, "page": page})
		}
		getDiff = func() (string, error) { return call("pull_request_read", map[string]any{"method": "get_diff"}) }
	case have["get_pull_request"] && have["get_pull_request_files"] && have["get_pull_request_diff"]:
		getPR = func() (string, error) { return call("get_pull_request", map[string]any{}) }
		getFiles = func(page int) (string, error) {
			return call("get_pull_request_files", map[string]any{"perPage": prFilesPerPage, "page": page})
		}
		getDiff = func() (string, error) { return call("get_pull_request_diff", map[string]any{}) }
	default:
		return PR{}, &xerr.SetupError{Err: fmt.Errorf("--pr-url: MCP server %q has neither pull_request_read nor get_pull_request, get_pull_request_files and get_pull_request_diff", s.Session.Name)}
	}
	pr := PR{Ref: ref, Source: "mcp:" + s.Session.Name}
	text, err := getPR()
	if err != nil {
		return PR{}, err
	}
	var head struct {
		Title        string `json:"title"`
		Body         string `json:"body"`
		ChangedFiles int    `json:"changed_files"`
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		return PR{}, &xerr.SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: pull request: not JSON: %v", s.Session.Name, err)}
	}
	pr.Title, pr.Body = head.Title, head.Body
	// The files come 100 a page: read pages until a short one, the PR's
	// changed_files count, or GitHub's own limit of 3000 files.
	for page := 1; page <= prMaxFilePages; page++ {
		if text, err = getFiles(page); err != nil {
			return PR{}, err
		}
		// The REST API's file objects ({filename, additions, deletions, …}).
		var files []struct {
			Filename  string `json:"filename"`
			Additions int    `json:"additions"`
			Deletions int    `json:"deletions"`
		}
		if err := json.Unmarshal([]byte(text), &files); err != nil {
			return PR{}, &xerr.SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: files page %d: not a JSON list: %v", s.Session.Name, page, err)}
		}
		for _, f := range files {
			pr.Files = append(pr.Files, File{Path: f.Filename, Additions: f.Additions, Deletions: f.Deletions})
		}
		if len(files) < prFilesPerPage || (head.ChangedFiles > 0 && len(pr.Files) >= head.ChangedFiles) {
			break
		}
	}
	pr.TotalFiles = max(head.ChangedFiles, len(pr.Files))
	if pr.Diff, err = getDiff(); err != nil {
		return PR{}, err
	}
	return pr, nil
}
