package report

import (
	"bytes"
	"html/template"
	"slices"
	"time"

	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// The mission's report.html: one self-contained file (styles and the
// filter script inline; screenshots, specs and traces are the files beside
// it) that a person scans in seconds — the counts by severity and kind
// first, then the bugs, grouped by root cause with their symptoms, each
// with its screenshot, reproduction and trace, filterable by severity,
// kind, persona and page; then coverage, the untried targets, the state
// graph and the timeline.

// htmlBug is a bug as the report shows it.
type htmlBug struct {
	findings.Bug
	Page string
}

// count is one row of a summary table.
type count struct {
	Name string
	N    int
}

type htmlReport struct {
	R          MissionResult
	Duration   time.Duration
	Bugs       []htmlBug
	Severities []count // in severity order, every severity
	Kinds      []count // most first
	Personas   []string
	Pages      []string
	New        int
}

// severityOrder ranks severities, most severe first.
var SeverityOrder = []string{findings.SeverityCritical, findings.SeverityMajor, findings.SeverityMinor}

func newHTMLReport(r MissionResult) htmlReport {
	h := htmlReport{R: r, Duration: r.Duration.Round(time.Millisecond)}
	sev, kinds := map[string]int{}, map[string]int{}
	for _, b := range r.Bugs {
		page := urlx.Path(b.URL)
		h.Bugs = append(h.Bugs, htmlBug{Bug: b, Page: page})
		sev[b.Severity]++
		kinds[b.Kind]++
		if b.New {
			h.New++
		}
		if !slices.Contains(h.Personas, b.Persona) {
			h.Personas = append(h.Personas, b.Persona)
		}
		if !slices.Contains(h.Pages, page) {
			h.Pages = append(h.Pages, page)
		}
	}
	rank := func(s string) int {
		if i := slices.Index(SeverityOrder, s); i >= 0 {
			return i
		}
		return len(SeverityOrder)
	}
	slices.SortStableFunc(h.Bugs, func(a, b htmlBug) int { return rank(a.Severity) - rank(b.Severity) })
	for _, s := range SeverityOrder {
		h.Severities = append(h.Severities, count{s, sev[s]})
	}
	for k, n := range kinds {
		h.Kinds = append(h.Kinds, count{k, n})
	}
	slices.SortFunc(h.Kinds, func(a, b count) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return compareStrings(a.Name, b.Name)
	})
	slices.Sort(h.Personas)
	slices.Sort(h.Pages)
	return h
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// renderHTML renders the mission's report.html.
func renderHTML(r MissionResult) ([]byte, error) {
	var b bytes.Buffer
	if err := reportTmpl.Execute(&b, newHTMLReport(r)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{"pq": urlx.PathQuery}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Explorer report: {{.R.Mission.ThreadID}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#222}
h1{margin-bottom:.2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.cards{display:flex;gap:1em;flex-wrap:wrap;margin:1em 0}.card{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;min-width:8em}
.card b{display:block;font-size:1.8em}.critical{color:#a00}.major{color:#b60}.minor{color:#555}
.bug{border:1px solid #ddd;border-left:6px solid #999;border-radius:6px;padding:.8em 1em;margin:1em 0}
.bug.sev-critical{border-left-color:#a00}.bug.sev-major{border-left-color:#d80}.bug.sev-minor{border-left-color:#999}
.bug[hidden]{display:none}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em;max-height:16em;overflow:auto}
img{max-width:100%;border:1px solid #ccc}.err{color:#a00}.filters{background:#f6f6f6;padding:.6em 1em;border-radius:6px}
.filters label{margin-right:1em}details{margin:1em 0}
</style></head>
<body><h1>Explorer report: {{.R.Mission.ThreadID}}</h1>
<p>{{.R.Mission.Prompt}}</p>
<p>Target <code>{{.R.Target}}</code> · team {{.R.Team}} · {{.R.Steps}} steps in {{.Duration}}{{with .R.Coverage}} · ended: {{.Stopped}}{{end}}{{with .R.Demo}} · demo app: found {{len .Found}} of {{len .Seeded}} seeded bugs{{end}}</p>
{{with .R.Err}}<p class="err">Error: {{.}}</p>{{end}}
<section id="summary" aria-label="Summary"><div class="cards">
<div class="card"><b id="count-bugs">{{len .Bugs}}</b>bugs</div>
<div class="card"><b id="count-new">{{.New}}</b>new</div>
{{range .Severities}}<div class="card {{.Name}}"><b id="count-{{.Name}}">{{.N}}</b>{{.Name}}</div>{{end}}
<div class="card"><b id="count-pages">{{len .R.Explored}}</b>pages visited</div>
{{with .R.Coverage}}<div class="card"><b id="count-tried">{{.Tried}}/{{.Targets}}</b>targets tried ({{.States}} states)</div>{{end}}
</div>
{{if .Kinds}}<table aria-label="Bugs by kind"><thead><tr><th>kind</th><th>bugs</th></tr></thead><tbody>
{{range .Kinds}}<tr><td>{{.Name}}</td><td>{{.N}}</td></tr>{{end}}</tbody></table>{{end}}
</section>
<h2>Bugs</h2>
{{if .Bugs}}<form class="filters" id="filters" aria-label="Filter bugs">
<label>Severity <select id="f-severity"><option value="">all</option>{{range .Severities}}<option>{{.Name}}</option>{{end}}</select></label>
<label>Kind <select id="f-kind"><option value="">all</option>{{range .Kinds}}<option>{{.Name}}</option>{{end}}</select></label>
<label>Persona <select id="f-persona"><option value="">all</option>{{range .Personas}}<option>{{.}}</option>{{end}}</select></label>
<label>Page <select id="f-page"><option value="">all</option>{{range .Pages}}<option>{{.}}</option>{{end}}</select></label>
<span id="shown">{{len .Bugs}} shown</span></form>{{end}}
{{range .Bugs}}<section class="bug sev-{{.Severity}}" id="{{.ID}}" data-severity="{{.Severity}}" data-kind="{{.Kind}}" data-persona="{{.Persona}}" data-page="{{.Page}}">
<h3><span class="{{.Severity}}">[{{.Severity}}]</span> {{.Title}}</h3>
<p>{{.ID}} · {{.Kind}} · page <code>{{pq .URL}}</code> · found by {{.Persona}}{{if .Owner}} · {{.Owner}}'s data on {{.Viewer}}'s page{{end}} at step {{.Step}}{{if .New}} · <strong>new</strong>{{else}} · seen {{.SeenCount}} times{{end}}</p>
{{if .Symptoms}}<p>Symptoms of the same cause:</p><ul>{{range .Symptoms}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if gt .Seen 1}}<p class="seen">Seen in {{.Seen}} actions of this run; later at {{range $i, $s := .Sightings}}{{if $i}}, {{end}}step {{$s.Step}} (<code>{{pq $s.URL}}</code>){{end}}</p>{{end}}
<pre>{{.Evidence}}</pre>
<p>{{if .Spec}}Reproduction: <a href="{{.Spec}}">{{.Spec}}</a> ({{.ReproSteps}} steps{{if gt .ReproFullSteps .ReproSteps}}, minimised from {{.ReproFullSteps}}{{end}}){{end}}{{if .Trace}} · trace: <a href="{{.Trace}}">{{.Trace}}</a> (<code>npx playwright show-trace {{.Trace}}</code>){{end}}</p>
{{if .Screenshot}}<img src="{{.Screenshot}}" alt="the page when {{.ID}} was found" loading="lazy">{{end}}</section>
{{else}}<p>No bugs found.</p>{{end}}
{{with .R.Coverage}}<h2>Coverage</h2>
<p>{{.States}} states, {{.Transitions}} transitions, {{.Targets}} targets: {{.Tried}} tried, {{.Failed}} failed. Ended: {{.Stopped}}.</p>
{{if .Untried}}<details><summary>Untried targets</summary><ul>{{range .Untried}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
{{if .Graph}}<details><summary>State graph (Mermaid)</summary><pre class="mermaid">{{.Graph}}</pre></details>{{end}}{{end}}
<h2>Pages visited</h2><ul>{{range .R.Explored}}<li><code>{{.}}</code></li>{{end}}</ul>
<details><summary>Timeline ({{len .R.Timeline}} actions)</summary>
<table><thead><tr><th>#</th><th>time</th><th>persona</th><th>action</th><th>target</th><th>page</th><th>result</th></tr></thead><tbody>
{{range .R.Timeline}}<tr><td>{{.Entry.Seq}}</td><td>{{.Entry.Time.Format "15:04:05.000"}}</td><td>{{.Persona}}{{if .Entry.Account}} ({{.Entry.Account}}){{end}}</td><td>{{.Entry.Action}}</td><td>{{if .Entry.Locator}}{{.Entry.Locator}}{{else}}{{.Entry.Params.URL}}{{end}}</td><td>{{pq .Entry.URL}}</td>
<td{{if not .Entry.OK}} class="err"{{end}}>{{if .Entry.OK}}ok{{else}}{{.Entry.Error}}{{end}}{{range .Entry.Findings}}<br>{{.Kind}}{{end}}</td></tr>
{{end}}</tbody></table></details>
<script>
(() => {
  const f = document.getElementById('filters');
  if (!f) return;
  const sel = (n) => document.getElementById('f-' + n).value;
  const apply = () => {
    let shown = 0;
    for (const b of document.querySelectorAll('section.bug')) {
      const ok = ['severity', 'kind', 'persona', 'page'].every((n) => !sel(n) || b.dataset[n] === sel(n));
      b.hidden = !ok;
      if (ok) shown++;
    }
    document.getElementById('shown').textContent = shown + ' shown';
  };
  f.addEventListener('change', apply);
})();
</script></body></html>
`))
