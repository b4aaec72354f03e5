package bugfarm

// widgetsTmpl renders one widget each; the data is a widgetView. A bug's
// fault statement (.Fault) is empty when the bug is off.
const widgetsTmpl = `
{{define "w-select"}}<section class="card" aria-labelledby="{{.ID}}-h">
<h2 id="{{.ID}}-h">{{.Heading}}</h2>
{{if .NoName}}<span class="lbl">{{.Label}}</span>{{else}}<label for="{{.ID}}">{{.Label}}</label>{{end}}
<select id="{{.ID}}"{{with .NoName}} data-bug="{{.}}"{{end}}>{{range .Options}}<option value="{{.Value}}">{{.Text}}</option>{{end}}</select>
<p id="{{.ID}}-out" role="status">Showing {{(index .Options 0).Text}}.</p>
</section>
<script>
(function () {
  var s = document.getElementById({{.ID}}), o = document.getElementById({{.ID}} + "-out");
  s.addEventListener("change", function () {
    {{if .Fault}}if (s.value === {{.HotValue}}) { {{.Fault}} }{{end}}
    o.textContent = "Showing " + s.options[s.selectedIndex].text + ".";
  });
})();
</script>{{end}}

{{define "w-toggle"}}<div class="toggle">
<input type="checkbox" id="{{.ID}}"{{with .NoName}} data-bug="{{.}}"{{end}}>
{{if .NoName}}<span class="lbl-inline">{{.Label}}</span>{{else}}<label class="inline" for="{{.ID}}">{{.Label}}</label>{{end}}
<span id="{{.ID}}-out" role="status">Off</span>
</div>
<script>
(function () {
  var c = document.getElementById({{.ID}}), o = document.getElementById({{.ID}} + "-out");
  c.addEventListener("change", function () {
    {{if .Fault}}if (c.checked) { {{.Fault}} }{{end}}
    o.textContent = c.checked ? "On" : "Off";
  });
})();
</script>{{end}}

{{define "w-radio"}}<fieldset class="card" id="{{.ID}}">
<legend>{{.Label}}</legend>
{{range $i, $o := .Options}}<span class="choice"><input type="radio" name="{{$.ID}}" id="{{$.ID}}-{{$i}}" value="{{$o.Value}}"{{if eq $i 0}} checked{{end}}><label class="inline" for="{{$.ID}}-{{$i}}">{{$o.Text}}</label></span>
{{end}}<p id="{{.ID}}-out" role="status">{{(index .Options 0).Text}}</p>
</fieldset>
<script>
(function () {
  var o = document.getElementById({{.ID}} + "-out");
  document.querySelectorAll('input[name="' + {{.ID}} + '"]').forEach(function (r) {
    r.addEventListener("change", function () {
      {{if .Fault}}if (r.value === {{.HotValue}}) { {{.Fault}} }{{end}}
      o.textContent = r.nextElementSibling.textContent;
    });
  });
})();
</script>{{end}}

{{define "w-fetch"}}<div class="card fetcher">
{{with .Param}}<label for="{{$.ID}}-n">{{.Label}}</label>
<input type="number" id="{{$.ID}}-n" value="{{.Sample}}" step="1">
{{end}}<button type="button" id="{{.ID}}"{{with .Marks}} data-bug="{{.}}"{{end}}{{if and .Icon (not .NoName)}} aria-label="{{.Label}}"{{end}}>{{if .Icon}}<svg aria-hidden="true" focusable="false" width="16" height="16" viewBox="0 0 16 16"><path d="M8 2a6 6 0 1 0 6 6h-2a4 4 0 1 1-4-4V2z" fill="#fff"></path></svg>{{else}}{{.Label}}{{end}}</button>
<output id="{{.ID}}-out" aria-live="polite"></output>
<div id="{{.ID}}-banner"></div>
</div>
{{if not .Dead}}<script>
(function () {
  var b = document.getElementById({{.ID}}), o = document.getElementById({{.ID}} + "-out"),
      bn = document.getElementById({{.ID}} + "-banner"), n = document.getElementById({{.ID}} + "-n");
  b.addEventListener("click", function () {
    o.textContent = "Working…";
    var url = "/api/" + {{.ID}} + (n ? "?n=" + encodeURIComponent(n.value) : "");
    fetch(url).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.json();
    }).then(function (d) {
      if (d.signin) {
        {{.SessionFault}}
        o.textContent = d.invalid;
        return;
      }
      {{.Fault}}
      if (d.error) {
        var a = document.createElement("div");
        a.className = "banner"; a.setAttribute("role", "alert"); a.textContent = d.error;
        bn.replaceChildren(a); o.textContent = ""; return;
      }
      o.textContent = d.invalid || d.text;
    }).catch(function (e) {
      o.textContent = "Could not finish: " + e.message;
    });
  });
})();
</script>{{end}}{{end}}

{{define "w-role"}}<p class="rolebox">{{if eq .Tag "a"}}<a href="#" id="{{.ID}}">{{.Label}}</a>{{else if eq .Tag "span"}}<span role="button" tabindex="0" class="btnlike" id="{{.ID}}"{{with .Dead}} data-bug="{{.}}"{{end}}>{{.Label}}</span>{{else}}<div role="button" tabindex="0" class="btnlike" id="{{.ID}}"{{with .Dead}} data-bug="{{.}}"{{end}}>{{.Label}}</div>{{end}}
<span id="{{.ID}}-out" role="status"></span></p>
{{if not .Dead}}<script>
(function () {
  var el = document.getElementById({{.ID}}), o = document.getElementById({{.ID}} + "-out"), n = 0;
  function act(e) {
    e.preventDefault();
    {{.Fault}}
    n++;
    o.textContent = "Done (" + n + ")";
  }
  el.addEventListener("click", act);
  el.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { act(e); } });
})();
</script>{{end}}{{end}}

{{define "w-combo"}}<div class="card combo">
<label id="{{.ID}}-lbl" for="{{.ID}}">{{.Label}}</label>
<input id="{{.ID}}" type="text" role="combobox" aria-expanded="false" aria-controls="{{.ID}}-list" aria-autocomplete="list" autocomplete="off">
<ul id="{{.ID}}-list" role="listbox" aria-labelledby="{{.ID}}-lbl" hidden>
{{range $i, $o := .Options}}<li role="option" id="{{$.ID}}-opt-{{$i}}" data-value="{{$o.Value}}" aria-selected="false">{{$o.Text}}</li>
{{end}}</ul>
<p id="{{.ID}}-out" role="status">Nobody assigned.</p>
</div>
<script>
(function () {
  var i = document.getElementById({{.ID}}), l = document.getElementById({{.ID}} + "-list"), o = document.getElementById({{.ID}} + "-out");
  function show(v) { l.hidden = !v; i.setAttribute("aria-expanded", v ? "true" : "false"); }
  i.addEventListener("click", function () { show(true); });
  i.addEventListener("focus", function () { show(true); });
  i.addEventListener("keydown", function (e) { if (e.key === "Escape") { show(false); } });
  l.querySelectorAll('[role="option"]').forEach(function (opt) {
    opt.addEventListener("click", function () {
      l.querySelectorAll('[role="option"]').forEach(function (x) { x.setAttribute("aria-selected", "false"); });
      opt.setAttribute("aria-selected", "true");
      i.value = opt.textContent;
      show(false);
      {{if .Fault}}if (opt.dataset.value === {{.HotValue}}) { {{.Fault}} }{{end}}
      o.textContent = "Assigned to " + opt.textContent + ".";
    });
  });
})();
</script>{{end}}

{{define "w-modal"}}<p><button type="button" id="{{.ID}}-open">{{.Label}}…</button> <span id="{{.ID}}-out" role="status"></span></p>
<dialog id="{{.ID}}" aria-labelledby="{{.ID}}-h">
<h2 id="{{.ID}}-h">{{.Label}}?</h2>
<p>This cannot be undone.</p>
<button type="button" id="{{.ID}}-confirm"{{with .Dead}} data-bug="{{.}}"{{end}}>Confirm</button>
<button type="button" id="{{.ID}}-cancel">Cancel</button>
</dialog>
<script>
(function () {
  var d = document.getElementById({{.ID}}), o = document.getElementById({{.ID}} + "-out");
  document.getElementById({{.ID}} + "-open").addEventListener("click", function () { d.showModal(); });
  document.getElementById({{.ID}} + "-cancel").addEventListener("click", function () { d.close(); });
  {{if not .Dead}}document.getElementById({{.ID}} + "-confirm").addEventListener("click", function () {
    {{.Fault}}
    d.close();
    o.textContent = "Done.";
  });{{end}}
})();
</script>{{end}}

{{define "w-hover"}}<section class="card" aria-labelledby="{{.ID}}-h">
<h2 id="{{.ID}}-h">{{.Label}}</h2>
<ul class="hover-list" id="{{.ID}}">
{{range $i, $o := .Options}}<li class="hov" id="{{$.ID}}-row-{{$i}}"><span class="name">{{$o.Text}}</span> <button type="button" class="reveal" id="{{$.ID}}-act-{{$i}}"{{if and $.Dead (eq $i $.Hot)}} data-bug="{{$.Dead}}"{{end}}>Unpin</button></li>
{{end}}</ul>
</section>
<script>
(function () {
  document.querySelectorAll("#" + {{.ID}} + " .reveal").forEach(function (b, i) {
    {{if .Dead}}if (i === {{.Hot}}) { return; }{{end}}
    b.addEventListener("click", function () {
      {{if .Fault}}if (i === {{.Hot}}) { {{.Fault}} }{{end}}
      var row = b.closest("li");
      row.querySelector(".name").textContent += " (unpinned)";
      b.remove();
    });
  });
})();
</script>{{end}}

{{define "w-shadow"}}<section class="card" aria-labelledby="{{.ID}}-h">
<h2 id="{{.ID}}-h">{{.Label}}</h2>
<div id="{{.ID}}-host"></div>
</section>
<script>
(function () {
  var tag = {{.Tag}};
  if (!customElements.get(tag)) {
    customElements.define(tag, class extends HTMLElement {
      connectedCallback() {
        if (this.shadowRoot) { return; }
        var root = this.attachShadow({ mode: "open" }), n = 0;
        root.innerHTML = '<style>button{background:{{.Accent}};color:#fff;border:0;border-radius:4px;padding:.3rem .7rem}</style>' +
          '<span class="n">0</span> <button type="button">Add one</button>';
        root.querySelector("button").addEventListener("click", function () {
          {{.Fault}}
          n++;
          root.querySelector(".n").textContent = String(n);
        });
      }
    });
  }
  document.getElementById({{.ID}} + "-host").appendChild(document.createElement(tag));
})();
</script>{{end}}

{{define "w-keys"}}<section class="card" aria-labelledby="{{.ID}}-h">
<h2 id="{{.ID}}-h">{{.Label}}</h2>
{{if .NoName}}<p class="lbl">{{.Label}}</p>{{else}}<label for="{{.ID}}">{{.Label}}</label>{{end}}
<input type="text" id="{{.ID}}" aria-describedby="{{.ID}}-hint"{{with .NoName}} data-bug="{{.}}"{{end}}>
<p id="{{.ID}}-hint" class="hint">Press Enter to add it, Escape to clear.</p>
<ul id="{{.ID}}-list"></ul>
</section>
<script>
(function () {
  var i = document.getElementById({{.ID}}), l = document.getElementById({{.ID}} + "-list");
  i.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { i.value = ""; return; }
    if (e.key !== "Enter" || !i.value.trim()) { return; }
    {{.Fault}}
    var li = document.createElement("li");
    li.textContent = i.value.trim();
    l.appendChild(li);
    i.value = "";
  });
})();
</script>{{end}}

{{define "w-frame"}}<section class="card" aria-labelledby="{{.ID}}-h">
<h2 id="{{.ID}}-h">{{.Label}}</h2>
<iframe id="{{.ID}}" src="/embed/{{.ID}}" title="{{.Label}}" width="320" height="90"></iframe>
</section>{{end}}

{{define "w-router"}}<nav id="{{.ID}}" aria-label="{{.Label}}"><ul>
{{range .Options}}<li><a href="{{$.Base}}/{{.Value}}" data-route="{{.Value}}">{{.Text}}</a></li>{{end}}
</ul></nav>
<section id="{{.ID}}-view" aria-live="polite"></section>
<script>
(function () {
  var base = {{.Base}}, views = {{.Views}}, v = document.getElementById({{.ID}} + "-view");
  function render() {
    var name = location.pathname.slice(base.length + 1) || {{(index .Options 0).Value}};
    {{if .Fault}}if (name === {{.HotValue}}) { {{.Fault}} }{{end}}
    var h = document.createElement("h2"), p = document.createElement("p");
    h.textContent = views[name] ? views[name][0] : "Not found";
    p.textContent = views[name] ? views[name][1] : "There is no such view.";
    v.replaceChildren(h, p);
  }
  document.querySelectorAll("#" + {{.ID}} + " a[data-route]").forEach(function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      history.pushState(null, "", a.getAttribute("href"));
      render();
    });
  });
  window.addEventListener("popstate", render);
  render();
})();
</script>{{end}}

{{define "w-hash"}}<nav id="{{.ID}}" aria-label="{{.Label}}"><ul>
{{range .Options}}<li><a href="#/{{.Value}}">{{.Text}}</a></li>{{end}}
</ul></nav>
<section id="{{.ID}}-view" aria-live="polite"></section>
<script>
(function () {
  var views = {{.Views}}, v = document.getElementById({{.ID}} + "-view");
  function render() {
    var name = location.hash.replace(/^#\//, "") || {{(index .Options 0).Value}};
    {{if .Fault}}if (name === {{.HotValue}}) { {{.Fault}} }{{end}}
    var h = document.createElement("h2"), p = document.createElement("p");
    h.textContent = views[name] ? views[name][0] : "Not found";
    p.textContent = views[name] ? views[name][1] : "There is no such view.";
    v.replaceChildren(h, p);
  }
  window.addEventListener("hashchange", render);
  render();
})();
</script>{{end}}

{{define "w-dbledit"}}<p class="hint" id="{{.ID}}">Double-click a value to edit it; Enter saves, Escape cancels.</p>
<p id="{{.ID}}-out" role="status"></p>
<script>
(function () {
  var o = document.getElementById({{.ID}} + "-out");
  document.querySelectorAll("[data-edit]").forEach(function (dd) {
    dd.addEventListener("dblclick", function () {
      if (dd.querySelector("input")) { return; }
      {{.Fault}}
      var old = dd.textContent, i = document.createElement("input");
      i.value = old; i.setAttribute("aria-label", "New value");
      dd.replaceChildren(i); i.focus();
      i.addEventListener("keydown", function (e) {
        if (e.key === "Escape") { dd.textContent = old; return; }
        if (e.key !== "Enter") { return; }
        var body = new URLSearchParams();
        body.set("field", dd.dataset.edit); body.set("value", i.value);
        fetch({{.SavePath}}, { method: "POST", body: body }).then(function (r) { return r.json(); }).then(function (d) {
          if (d.invalid) { o.textContent = d.invalid; dd.textContent = old; return; }
          dd.textContent = d.value; o.textContent = "Saved.";
        }).catch(function () { dd.textContent = old; o.textContent = "Could not save."; });
      });
    });
  });
})();
</script>{{end}}
`
