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
// The missions a pull request becomes are planned in package explore
// (explore.PlanPR, explore.PathMissions).
package pullreq
