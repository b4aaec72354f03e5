// Package pullreq fetches a GitHub pull request for the explorer's
// pull-request missions and cuts it to what a planner can read.
//
// ParseURL reads https://github.com/OWNER/REPO/pull/N (a trailing /files,
// /commits or #fragment too); anything else wraps explore's ErrUsage. A
// Source fetches the pull request: MCPSource through a GitHub MCP server
// (pull_request_read, or the older get_pull_request,
// get_pull_request_files and get_pull_request_diff, the file list paged),
// GHCLI through `gh pr view` and `gh pr diff`, or the caller's own. Their
// failures are *explore.SetupError (exit code 2), with the tool's own
// message.
//
// PR.Cut bounds what a planner reads (Budget; DefaultBudget is 8 KB of
// description, 40 KB of diff, 80 files listed): the diff is shared fairly
// between the files (small files whole, large ones cut to their first
// changes, context lines first to go), every file keeps its header, and
// every cut is said in the text and listed in PR.Cuts.
//
// The missions a pull request becomes are planned here too (PlanPR,
// PathMissions).
//
// # Missions from a pull request
//
// explore.Config.PRURL (--pr-url https://github.com/OWNER/REPO/pull/N, checked by
// ParseURL) replaces the missions by missions about a pull request. The
// pull request's title, description, changed files and diff come from the
// MCP server named "github" in Config.MCPConfig (the official
// github-mcp-server: its pull_request_read tool, or get_pull_request,
// get_pull_request_files and get_pull_request_diff in older versions; see
// MCPSource; the files are read 100 a page up to the PR's
// changed_files), else from the gh CLI (`gh pr view URL --json
// title,body,files,changedFiles` and `gh pr diff URL`; GHCLI), else from
// Config.PRSource. A missing gh or a failing fetch is a *SetupError (exit
// 2). PR.Cut keeps them within DefaultBudget: description 8 KiB,
// 80 files listed, diff 40 KiB shared per file (cutDiff): every file keeps
// its header, then every file's changed lines share the rest fairly (small
// files keep all of theirs, the largest are cut first, with a marker), and
// only budget left over brings back context lines; every cut is marked in
// the text and listed in Cuts. Every generated mission prompt is capped at
// MaxPRMissionPrompt (1200 bytes).
//
// With Config.PlannerModel (any langchaingo llms.Model) PlanPR asks the
// model for the missions as JSON, which is checked like a missions file
// (mission.ParseMissions: thread ids, prompts, teams, budgets) and whose start URLs
// must lie within the target; an unusable answer gets one retry that quotes
// the error, then, as without a model, PathMissions makes them from the
// changed paths: each file maps to an app area (the first meaningful token
// of its name or folder: templates/projects.html, projects_test.go and
// pages/projects/index.tsx are all "projects"; documentation and build
// files none), one mission per area, most-changed first, at most
// MaxPRMissions, starting at the app link that names the area and naming
// the files in its prompt. The plan is written to
// <ReportDir>/pr_missions.json.
package pullreq
