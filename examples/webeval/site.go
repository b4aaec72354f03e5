package main

import (
	"fmt"
	"net/http"
)

// The demo site the suite runs against: small pages, all local, no
// third-party requests except one tracker the harness must block.
const layout = `<!doctype html><html><head><meta charset="utf-8"><title>%s</title>
<style>
body{margin:0;font:16px/1.4 sans-serif;color:#222;background:#fafafa}
header{background:#234;color:#fff;padding:12px 20px}header a{color:#cde;margin-right:14px}
main{padding:20px}table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:4px 10px}
.plan{display:inline-block;border:1px solid #999;border-radius:6px;padding:12px;margin:6px;width:150px;background:#fff}
.modal{position:fixed;top:80px;left:120px;width:360px;padding:20px;background:#fff;border:2px solid #234;box-shadow:0 4px 20px #0004}
.error{color:#b00}.ok{color:#070;font-weight:bold}
</style></head><body>
<header><a href="/">Home</a><a href="/contact">Contact</a><a href="/docs">Docs</a><a href="/products">Products</a><a href="/pricing">Pricing</a><a href="/newsletter">Newsletter</a><a href="/search">Search</a><a href="/about">About</a></header>
<main>%s</main>
<script src="https://tracker.example.com/t.js"></script>
</body></html>`

var pages = map[string][2]string{
	"/": {"Acme", `<h1>Welcome to Acme</h1><p>Today is <span id="today"></span>.</p>
<script>document.getElementById('today').textContent = new Date().toISOString().slice(0,10)</script>`},
	"/about": {"About", `<h1>About us</h1><p>Acme makes fine things since 1999.</p>`},
	"/contact": {"Contact", `<h1>Contact us</h1>
<form id="f" onsubmit="event.preventDefault();const n=document.getElementById('name').value.trim();if(!n){document.getElementById('msg').textContent='Name is required';document.getElementById('msg').className='error';return}document.getElementById('f').hidden=true;document.getElementById('msg').textContent='Thanks, '+n+'! We will write to '+document.getElementById('email').value+'.';document.getElementById('msg').className='ok'">
<p><label for="name">Name</label> <input id="name"></p>
<p><label for="email">Email</label> <input id="email" type="email"></p>
<p><button type="submit">Send</button></p></form><p id="msg" role="status"></p>`},
	"/signup": {"Sign up", `<h1>Sign up</h1>
<p><label for="semail">Email</label> <input id="semail"> <button id="go" onclick="const v=document.getElementById('semail').value;const e=document.getElementById('err');if(!/^[^@ ]+@[^@ ]+\.[a-z]+$/.test(v)){e.textContent='Please enter a valid email address';e.hidden=false}else{e.hidden=true;document.getElementById('ok').hidden=false}">Create account</button></p>
<p id="err" class="error" hidden></p><p id="ok" class="ok" hidden>Account created</p>`},
	"/docs":         {"Docs", `<h1>Documentation</h1><ul><li><a href="/docs/install">Install</a></li><li><a href="/docs/usage">Usage</a></li></ul>`},
	"/docs/install": {"Install", `<nav aria-label="breadcrumb"><a href="/docs">Docs</a> › Install</nav><h1>Install</h1><pre>go get example.com/acme</pre>`},
	"/docs/usage":   {"Usage", `<nav aria-label="breadcrumb"><a href="/docs">Docs</a> › Usage</nav><h1>Usage</h1>`},
	"/products": {"Products", `<h1>Products</h1><button id="sort" onclick="const b=document.querySelector('#t tbody');[...b.rows].sort((x,y)=>x.cells[1].textContent-y.cells[1].textContent).forEach(r=>b.appendChild(r))">Sort by price</button>
<table id="t"><thead><tr><th>Product</th><th>Price</th></tr></thead><tbody>
<tr><td>Lamp</td><td>35</td></tr><tr><td>Desk</td><td>240</td></tr><tr><td>Pen</td><td>3</td></tr><tr><td>Chair</td><td>120</td></tr><tr><td>Mug</td><td>9</td></tr>
</tbody></table>`},
	"/pricing": {"Pricing", `<h1>Pricing</h1><label><input type="checkbox" id="annual" onchange="document.querySelectorAll('.price').forEach(p=>{const m=+p.dataset.month;p.textContent=this.checked?('$'+m*10+'/year'):('$'+m+'/month')})"> Pay yearly</label>
<div><div class="plan"><h2>Free</h2><p class="price" data-month="0">$0/month</p><button onclick="pick('free','Free')">Choose Free</button></div>
<div class="plan"><h2>Pro</h2><p class="price" data-month="12">$12/month</p><button onclick="pick('pro','Pro')">Choose Pro</button></div>
<div class="plan"><h2>Team</h2><p class="price" data-month="40">$40/month</p><button onclick="pick('team','Team')">Choose Team</button></div></div>
<p id="selected" data-plan="">No plan selected</p>
<script>function pick(id,name){const s=document.getElementById('selected');s.dataset.plan=id;s.textContent='Selected: '+name}</script>`},
	"/newsletter": {"Newsletter", `<h1>Newsletter</h1><button id="open" onclick="document.getElementById('dlg').hidden=false">Open newsletter</button>
<div id="dlg" class="modal" role="dialog" aria-label="Newsletter" hidden><h2>Stay in touch</h2><p>Monthly news, no spam.</p><button id="close" onclick="document.getElementById('dlg').hidden=true">Close</button></div>`},
	"/search": {"Search", `<h1>Search</h1><input id="q" placeholder="Search products" onkeydown="if(event.key==='Enter'){run(this.value)}">
<ul id="results"></ul><p id="empty" hidden>No results</p>
<script>const items=['Desk lamp','Lamp shade','Desk','Pen','Chair','Mug'];
function run(q){q=q.toLowerCase().trim();const ul=document.getElementById('results');ul.innerHTML='';const hits=items.filter(i=>i.toLowerCase().includes(q));hits.forEach(h=>{const li=document.createElement('li');li.className='result';li.textContent=h;ul.appendChild(li)});document.getElementById('empty').hidden=hits.length>0}</script>`},
}

func siteHandler() http.Handler {
	mux := http.NewServeMux()
	for path, p := range pages {
		pattern := path
		if path == "/" {
			pattern = "/{$}"
		}
		mux.HandleFunc("GET "+pattern, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, layout, p[0], p[1])
		})
	}
	return mux
}
