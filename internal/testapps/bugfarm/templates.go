package bugfarm

import "html/template"

// pageTemplates holds every template of the generated apps. Parsed once;
// never changed after: each app executes a clone whose "id" function gives
// its own DOM ids (see site.domID).
var pageTemplates = template.Must(template.New("bugfarm").Funcs(template.FuncMap{"id": func(k string) string { return k }}).Parse(layoutTmpl + bodiesTmpl + widgetsTmpl))

const layoutTmpl = `{{define "layout"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · {{.App}}</title>
<style>{{.CSS}}</style>
</head>
<body class="{{if .Side}}side{{else}}top{{end}}">
<a class="skip" href="#main">Skip to content</a>
<div class="shell">
<header class="bar">
<a class="brand" href="/" id="logo"{{if .LogoBug}} data-bug="{{.LogoBug}}"{{else}} aria-label="{{.App}} home"{{end}}><svg aria-hidden="true" focusable="false" width="28" height="28" viewBox="0 0 28 28"><rect x="2" y="2" width="24" height="24" rx="6" fill="{{.Accent}}"></rect><path d="M8 14h12M14 8v12" stroke="#fff" stroke-width="3"></path></svg></a>
<span class="appname">{{.App}}</span>
{{if .SignedIn}}<form method="post" action="/signout" class="signout"><button type="submit" id="signout">Sign out</button></form>{{end}}
</header>
{{if .Nav}}<nav class="main" aria-label="Main">
<ul>
{{range .Nav}}<li><a href="{{.Href}}"{{if .Current}} aria-current="page"{{end}}>{{.Text}}</a></li>
{{end}}{{if .Menu}}<li class="dd"><button type="button" id="menu-toggle" aria-expanded="false" aria-controls="menu-list">More</button>
<ul id="menu-list" hidden>{{range .Menu}}<li><a href="{{.Href}}">{{.Text}}</a></li>{{end}}</ul></li>{{end}}
</ul>
</nav>{{end}}
<main id="main"{{with .MainBug}} data-bug="{{.}}"{{end}}>
<h1>{{.H1}}</h1>
{{.Body}}
{{range .Widgets}}{{.}}
{{end}}{{if .Related}}<section class="related" aria-labelledby="related-h">
<h2 id="related-h">Related</h2>
<ul>{{range .Related}}<li><a id="{{.ID}}" href="{{.Href}}">{{.Text}}</a></li>{{end}}</ul>
</section>{{end}}
</main>
</div>
{{if .Menu}}<script>
(function () {
  var b = document.getElementById("menu-toggle"), m = document.getElementById("menu-list");
  b.addEventListener("click", function () {
    var open = b.getAttribute("aria-expanded") === "true";
    b.setAttribute("aria-expanded", open ? "false" : "true");
    m.hidden = open;
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { b.setAttribute("aria-expanded", "false"); m.hidden = true; }
  });
})();
</script>{{end}}
{{if .LoadJS}}<script>
(function () {
  {{.LoadJS}}
})();
</script>{{end}}
</body>
</html>
{{end}}

{{define "plain"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body><main><h1>{{.Title}}</h1><p>{{.Text}}</p><p><a href="/">Home</a></p></main></body></html>
{{end}}`

const bodiesTmpl = `{{define "home"}}<p class="lead">{{.Intro}}</p>
<img class="illustration" src="{{.Image}}" width="96" height="48"{{if .ImageBug}} data-bug="{{.ImageBug}}"{{else}} alt="{{.ImageAlt}}"{{end}}>
{{if .Cards}}<ul class="grid cards">{{range .Cards}}<li class="card"><h2><a href="{{.Href}}">{{.Text}}</a></h2><p>{{.Note}}</p></li>{{end}}</ul>{{end}}
<section aria-labelledby="recent-h"><h2 id="recent-h">Recently added</h2>
<ul id="recent">{{range .Recent}}<li><a href="{{.Href}}"{{with .Bug}} data-bug="{{.}}"{{end}}>{{.Title}}</a></li>{{else}}<li>Nothing yet.</li>{{end}}</ul></section>
{{if .Reveal}}<p><button type="button" id="show-more" aria-expanded="false" aria-controls="more-links">Show more</button></p>
<ul id="more-links" hidden>{{range .Reveal}}<li><a href="{{.Href}}">{{.Text}}</a></li>{{end}}</ul>
<script>
(function () {
  var b = document.getElementById("show-more"), l = document.getElementById("more-links");
  b.addEventListener("click", function () { l.hidden = false; b.setAttribute("aria-expanded", "true"); });
})();
</script>{{end}}
{{end}}

{{define "list"}}<form method="get" action="{{.Path}}" class="filter" role="search">
<label for="{{id "list-q"}}">Filter {{.Many}}</label>
<input id="{{id "list-q"}}" name="q" type="text" value="{{.Q}}" maxlength="200">
<button type="submit">Filter</button>
</form>
{{if .Q}}<p id="list-echo"{{with .EchoBug}} data-bug="{{.}}"{{end}}>{{.Count}} {{.Many}} matching “{{.Echo}}”</p>{{end}}
<p><a href="{{.NewPath}}" id="new-record">New {{.One}}</a></p>
{{if .Table}}<table id="records">
<caption>{{.Caption}}</caption>
<thead><tr>{{range .Columns}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr{{with .DupBug}} data-bug="{{.}}"{{end}}><td><a href="{{.Href}}"{{with .XSSBug}} data-bug="{{.}}"{{end}}>{{.Title}}</a></td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{else}}<tr><td colspan="{{len .Columns}}">No {{.Many}} yet.</td></tr>{{end}}</tbody>
</table>{{else}}<ul id="records" class="grid">{{range .Rows}}<li class="card"{{with .DupBug}} data-bug="{{.}}"{{end}}><h2><a href="{{.Href}}"{{with .XSSBug}} data-bug="{{.}}"{{end}}>{{.Title}}</a></h2>{{range .Cells}}<p>{{.}}</p>{{end}}</li>
{{else}}<li>No {{.Many}} yet.</li>{{end}}</ul>{{end}}
{{if .Pages}}<nav aria-label="Pagination" class="pager"><ul>
{{with .Prev}}<li><a href="{{.}}" rel="prev">Previous</a></li>{{end}}
{{range .Pages}}<li>{{if .Current}}<span aria-current="page">{{.Text}}</span>{{else}}<a href="{{.Href}}">{{.Text}}</a>{{end}}</li>{{end}}
{{with .Next}}<li><a href="{{.}}" rel="next">Next</a></li>{{end}}
</ul></nav>{{end}}
<form method="post" action="{{.ExportPath}}" id="export-form"><button type="submit" id="{{id "export"}}">Export CSV</button></form>
{{end}}

{{define "export"}}{{if .Banner}}<div class="banner" role="alert" data-bug="{{.Bug}}">Export failed:
{{.Banner}}</div>{{else}}<p role="status" class="status">Export ready: {{.Count}} rows.</p>
<pre class="csv">{{.CSV}}</pre>{{end}}
<p><a href="{{.Back}}">Back to the list</a></p>
{{end}}

{{define "form"}}{{if .Intro}}<p>{{.Intro}}</p>{{end}}
{{if .Steps}}<ol class="steps" aria-label="Progress">{{range .Steps}}<li{{if .Current}} aria-current="step"{{end}}>{{.Text}}</li>{{end}}</ol>{{end}}
{{if .Errors}}<p class="form-error" id="form-error">Please correct the {{len .Errors}} highlighted field(s).</p>{{end}}
<form method="post" action="{{.Action}}" id="record-form"{{if .Multipart}} enctype="multipart/form-data"{{end}}>
<input type="hidden" name="token" value="{{.Token}}">
{{if .Step}}<input type="hidden" name="step" value="{{.Step}}">{{end}}
{{range .Hidden}}<input type="hidden" name="{{.Name}}" value="{{.Value}}">
{{end}}{{range .Fields}}{{template "field" .}}
{{end}}{{if .Review}}<dl class="review">{{range .Review}}<dt>{{.Label}}</dt><dd>{{.Value}}</dd>{{end}}</dl>{{end}}
{{if .Upload}}<div class="field"><label for="f-attachment">Attachment (optional)</label><input type="file" id="f-attachment" name="attachment"></div>{{end}}
{{if .Confirm}}<button type="submit" id="{{id "wizard-confirm"}}">{{.Submit}}</button>{{else if .Step}}<button type="submit" id="{{id "wizard-next"}}">Next</button>{{else}}<button type="submit" id="{{id "record-submit"}}">{{.Submit}}</button>{{end}}
</form>
<script>
(function () {
  // client-side validation: the browser's message, shown under the field
  var f = document.getElementById("record-form");
  function slot(el) {
    var box = el.closest(".field"), p = box && box.querySelector(".client-error");
    if (box && !p) {
      p = document.createElement("p");
      p.className = "field-error client-error";
      box.appendChild(p);
    }
    return p;
  }
  f.addEventListener("invalid", function (e) {
    var p = slot(e.target);
    if (p) { p.textContent = e.target.validationMessage; }
  }, true);
  f.addEventListener("input", function (e) {
    var p = slot(e.target);
    if (p && e.target.checkValidity()) { p.textContent = ""; }
  });
})();
</script>
{{if .FetchSubmit}}<script>
(function () {
  var f = document.getElementById("record-form"), sent = false;
  f.addEventListener("submit", function (e) {
    e.preventDefault();
    {{if .Guard}}if (sent) { return; }
    sent = true;{{end}}
    fetch(f.action, { method: "POST", body: new FormData(f) }).then(function (r) {
      if (r.redirected) { location.assign(r.url); return; }
      return r.text().then(function (t) { document.open(); document.write(t); document.close(); });
    }).catch(function () { sent = false; });
  });
})();
</script>{{else if .Guard}}<script>
(function () {
  var f = document.getElementById("record-form"), sent = false;
  f.addEventListener("submit", function (e) {
    if (sent) { e.preventDefault(); return; }
    sent = true;
  });
})();
</script>{{end}}
{{if .ReviewJS}}<script>
(function () {
  {{.ReviewJS}}
})();
</script>{{end}}
{{end}}

{{define "field"}}<div class="field">
{{if eq .Kind "radio"}}<fieldset><legend>{{.Label}}{{if .Required}} (required){{end}}</legend>
{{range $i, $o := .Options}}<span class="choice"><input type="radio" id="{{id "f-"}}{{$.Key}}-{{$i}}" name="{{$.Key}}" value="{{$o}}"{{if eq $o $.Value}} checked{{end}}{{if $.Attr.Required}} required{{end}}><label class="inline" for="{{id "f-"}}{{$.Key}}-{{$i}}">{{$o}}</label></span>
{{end}}</fieldset>
{{else if eq .Kind "checkbox"}}<input type="checkbox" id="{{id "f-"}}{{.Key}}" name="{{.Key}}" value="on"{{if .Value}} checked{{end}}> <label class="inline" for="{{id "f-"}}{{.Key}}">{{.Label}}</label>
{{else}}<label for="{{id "f-"}}{{.Key}}">{{.Label}}{{if .Required}} (required){{end}}</label>
{{if eq .Kind "textarea"}}<textarea id="{{id "f-"}}{{.Key}}" name="{{.Key}}" rows="3"{{if .Attr.Required}} required{{end}}{{with .Attr.MaxLen}} maxlength="{{.}}"{{end}}{{with .Error}} aria-invalid="true" aria-describedby="{{id "f-"}}{{$.Key}}-err"{{end}}>{{.Value}}</textarea>
{{else if eq .Kind "select"}}<select id="{{id "f-"}}{{.Key}}" name="{{.Key}}"{{if .Attr.Required}} required{{end}}{{with .Error}} aria-invalid="true" aria-describedby="{{id "f-"}}{{$.Key}}-err"{{end}}><option value="">Choose…</option>{{range .Options}}<option value="{{.}}"{{if eq . $.Value}} selected{{end}}>{{.}}</option>{{end}}</select>
{{else}}<input type="{{.Kind}}" id="{{id "f-"}}{{.Key}}" name="{{.Key}}" value="{{.Value}}"{{if .Attr.Required}} required{{end}}{{with .Attr.Min}} min="{{.}}"{{end}}{{with .Attr.Max}} max="{{.}}"{{end}}{{with .Attr.MaxLen}} maxlength="{{.}}"{{end}}{{if eq .Kind "number"}} step="1"{{end}}{{with .Error}} aria-invalid="true" aria-describedby="{{id "f-"}}{{$.Key}}-err"{{end}}>
{{end}}{{end}}{{with .Error}}<p class="field-error" id="{{id "f-"}}{{$.Key}}-err">{{.}}</p>{{end}}
</div>{{end}}

{{define "view"}}<dl class="record">
{{range .Fields}}<dt>{{.Label}}</dt><dd{{with .ID}} id="{{.}}"{{end}}{{if .Editable}} data-edit="{{.Key}}" tabindex="0"{{end}}{{with .Bug}} data-bug="{{.}}"{{end}}>{{if .Raw}}{{.Raw}}{{else}}{{.Value}}{{end}}</dd>
{{end}}{{with .File}}<dt>Attachment</dt><dd>{{.}}</dd>{{end}}
</dl>
<p><a href="{{.EditPath}}" id="edit-record">Edit this {{.One}}</a> · <a href="{{.ListPath}}">All {{.Many}}</a></p>
<p><button type="button" id="{{id "timeline"}}" aria-controls="timeline-out">Show history</button></p>
<div id="timeline-out" aria-live="polite"></div>
<script>
(function () {
  var events = {{.Events}}, out = document.getElementById("timeline-out");
  document.getElementById({{id "timeline"}}).addEventListener("click", function () {
    {{.TimelineJS}}
    out.textContent = events.length ? events.join(" · ") : "No changes yet.";
  });
})();
</script>
{{end}}

{{define "search"}}<form method="get" action="{{.Path}}" role="search">
<label for="{{id "search-q"}}">Search {{.Many}}</label>
<input id="{{id "search-q"}}" name="q" type="search" value="{{.Q}}" maxlength="200">
<button type="submit">Search</button>
</form>
{{if .Q}}<p id="search-echo"{{with .EchoBug}} data-bug="{{.}}"{{end}}>Results for “{{.Echo}}”: {{len .Hits}}</p>
<ul id="hits">{{range .Hits}}<li><a href="{{.Href}}">{{.Title}}</a></li>{{else}}<li>No matches.</li>{{end}}</ul>{{end}}
{{end}}

{{define "section"}}<p>{{.Intro}}</p>
{{if .Stats}}<table id="stats"><caption>{{.Caption}}</caption><thead><tr><th scope="col">{{.StatLabel}}</th><th scope="col">Count</th></tr></thead>
<tbody>{{range .Stats}}<tr><td>{{.Text}}</td><td>{{.Value}}</td></tr>{{end}}</tbody></table>{{end}}
{{if .FAQ}}{{range .FAQ}}<details><summary>{{.Text}}</summary><p>{{.Value}}</p></details>{{end}}{{end}}
{{end}}

{{define "signin"}}{{with .Error}}<p class="form-error" id="signin-error">{{.}}</p>{{end}}
<form method="post" action="/signin" id="signin-form">
<input type="hidden" name="next" value="{{.Next}}">
<div class="field"><label for="{{id "signin-user"}}">Email</label><input id="{{id "signin-user"}}" name="user" type="email" autocomplete="username" required value="{{.User}}"></div>
<div class="field"><label for="{{id "signin-password"}}">Password</label><input id="{{id "signin-password"}}" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit" id="{{id "signin-submit"}}">Sign in</button>
</form>
{{end}}

{{define "embed"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Label}}</title>
<style>body{font:15px/1.4 system-ui,sans-serif;color:#111;margin:.5rem}button{background:{{.Accent}};color:#fff;border:0;border-radius:4px;padding:.3rem .7rem}</style></head>
<body><main><p>{{.Label}}: <span id="state">idle</span></p>
<button type="button" id="sync">Sync now</button>
<script>
(function () {
  var st = document.getElementById("state"), n = 0;
  document.getElementById("sync").addEventListener("click", function () {
    {{.Fault}}
    n++;
    st.textContent = "synced " + n + (n === 1 ? " time" : " times");
  });
})();
</script></main></body></html>
{{end}}`
