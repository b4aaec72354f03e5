package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

// Every app's definition is complete: a setup and a start script, at
// least 8 mutations covering the benchmark's classes, a patch each.
func TestAppsValid(t *testing.T) {
	for _, a := range allApps() {
		t.Run(a.Name, func(t *testing.T) {
			require.NoError(t, a.Validate())
			assert.GreaterOrEqual(t, len(a.Mutations), 8)
			classes := map[kit.Class]bool{}
			for _, m := range a.Mutations {
				classes[m.Class] = true
			}
			for _, c := range []kit.Class{kit.ClassServerError, kit.ClassBrokenLink, kit.ClassDead, kit.ClassLabel,
				kit.ClassException, kit.ClassStoredXSS, kit.ClassSlow, kit.ClassMangle} {
				assert.True(t, classes[c], "no %s mutation", c)
			}
		})
	}
}

func TestScore(t *testing.T) {
	muts := []kit.Mutation{
		{ID: "ra-xy-01"},
		{ID: "ra-xy-02", Match: []string{`dead`, `list item`}},
		{ID: "ra-xy-03"},
	}
	reports := []Report{
		{Kind: "http_5xx", Title: "HTTP 500 on POST /save", Evidence: "Something unforeseen has happened: (ra-xy-01)"},
		{Kind: "dead_control", Title: "Clicking \"Unordered List Item\" changed nothing"},
		{Kind: "console_error", Title: "ra-xy-031 is not an id of ours"},
		{Kind: "dead_control", Title: "Clicking \"Bold\" changed nothing"},
	}
	s := score(muts, reports, nil)
	assert.Equal(t, []string{"ra-xy-01", "ra-xy-02"}, s.Found)
	assert.Equal(t, []string{"ra-xy-03"}, s.Missed)
	assert.Empty(t, s.AlsoClean)
	assert.Equal(t, 2, s.Unattributed)

	// A pattern match that the clean run shows too does not count; an id
	// match does (the id is not in the clean build).
	clean := []Report{reports[1], {Kind: "http_5xx", Title: "HTTP 500 on POST /save"}}
	s = score(muts, reports, clean)
	assert.Equal(t, []string{"ra-xy-01"}, s.Found)
	assert.Equal(t, []string{"ra-xy-02", "ra-xy-03"}, s.Missed)
	assert.Equal(t, []string{"ra-xy-02"}, s.AlsoClean)
}

func TestIDPattern(t *testing.T) {
	re := kit.IDPattern("ra-dw-01")
	assert.True(t, re.MatchString("(ra-dw-01)"))
	assert.True(t, re.MatchString("id=wiki:RA-DW-01:syntax"))
	assert.False(t, re.MatchString("ra-dw-011"))
	assert.False(t, re.MatchString("xra-dw-01"))
}

func TestPickApps(t *testing.T) {
	all, err := pickApps("all")
	require.NoError(t, err)
	assert.Len(t, all, len(allApps()))
	one, err := pickApps(" DokuWiki ,dokuwiki")
	require.NoError(t, err)
	require.Len(t, one, 1)
	assert.Equal(t, "dokuwiki", one[0].Name)
	_, err = pickApps("nosuchapp")
	assert.Error(t, err)
}

func TestJudge(t *testing.T) {
	a := kit.App{Judgements: []kit.Judgement{
		{Pattern: `rule label-title-only`, Verdict: "real defect", Why: "first"},
		{Pattern: `rule label\b`, Verdict: "real defect", Why: "second"},
		{Pattern: `(?s)changed nothing.*class="toolbutton`, Verdict: "false positive", Why: "toolbar"},
	}}
	got := judge(a, []Report{
		{Kind: "a11y", Title: "Form elements should have a visible label (rule label-title-only)"},
		{Kind: "a11y", Title: "Form elements must have labels (rule label)"},
		{Kind: "dead_control", Title: `clicking "" changed nothing`, Evidence: `<button class="toolbutton" title="Bold Text [B]">`},
		{Kind: "http_5xx", Title: "HTTP 500 on GET /"},
	})
	require.Len(t, got, 4)
	assert.Equal(t, "first", got[0].Why, "the first matching judgement wins")
	assert.Equal(t, "second", got[1].Why)
	assert.Equal(t, "false positive", got[2].Verdict, "patterns see the evidence across lines")
	assert.Equal(t, "unjudged", got[3].Verdict)
}

func TestAround(t *testing.T) {
	body := "<html><head><title>Error</title></head><body>\n<p>Something unforeseen has happened: changelog: no quotes (ra-dw-01)</p></body></html>"
	got := kit.Around(body, "ra-dw-01", 20)
	assert.Contains(t, got, "ra-dw-01")
	assert.True(t, len(got) < len(body))
	assert.Equal(t, "short", kit.Around("short", "ra-dw-01", 20))
	assert.Equal(t, "…é (ra-dw-01) é…", kit.Around("ééééé (ra-dw-01) ééééé", "ra-dw-01", 3), "cuts on rune boundaries")
}
