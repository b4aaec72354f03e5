package pullreq

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/tmc/langchaingo/llms"
	"golang.org/x/net/html"
)

// MaxPRMissions bounds the missions made from one pull request.
const MaxPRMissions = 5

// PRPlan is the missions made from a pull request and how.
type PRPlan struct {
	PR       PR                `json:"pr"`
	Missions []mission.Mission `json:"missions"`
	// By is "model" or "paths" (no model, or the model's answers were
	// unusable twice).
	By string `json:"by"`
	// ModelErrors lists why model answers were rejected.
	ModelErrors []string `json:"model_errors,omitempty"`
}

// PlanPR turns a pull request (already cut to its budget) into missions.
// With a model, the model writes them as JSON, checked like a missions file
// plus start URLs within target; an unusable answer gets one retry with the
// error, then the missions come from the changed paths (PathMissions), as
// they do without a model. links are the app's known paths, given to the
// model and used to guess start URLs.
func PlanPR(ctx context.Context, pr PR, model llms.Model, target string, links []string, log *slog.Logger) (PRPlan, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	plan := PRPlan{PR: pr}
	if model != nil {
		msgs := []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, prPlannerSystem),
			llms.TextParts(llms.ChatMessageTypeHuman, PlanPrompt(pr, links)),
		}
		for attempt := 1; attempt <= 2; attempt++ {
			resp, err := model.GenerateContent(ctx, msgs, llms.WithJSONMode())
			if ctx.Err() != nil {
				return plan, ctx.Err()
			}
			if err != nil {
				plan.ModelErrors = append(plan.ModelErrors, fmt.Sprintf("attempt %d: model call: %v", attempt, err))
				log.Warn("explore: PR missions: model call failed; missions from the changed paths", "err", err)
				break
			}
			answer := ""
			if len(resp.Choices) > 0 {
				answer = resp.Choices[0].Content
			}
			ms, err := ParseModelMissions(answer, target)
			if err == nil {
				plan.Missions, plan.By = ms, "model"
				return plan, nil
			}
			plan.ModelErrors = append(plan.ModelErrors, fmt.Sprintf("attempt %d: %v", attempt, err))
			log.Warn("explore: PR missions: unusable model answer", "attempt", attempt, "err", err)
			msgs = append(msgs,
				llms.TextParts(llms.ChatMessageTypeAI, answer),
				llms.TextParts(llms.ChatMessageTypeHuman, "That answer cannot be used: "+err.Error()+"\nAnswer again with only the JSON object."))
		}
	}
	plan.Missions, plan.By = PathMissions(pr, links), "paths"
	return plan, nil
}

const prPlannerSystem = `You plan exploratory QA missions. Testers explore the running web app in a real browser, looking for what a pull request may have broken. Write 1 to 5 missions aimed at the areas the change touches.
Answer with only a JSON object, no prose:
{"missions": [{"thread_id": "pr-12-billing", "prompt": "what to explore and what to try", "start_url": "/billing", "team": "standard", "budget": 60}]}
thread_id: 1-80 letters, digits, '.', '_' or '-', unique. prompt: required, at most 1200 bytes. start_url (optional): a path of the app. team (optional): "standard" (new user, power user, adversarial) or "advanced" (accessibility, data-heavy, impatient, returning user, explorer). budget (optional): browser steps.`

// PlanPrompt renders the pull request for the planner.
func PlanPrompt(pr PR, links []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Pull request %s\nTitle: %s\n\nDescription:\n%s\n\n", pr.Ref.URL(), pr.Title, pr.Body)
	total := max(pr.TotalFiles, len(pr.Files))
	fmt.Fprintf(&b, "Changed files (%d of %d):\n", len(pr.Files), total)
	for _, f := range pr.Files {
		fmt.Fprintf(&b, "- %s (+%d −%d)\n", f.Path, f.Additions, f.Deletions)
	}
	if len(links) > 0 {
		fmt.Fprintf(&b, "\nPages linked from the app's start page: %s\n", strings.Join(links, ", "))
	}
	if len(pr.Cuts) > 0 {
		fmt.Fprintf(&b, "\nCut to budget: %s\n", strings.Join(pr.Cuts, "; "))
	}
	fmt.Fprintf(&b, "\nDiff:\n```diff\n%s\n```\n", pr.Diff)
	return b.String()
}

// parseModelMissions checks a model's JSON answer like a missions file
// (ParseMissions: JSON is YAML) and keeps start URLs within target.
func ParseModelMissions(answer, target string) ([]mission.Mission, error) {
	obj := strings.TrimSpace(answer)
	i, j := strings.IndexByte(obj, '{'), strings.LastIndexByte(obj, '}')
	if i < 0 || j < i {
		return nil, fmt.Errorf("no JSON object in the answer %q", clip.String(answer, 200))
	}
	obj = obj[i : j+1]
	var raw struct {
		Missions []struct {
			StartURL string `json:"start_url"`
		} `json:"missions"`
	}
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	for k, m := range raw.Missions {
		if u, err := url.Parse(m.StartURL); err == nil && u.IsAbs() && target != "" && !sameOrigin(u, target) {
			return nil, fmt.Errorf("mission %d: start_url %q is not within the app %s", k+1, m.StartURL, target)
		}
	}
	ms, err := mission.ParseMissions("answer", []byte(obj))
	if err != nil {
		return nil, err
	}
	if target != "" {
		// An absolute URL within the app becomes its path.
		for k := range ms {
			if ms[k].StartURL, err = mission.ResolveStartURL(ms[k].StartURL, target); err != nil {
				return nil, fmt.Errorf("mission %d: %w", k+1, err)
			}
		}
	}
	if len(ms) > MaxPRMissions {
		ms = ms[:MaxPRMissions]
	}
	for k := range ms {
		ms[k].Prompt = mission.CapPrompt(ms[k].Prompt)
	}
	return ms, nil
}

func sameOrigin(u *url.URL, target string) bool {
	t, err := url.Parse(target)
	return err == nil && strings.EqualFold(u.Scheme, t.Scheme) && strings.EqualFold(u.Host, t.Host)
}

// PathMissions makes missions from a pull request's changed paths, without
// a model: each file maps to an app area (a route-like segment of its path,
// or the name of its template, handler or page, generic names such as
// index or handlers skipped), and each area, most-changed first, gets one
// mission (at most MaxPRMissions) whose prompt names its files and whose
// start URL is the app link naming the area, when links has one.
// Documentation and build files make no area; a change with none gets one
// mission over the whole app.
func PathMissions(pr PR, links []string) []mission.Mission {
	type area struct {
		name  string
		files []string
		lines int
		first int
	}
	areas := map[string]*area{}
	for i, f := range pr.Files {
		name := areaOf(f.Path)
		if name == "" {
			continue
		}
		a := areas[name]
		if a == nil {
			a = &area{name: name, first: i}
			areas[name] = a
		}
		a.files = append(a.files, f.Path)
		a.lines += f.Additions + f.Deletions
	}
	list := make([]*area, 0, len(areas))
	for _, a := range areas {
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b *area) int {
		if a.lines != b.lines {
			return b.lines - a.lines
		}
		return a.first - b.first
	})
	title := strings.TrimSpace(pr.Title)
	if title == "" {
		title = "untitled"
	}
	var out []mission.Mission
	for _, a := range list[:min(len(list), MaxPRMissions)] {
		files := a.files
		more := ""
		if len(files) > 5 {
			more = fmt.Sprintf(" and %d more", len(files)-5)
			files = files[:5]
		}
		m := mission.Mission{
			ThreadID: mission.ThreadName(fmt.Sprintf("pr-%d-%s", pr.Ref.Number, a.name)),
			Prompt: fmt.Sprintf("Pull request #%d (%q) changed the %s area (%s%s). Explore the %s pages first: use every control and form these changes drive, with valid, empty and hostile input, then check the pages around them for regressions. Report every bug with evidence.",
				pr.Ref.Number, clip.String(title, 120), a.name, strings.Join(files, ", "), more, a.name),
			StartURL: linkFor(a.name, links),
		}
		m.Prompt = mission.CapPrompt(m.Prompt)
		out = append(out, m)
	}
	if len(out) == 0 {
		out = append(out, mission.Mission{ThreadID: mission.ThreadName(fmt.Sprintf("pr-%d", pr.Ref.Number)),
			Prompt: fmt.Sprintf("Pull request #%d (%q) changed no page-specific file. Explore the whole app for regressions as a new user, a power user and an adversarial tester; report every bug with evidence.", pr.Ref.Number, clip.String(title, 120))})
	}
	return out
}

// genericNames say nothing about the app area of a file.
var genericNames = map[string]bool{
	"": true, "src": true, "app": true, "apps": true, "internal": true, "pkg": true, "cmd": true, "lib": true, "web": true, "www": true,
	"server": true, "client": true, "frontend": true, "backend": true, "static": true, "public": true, "assets": true, "templates": true,
	"template": true, "tmpl": true, "views": true, "view": true, "pages": true, "page": true, "routes": true, "route": true, "handlers": true,
	"handler": true, "controllers": true, "controller": true, "components": true, "component": true, "api": true, "index": true, "main": true,
	"layout": true, "layouts": true, "util": true, "utils": true, "helpers": true, "helper": true, "common": true, "shared": true, "types": true,
	"styles": true, "style": true, "css": true, "js": true, "test": true, "tests": true, "spec": true, "__tests__": true, "http": true,
	"ui": true, "site": true, "default": true, "base": true, "partials": true, "partial": true, "html": true, "go": true, "ts": true, "tsx": true,
}

// nonApp files make no area: documentation, build and CI files.
func nonApp(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch {
	case strings.HasPrefix(p, ".github/"), strings.HasPrefix(p, "docs/"), strings.HasPrefix(base, "readme"), strings.HasPrefix(base, "license"),
		strings.HasPrefix(base, "changelog"), strings.HasPrefix(base, "makefile"), strings.HasPrefix(base, "dockerfile"):
		return true
	}
	switch path.Ext(base) {
	case ".md", ".txt", ".mod", ".sum", ".lock", ".yml", ".yaml", ".toml", ".cfg", ".ini", ".png", ".jpg", ".svg", ".ico":
		return true
	}
	return base == "package.json" || base == "package-lock.json" || base == "go.work" || base == ".gitignore"
}

// areaOf maps a changed file to an app area ("" for none): the first
// meaningful token of its name (projects_test.go → projects,
// projects.$id.edit.tsx → projects), else of its nearest meaningful folder
// (pages/settings/index.tsx → settings).
func areaOf(p string) string {
	p = filepath.ToSlash(p)
	if nonApp(p) {
		return ""
	}
	segs := strings.Split(p, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		s := strings.ToLower(segs[i])
		if i == len(segs)-1 {
			if k := strings.IndexByte(s, '.'); k > 0 {
				s = s[:k]
			}
		}
		for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
			tok = strings.TrimSuffix(strings.TrimSuffix(tok, "handler"), "controller")
			if !genericNames[tok] && len(tok) > 1 && !isDigits(tok) {
				return tok
			}
		}
	}
	return ""
}

func isDigits(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// linkFor picks the shortest app link with a path segment naming the area
// (singular or plural); "" when none does.
func linkFor(area string, links []string) string {
	best := ""
	for _, l := range links {
		u, err := url.Parse(l)
		if err != nil {
			continue
		}
		for _, seg := range strings.Split(strings.Trim(u.Path, "/"), "/") {
			seg = strings.ToLower(seg)
			if seg == area || seg == area+"s" || seg+"s" == area || strings.ReplaceAll(seg, "-", "") == area {
				if best == "" || len(l) < len(best) {
					best = l
				}
				break
			}
		}
	}
	return best
}

// appLinks returns the same-origin paths linked from the target's start
// page (nil when it cannot be read: start URLs then stay at "/").
func AppLinks(ctx context.Context, target string) []string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target+"/", nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	doc, err := html.Parse(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil
	}
	base := resp.Request.URL
	seen := map[string]bool{}
	var out []string
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "a" {
			continue
		}
		for _, a := range n.Attr {
			if a.Key != "href" {
				continue
			}
			u, err := base.Parse(a.Val)
			if err != nil || u.Host != base.Host || (u.Scheme != "http" && u.Scheme != "https") {
				continue
			}
			p := u.EscapedPath()
			if u.RawQuery != "" {
				p += "?" + u.RawQuery
			}
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
