package personas

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// One small app per bug class. Each is built fresh per run, so state (the
// orders already placed) does not leak between runs.

// onboardingApp: the "Get started" button's handler is bound to a
// misspelt id, so the button does nothing (dead control).
func onboardingApp() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", page("Welcome", `<h1>Welcome to Tasks</h1><p>Set up your workspace to begin.</p>
<label>Workspace name <input name="ws" value="My workspace"></label>
<button id="start">Get started</button> <a href="/help">Help</a>
<p id="out"></p>
<script>const b = document.getElementById('strat'); if (b) b.onclick = () => { location.href = '/setup'; };</script>`))
	mux.HandleFunc("/help", page("Help", `<h1>Help</h1><p>Press Get started on the home page.</p><a href="/">Home</a>`))
	mux.HandleFunc("/setup", page("Setup", `<h1>Setup</h1><a href="/">Home</a>`))
	return mux
}

// bulkApp: deleting more than one selected row at once answers 500.
func bulkApp() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", page("Inventory", `<h1>Inventory</h1>
<label><input type="checkbox" id="all"> Select all</label>
<button id="del">Delete selected</button> <span id="msg" role="status"></span>
<table><thead><tr><th>Pick</th><th>Item</th></tr></thead><tbody>
<tr><td><input type="checkbox" class="row" value="1" aria-label="Select Milk"></td><td>Milk</td></tr>
<tr><td><input type="checkbox" class="row" value="2" aria-label="Select Eggs"></td><td>Eggs</td></tr>
<tr><td><input type="checkbox" class="row" value="3" aria-label="Select Bread"></td><td>Bread</td></tr>
</tbody></table>
<script>
document.getElementById('all').onchange = e => { for (const c of document.querySelectorAll('.row')) c.checked = e.target.checked; };
document.getElementById('del').onclick = async () => {
  const ids = [...document.querySelectorAll('.row:checked')].map(c => c.value);
  const r = await fetch('/api/bulk-delete', {method: 'POST', body: JSON.stringify(ids)});
  document.getElementById('msg').textContent = r.ok ? 'Deleted ' + ids.length : '';
};
</script>`))
	mux.HandleFunc("POST /api/bulk-delete", func(w http.ResponseWriter, r *http.Request) {
		var ids []string
		_ = json.NewDecoder(r.Body).Decode(&ids)
		if len(ids) > 1 {
			http.Error(w, "bulk delete: runtime error: index out of range [1] with length 1", http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, `{"ok":true}`)
	})
	return mux
}

// commentApp renders comments with innerHTML: stored XSS.
func commentApp() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", page("Guestbook", `<h1>Guestbook</h1>
<label for="c">Comment</label><textarea id="c"></textarea>
<button id="post">Post comment</button>
<ul id="list"></ul>
<script>
document.getElementById('post').onclick = () => {
  const li = document.createElement('li');
  li.innerHTML = document.getElementById('c').value;
  document.getElementById('list').appendChild(li);
  document.getElementById('c').value = '';
};
</script>`))
	return mux
}

// a11yApp has an image without alt text, an icon button without a name,
// an input without a label and a skip link that stays off screen when it
// has keyboard focus.
func a11yApp() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", page("Account", `<h1>Account</h1>
<img src="/logo.svg" width="40" height="40">
<button onclick="document.getElementById('q').focus()"><svg width="12" height="12"><circle cx="6" cy="6" r="5"/></svg></button>
<input id="q" type="text">
<a href="#main" style="position:absolute;left:-9999px">Skip to content</a>
<a href="/about">About</a>`))
	mux.HandleFunc("/about", page("About", `<h1>About</h1><a href="/">Account</a>`))
	mux.HandleFunc("/logo.svg", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40"/></svg>`)
	})
	return mux
}

// listApp paginates 200 records; pages from slowFrom on take slow.
func listApp(slowFrom int, slow time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if n < 1 {
			n = 1
		}
		if n >= slowFrom {
			time.Sleep(slow) // an unindexed OFFSET scan
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<h1>Records</h1><p>Page %d of 10</p><ul>", n)
		for i := range 20 {
			fmt.Fprintf(&b, "<li>Record %d</li>", (n-1)*20+i+1)
		}
		b.WriteString("</ul>")
		if n < 10 {
			fmt.Fprintf(&b, `<a href="/items?page=%d">Next page</a>`, n+1)
		}
		html(w, "Records", b.String())
	})
	return mux
}

// orderApp: a second identical order violates a unique constraint and
// answers 500 (the button is not disabled and the server is not idempotent).
func orderApp() http.Handler {
	var mu sync.Mutex
	placed := map[string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("/checkout", page("Checkout", `<h1>Checkout</h1><p>Cart c-42: 2 items, 19.90 EUR</p>
<button id="place">Place order</button> <p id="msg" role="status"></p>
<script>
document.getElementById('place').onclick = async () => {
  const r = await fetch('/api/orders', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"cart":"c-42"}'});
  if (r.ok) document.getElementById('msg').textContent = 'Order placed';
};
</script>`))
	mux.HandleFunc("POST /api/orders", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Cart string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		mu.Lock()
		dup := placed[in.Cart]
		placed[in.Cart] = true
		mu.Unlock()
		if dup {
			http.Error(w, `pq: duplicate key value violates unique constraint "orders_cart_key"`, http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, `{"id":1}`)
	})
	return mux
}

// prefsApp: the dashboard assumes the preferences the home page stores;
// with cleared storage it throws.
func prefsApp() http.Handler {
	mux := http.NewServeMux()
	nav := `<nav><a href="/">Home</a> <a href="/dashboard">Dashboard</a> <a href="/settings">Settings</a></nav>`
	mux.HandleFunc("/{$}", page("Home", nav+`<h1>Home</h1><p id="hi"></p>
<script>if (!localStorage.getItem('prefs')) localStorage.setItem('prefs', JSON.stringify({theme: 'dark'})); document.cookie = 'sid=abc; path=/'; document.getElementById('hi').textContent = 'Welcome back';</script>`))
	mux.HandleFunc("/dashboard", page("Dashboard", nav+`<h1>Dashboard</h1><p id="t"></p>
<script>const prefs = JSON.parse(localStorage.getItem('prefs')); document.getElementById('t').textContent = 'Theme: ' + prefs.theme;</script>`))
	mux.HandleFunc("/settings", page("Settings", nav+`<h1>Settings</h1><p>Nothing to set.</p>`))
	return mux
}

// mazeApp is a site whose one broken link sits four levels deep.
func mazeApp() http.Handler {
	mux := http.NewServeMux()
	tree := map[string][]string{
		"/":                             {"/products", "/about", "/blog"},
		"/products":                     {"/products/tea", "/products/coffee", "/"},
		"/products/tea":                 {"/products", "/"},
		"/products/coffee":              {"/products/coffee/beans", "/products"},
		"/products/coffee/beans":        {"/products/coffee/beans/origin", "/products/coffee"},
		"/products/coffee/beans/origin": {"/products/coffee/beans/origin/report", "/"},
		"/about":                        {"/about/team", "/"},
		"/about/team":                   {"/about", "/"},
		"/blog":                         {"/blog/2025", "/blog/2026", "/"},
		"/blog/2025":                    {"/blog", "/"},
		"/blog/2026":                    {"/blog", "/"},
	}
	for path, links := range tree {
		var b strings.Builder
		fmt.Fprintf(&b, "<h1>%s</h1><ul>", strings.TrimPrefix(path, "/"))
		for _, l := range links {
			name := l[strings.LastIndex(l, "/")+1:]
			if l == "/" {
				name = "home"
			}
			fmt.Fprintf(&b, `<li><a href="%s">Go to %s</a></li>`, l, name)
		}
		b.WriteString("</ul>")
		body := b.String()
		pattern := path
		if path == "/" {
			pattern = "/{$}"
		}
		mux.HandleFunc(pattern, page("Maze "+path, body))
	}
	return mux
}
