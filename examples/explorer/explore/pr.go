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
// title,body,files,changedFiles` and `gh pr diff URL`), which must be
// installed and signed in. gh may list only the first 100 files
// (cli/cli#5368); changedFiles gives the true count (TotalFiles).
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
	out, err := run("pr", "view", ref.URL(), "--json", "title,body,files,changedFiles")
	if err != nil {
		return PullRequest{}, err
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

// MCPPRSource fetches pull requests through the official GitHub MCP server
// (github/github-mcp-server): its pull_request_read tool (methods get,
// get_files, get_diff), or, in older versions, get_pull_request,
// get_pull_request_files and get_pull_request_diff; all take owner, repo
// and pullNumber. The files are read page by page (perPage 100) until a
// short page or the pull request's changed_files count.
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
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q has neither pull_request_read nor get_pull_request, get_pull_request_files and get_pull_request_diff", s.Session.Name)}
	}
	pr := PullRequest{Ref: ref, Source: "mcp:" + s.Session.Name}
	text, err := getPR()
	if err != nil {
		return PullRequest{}, err
	}
	var head struct {
		Title        string `json:"title"`
		Body         string `json:"body"`
		ChangedFiles int    `json:"changed_files"`
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: pull request: not JSON: %v", s.Session.Name, err)}
	}
	pr.Title, pr.Body = head.Title, head.Body
	// The files come 100 a page: read pages until a short one, the PR's
	// changed_files count, or GitHub's own limit of 3000 files.
	for page := 1; page <= prMaxFilePages; page++ {
		if text, err = getFiles(page); err != nil {
			return PullRequest{}, err
		}
		// The REST API's file objects ({filename, additions, deletions, …}).
		var files []struct {
			Filename  string `json:"filename"`
			Additions int    `json:"additions"`
			Deletions int    `json:"deletions"`
		}
		if err := json.Unmarshal([]byte(text), &files); err != nil {
			return PullRequest{}, &SetupError{Err: fmt.Errorf("--pr-url: MCP server %q: files page %d: not a JSON list: %v", s.Session.Name, page, err)}
		}
		for _, f := range files {
			pr.Files = append(pr.Files, PRFile{Path: f.Filename, Additions: f.Additions, Deletions: f.Deletions})
		}
		if len(files) < prFilesPerPage || (head.ChangedFiles > 0 && len(pr.Files) >= head.ChangedFiles) {
			break
		}
	}
	pr.TotalFiles = max(head.ChangedFiles, len(pr.Files))
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
// described in Cuts. The diff budget is shared per file (see cutDiff):
// every file keeps its header and as many of its changed lines as its
// share allows; small files stay whole and the largest are cut first.
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
		out.Cuts = append(out.Cuts, fmt.Sprintf("diff: %d of %d bytes, shared between %d files", len(out.Diff), len(pr.Diff), len(splitDiff(pr.Diff))))
	}
	return out
}

// diffFile is one file's section of a unified diff, taken apart.
type diffFile struct {
	full    string   // the section as it came
	header  string   // the lines before the first hunk ("diff --git", index, ---/+++ …)
	compact string   // the header's "diff --git" line and its new/deleted/rename/binary lines
	body    string   // everything from the first hunk on
	changed []string // the hunk headers and the added and removed lines, each with its newline
}

func parseDiffFile(sec string) diffFile {
	f := diffFile{full: sec}
	at := 0
	if strings.HasPrefix(sec, "@@") {
		at = 0
	} else if i := strings.Index(sec, "\n@@"); i >= 0 {
		at = i + 1
	} else {
		at = len(sec)
	}
	f.header, f.body = sec[:at], sec[at:]
	var compact strings.Builder
	for i, line := range strings.SplitAfter(f.header, "\n") {
		if line == "" {
			continue
		}
		if i == 0 || strings.HasPrefix(line, "new file mode") || strings.HasPrefix(line, "deleted file mode") ||
			strings.HasPrefix(line, "rename from") || strings.HasPrefix(line, "rename to") || strings.HasPrefix(line, "Binary files") {
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			compact.WriteString(line)
		}
	}
	f.compact = compact.String()
	for _, line := range strings.SplitAfter(f.body, "\n") {
		if strings.HasPrefix(line, "@@") || strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") {
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			f.changed = append(f.changed, line)
		}
	}
	return f
}

// cutDiff cuts a unified diff to at most budget bytes, shared per file:
//
//   - Every file keeps its header: the whole header while all headers take
//     at most half the budget, else its "diff --git" line with any
//     new/deleted/rename/binary line. (Only when even those do not fit are
//     the last files' headers left out, and counted in a note.)
//   - What is left goes first to every file's changed lines (hunk headers
//     cut to their line ranges, + and − lines), shared fairly: a file whose
//     changed lines fit an equal share of what remains keeps them all; the
//     larger files — cut first — get that share, in order, and end in a
//     marker saying how many lines were shown.
//   - Budget still left gives files that were not cut their context lines
//     and full header back, the cheapest first. One note at the end counts
//     the files shown without context and the files cut.
func cutDiff(diff string, budget int) string {
	secs := splitDiff(diff)
	files := make([]diffFile, len(secs))
	headers := 0
	for i, s := range secs {
		files[i] = parseDiffFile(s)
		headers += len(files[i].header)
	}
	head := func(f diffFile) string { return f.header }
	if headers > budget/2 {
		head = func(f diffFile) string { return f.compact }
		headers = 0
		for _, f := range files {
			headers += len(f.compact)
		}
	}
	kept := make([]string, len(files))
	if headers > budget {
		// Not even one line per file fits: headers in order, then a note.
		var b strings.Builder
		n := 0
		for _, f := range files {
			note := fmt.Sprintf("[… %d more files left out: their headers alone are over the diff budget]\n", len(files)-n)
			if b.Len()+len(head(f))+len(note) > budget {
				if b.Len()+len(note) <= budget {
					b.WriteString(note)
				}
				break
			}
			b.WriteString(head(f))
			n++
		}
		return b.String()
	}
	note := func(ctx, cut int) string {
		return fmt.Sprintf("[… diff budget: context lines left out of %d files, %d files cut to their share]\n", ctx, cut)
	}
	avail := budget - headers - len(note(len(files), len(files)))
	withNote := avail >= 0
	if !withNote {
		avail = budget - headers
	}
	// Phase 1: every file's changed lines, shared fairly: the files whose
	// changed lines fit an equal share of what is left keep them all, the
	// largest are cut to that share.
	bodies := make([]string, len(files))
	cut := make([]bool, len(files))
	size := make([]int, len(files))
	for i, f := range files {
		size[i] = changedLen(f)
	}
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return size[a] - size[b] })
	for k, i := range order {
		share := max(0, avail/(len(order)-k))
		bodies[i], cut[i] = cutBody(files[i], share)
		avail -= len(bodies[i])
	}
	// Phase 2: with budget left, files not cut get their context lines
	// (and full header) back, the cheapest first.
	var whole []int
	for i := range files {
		if !cut[i] {
			whole = append(whole, i)
		}
	}
	upgrade := func(i int) int { return len(files[i].full) - len(head(files[i])) - len(bodies[i]) }
	slices.SortStableFunc(whole, func(a, b int) int { return upgrade(a) - upgrade(b) })
	full := make([]bool, len(files))
	for _, i := range whole {
		if upgrade(i) > avail {
			break
		}
		avail -= upgrade(i)
		full[i] = true
	}
	nctx, ncut := 0, 0
	for i, f := range files {
		switch {
		case full[i]:
			kept[i] = f.full
		case cut[i]:
			kept[i] = head(f) + bodies[i]
			ncut++
		default:
			kept[i] = head(f) + bodies[i]
			if bodies[i] != f.body {
				nctx++
			}
		}
	}
	var b strings.Builder
	for _, s := range kept {
		b.WriteString(s)
	}
	if nctx+ncut > 0 && withNote {
		b.WriteString(note(nctx, ncut))
	}
	if b.Len() > budget { // cannot happen by construction; keep the promise anyway
		return cutUTF8(b.String(), budget)
	}
	return b.String()
}

// changedLen is the size of a file's changed lines as cutBody renders them.
func changedLen(f diffFile) int {
	n := 0
	for _, l := range f.changed {
		n += len(shortHunk(l))
	}
	return n
}

// shortHunk cuts a hunk header to its line ranges ("@@ -1,7 +1,7 @@").
func shortHunk(l string) string {
	if strings.HasPrefix(l, "@@") {
		if j := strings.Index(l[2:], "@@"); j >= 0 {
			return l[:j+4] + "\n"
		}
	}
	return l
}

// cutBody renders a file's changed lines within share bytes, hunk headers
// shortened to their line ranges: all of them when they fit (context lines
// left out), else the first ones and a marker (cut is true).
func cutBody(f diffFile, share int) (body string, cut bool) {
	lines := make([]string, len(f.changed))
	total := 0
	for i, l := range f.changed {
		l = shortHunk(l)
		lines[i] = l
		total += len(l)
	}
	if total <= share {
		return strings.Join(lines, ""), false
	}
	marker := func(n int) string { return fmt.Sprintf("[… cut: %d of %d changed lines]\n", n, len(lines)) }
	var b strings.Builder
	n := 0
	for _, l := range lines {
		if b.Len()+len(l)+len(marker(n+1)) > share {
			break
		}
		b.WriteString(l)
		n++
	}
	if b.Len()+len(marker(n)) > share {
		return "", true // not even the marker fits: the header alone stands for the file
	}
	return b.String() + marker(n), true
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
