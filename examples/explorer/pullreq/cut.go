package pullreq

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/internal/clip"
)

// Budget bounds what of a pull request goes into a prompt.
type Budget struct {
	Body  int // bytes of the description (8 KiB)
	Diff  int // bytes of the diff (40 KiB), shared fairly between files
	Files int // changed files listed (80)
}

// DefaultBudget is the budget of --pr-url.
func DefaultBudget() Budget { return Budget{Body: 8 << 10, Diff: 40 << 10, Files: 80} }

// minFileShare is the smallest diff share worth giving a file; below it,
// the largest files' diffs are left out (and said so).
const minFileShare = 512

// Cut returns pr within the budget, every cut marked in the text and
// described in Cuts. The diff budget is shared per file (see cutDiff):
// every file keeps its header and as many of its changed lines as its
// share allows; small files stay whole and the largest are cut first.
func (pr PR) Cut(b Budget) PR {
	out := pr
	out.Cuts = slices.Clone(pr.Cuts)
	if b.Body > 0 && len(pr.Body) > b.Body {
		marker := fmt.Sprintf("\n[… description cut: %d of %d bytes shown]", b.Body, len(pr.Body))
		out.Body = clip.UTF8(pr.Body, b.Body-len(marker)) + marker
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
		out.Cuts = append(out.Cuts, fmt.Sprintf("diff: %d of %d bytes, shared between %d files", len(out.Diff), len(pr.Diff), len(SplitDiff(pr.Diff))))
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
	secs := SplitDiff(diff)
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
		return clip.UTF8(b.String(), budget)
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

// SplitDiff splits a unified diff into per-file sections ("diff --git"
// headers); text before the first header is its own section.
func SplitDiff(diff string) []string {
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
