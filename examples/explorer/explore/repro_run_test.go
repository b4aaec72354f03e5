package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

var reSpecBase = regexp.MustCompile(`process\.env\.AGENTGRAPH_BASE_URL \|\| '([^']*)'`)

// TestDemoSpecsFailOnceFixed runs the explorer once on the demo app, then
// runs the reproduction of every kind of finding per seeded bug with
// `npx playwright test` (one invocation per app variant, each spec against
// its own fresh demo app): with every bug on, and with only the spec's own
// bug off. The per-bug table is logged; for each oracle class whose replays
// are reliable, at least one spec passes with its bug on (it reproduces
// under test.fail()) and fails with it off (test.fail() sees the correct
// behaviour).
func TestDemoSpecsFailOnceFixed(t *testing.T) {
	dir, res := demoRun(t)
	m := res.Missions[0]

	// One spec per (kind, seeded bugs named): the shortest.
	type spec struct {
		bug  findings.Bug
		ids  []demoapp.BugID
		file string
	}
	picked := map[string]spec{}
	var order []string
	for _, b := range m.Bugs {
		if b.Spec == "" {
			continue
		}
		ids := demoapp.FindIDs(b.Evidence + "\n" + b.Title + "\n" + b.URL + "\n" + strings.Join(b.Symptoms, "\n"))
		key := fmt.Sprint(b.Kind, ids)
		if old, ok := picked[key]; ok && old.bug.ReproSteps <= b.ReproSteps {
			continue
		}
		if _, ok := picked[key]; !ok {
			order = append(order, key)
		}
		picked[key] = spec{bug: b, ids: ids, file: b.Spec}
	}
	require.NotEmpty(t, picked)

	work := t.TempDir()
	onDir, offDir := filepath.Join(work, "on"), filepath.Join(work, "off")
	for _, d := range []string{onDir, offDir} {
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, browsertest.SpecDir(d))
	}
	// Each spec gets its own app: the recorded origin is swapped for it.
	serve := func(d string, s spec, disabled map[demoapp.BugID]bool) {
		app, err := demoapp.Listen("127.0.0.1:0", demoapp.Options{Disabled: disabled})
		require.NoError(t, err)
		t.Cleanup(func() { _ = app.Close(context.Background()) })
		src, err := os.ReadFile(filepath.Join(dir, m.Mission.ThreadID, s.file))
		require.NoError(t, err)
		loc := reSpecBase.FindSubmatchIndex(src)
		require.NotNil(t, loc, s.file)
		out := string(src[:loc[2]]) + app.URL + string(src[loc[3]:])
		require.NoError(t, os.WriteFile(filepath.Join(d, s.file), []byte(out), 0o644))
	}
	var offFiles []string
	for _, k := range order {
		s := picked[k]
		serve(onDir, s, nil)
		if len(s.ids) > 0 {
			off := map[demoapp.BugID]bool{}
			for _, id := range s.ids {
				off[id] = true
			}
			serve(offDir, s, off)
			offFiles = append(offFiles, s.file)
		}
	}
	require.NotEmpty(t, offFiles, "specs that name a seeded bug")

	// The two runs (own apps, own folders) go side by side: the specs
	// mostly wait for the app.
	type ran struct {
		outs []browsertest.Outcome
		log  string
		err  error
	}
	outcome := func(d string, into *ran, wg *sync.WaitGroup) {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		into.outs, into.log, into.err = browsertest.RunSpecs(ctx, d, append([]string{"AGENTGRAPH_BASE_URL="}, res.SecretEnv...))
	}
	var onRun, offRun ran
	var wg sync.WaitGroup
	wg.Add(2)
	go outcome(onDir, &onRun, &wg)
	go outcome(offDir, &offRun, &wg)
	wg.Wait()
	byFile := func(r ran) map[string]browsertest.Outcome {
		require.NoError(t, r.err, r.log)
		m := map[string]browsertest.Outcome{}
		for _, o := range r.outs {
			m[filepath.Base(o.File)] = o
		}
		return m
	}
	on, off := byFile(onRun), byFile(offRun)
	t.Logf("bug on: %d specs ran", len(on))

	var table strings.Builder
	table.WriteString("| bug | kind | class | spec | bug on | bug off |\n|---|---|---|---|---|---|\n")
	word := func(o browsertest.Outcome, ok bool) string {
		switch {
		case !ok:
			return "-"
		case o.Status == "expected":
			return "pass"
		}
		return "fail"
	}
	good, named, told := map[demoapp.Class]bool{}, 0, 0
	shortened := map[demoapp.Class]bool{} // a spec of the class was minimised (and confirmed)
	for _, k := range order {
		s := picked[k]
		o, ok := on[s.file]
		f, fok := off[s.file]
		class := ""
		for _, id := range s.ids {
			if b, ok := demoapp.Lookup(id); ok {
				class = string(b.Class)
			}
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s | %s |\n", idList(s.ids), s.bug.Kind, class, s.file, word(o, ok), word(f, fok))
		assert.True(t, ok, "%s ran", s.file)
		if class == "" {
			continue
		}
		named++
		if s.bug.ReproSteps < s.bug.ReproFullSteps {
			shortened[demoapp.Class(class)] = true
		}
		if ok && fok && o.Status == "expected" && f.Status == "unexpected" {
			good[demoapp.Class(class)] = true
			told++
		} else {
			t.Logf("%s does not yet tell its bug on from off (on: %s %v; off: %s %v)", s.file, o.Status, o.Errors, f.Status, f.Errors)
		}
	}
	t.Logf("reproductions against the demo app (%d specs; found %v); %d of the %d specs that name a seeded bug pass with it on and fail with it off:\n%s",
		len(order), res.Demo.Found, told, named, table.String())
	// Every class found has a spec that tells its bug on from off, and at
	// most one spec of all (a long replay on a loaded machine) does not.
	// That one may be a class's only spec when its minimisation did not
	// finish (the suite's load): a full tape of a hundred steps or more
	// replayed on a fresh app is at the mercy of timing (which records a
	// double submission made), and says so in the log.
	excused := 0
	for _, b := range demoapp.Bugs() {
		if !foundClass(res.Demo.Found, b.Class) || good[b.Class] {
			continue
		}
		if !shortened[b.Class] && excused == 0 {
			excused++
			t.Logf("class %s: its only spec is the unshortened tape (minimisation ran out of time) and did not tell on from off", b.Class)
			continue
		}
		assert.True(t, good[b.Class], "class %s: a spec that passes with its bug on and fails with it off", b.Class)
	}
	assert.GreaterOrEqual(t, told, named-1, "specs that pass with their bug on and fail with it off")
}

func foundClass(found []string, c demoapp.Class) bool {
	for _, id := range found {
		if b, ok := demoapp.Lookup(demoapp.BugID(id)); ok && b.Class == c {
			return true
		}
	}
	return false
}

func idList(ids []demoapp.BugID) string {
	if len(ids) == 0 {
		return "(none named)"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}
