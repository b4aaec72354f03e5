package bugfarm

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

func TestBadInputGetsAMessage(t *testing.T) {
	for _, seed := range []int64{2, 3, 5, 7} {
		for _, fixed := range []bool{true, false} {
			t.Run(fmt.Sprintf("seed %d fixed %v", seed, fixed), func(t *testing.T) {
				t.Parallel()
				s := serve(t, seed, Options{Fixed: fixed})
				s.signIn(t)
				site := s.app.site
				coll, newPath := site.coll, site.byKind[pNew].Path
				var fetchID string
				for _, pg := range site.pages {
					for _, w := range pg.Widgets {
						if w.Kind == wFetch && w.Param != nil {
							fetchID = w.ID
						}
					}
				}
				tests := []struct {
					name, method, path, ctype, body string
					want                            int // 0: any 2xx-4xx with a message
				}{
					{"record id not a number", "GET", coll + "/abc", "", "", 404},
					{"record id zero", "GET", coll + "/0", "", "", 404},
					{"record id overflows", "GET", coll + "/99999999999999999999999", "", "", 404},
					{"missing record", "GET", coll + "/4242", "", "", 404},
					{"edit of a missing record", "POST", coll + "/4242/edit", "application/x-www-form-urlencoded", "x=1", 404},
					{"broken multipart", "POST", newPath, "multipart/form-data; boundary=zz", "garbage", 400},
					{"body over 1 MB", "POST", newPath, "application/x-www-form-urlencoded", "a=" + strings.Repeat("x", 2<<20), 400},
					{"overlong token", "POST", newPath, "application/x-www-form-urlencoded", "step=1&token=" + strings.Repeat("t", 100), 400},
					{"empty create", "POST", newPath, "application/x-www-form-urlencoded", "step=1", 0},
					{"invalid UTF-8 in an edit", "POST", coll + "/1/edit", "application/x-www-form-urlencoded", site.fields[0].Key + "=%ff%fe", 0},
					{"query too long", "GET", coll + "?q=" + strings.Repeat("q", 300), "", "", 400},
					{"query not UTF-8", "GET", coll + "?q=%ff", "", "", 400},
					{"page not a number", "GET", coll + "?page=abc", "", "", 0},
					{"page out of range", "GET", coll + "?page=999", "", "", 0},
					{"unknown action", "GET", "/api/nope", "", "", 404},
					{"inline save of an unknown field", "POST", "/api/records/1", "application/x-www-form-urlencoded", "field=nope&value=1", 400},
					{"inline save of a missing record", "POST", "/api/records/abc", "application/x-www-form-urlencoded", "field=x", 404},
					{"unknown embed", "GET", "/embed/nope", "", "", 404},
					{"unknown board view", "GET", "/board/nope", "", "", 404},
					{"unknown page", "GET", "/nope/at/all", "", "", 404},
					{"wrong method", "DELETE", coll, "", "", 405},
					{"wrong method on an unknown path", "PUT", "/nope", "", "", 0},
					{"sign-in with garbage", "POST", "/signin", "application/x-www-form-urlencoded", "user=%00&password=" + strings.Repeat("p", 5000), 0},
				}
				if fetchID != "" {
					tests = append(tests, struct {
						name, method, path, ctype, body string
						want                            int
					}{"fetch input not a number", "GET", "/api/" + fetchID + "?n=abc", "", "", 200})
				}
				if site.multi {
					tests = append(tests, struct {
						name, method, path, ctype, body string
						want                            int
					}{"wizard step out of range", "POST", newPath, "application/x-www-form-urlencoded", "step=9", 400})
				}
				for _, tt := range tests {
					req, err := http.NewRequest(tt.method, s.srv.URL+tt.path, strings.NewReader(tt.body))
					require.NoError(t, err)
					if tt.ctype != "" {
						req.Header.Set("Content-Type", tt.ctype)
					}
					r := s.do(t, req)
					if tt.want != 0 {
						assert.Equal(t, tt.want, r.status, "%s: %s", tt.name, r.body)
					}
					assert.NotEmpty(t, strings.TrimSpace(r.body), "%s: a message", tt.name)
					if fixed {
						assert.Less(t, r.status, 500, "%s: %s", tt.name, r.body)
						assert.Empty(t, FindIDs(r.body), "%s: no bug id in the fixed build", tt.name)
					} else if r.status >= 500 {
						assert.NotEmpty(t, r.header.Get(BugHeader), "%s: only seeded bugs answer 5xx: %s", tt.name, r.body)
					}
				}
			})
		}
	}
}

var (
	twoMarks  = regexp.MustCompile(`<[^>]*data-bug="[^"]*"[^>]*data-bug=`)
	cssURL    = regexp.MustCompile(`(?i)url\(\s*['"]?\s*(https?:)?//|@import`)
	scriptURL = regexp.MustCompile(`(?i)https?://|["'(]//[a-z0-9]`)
)

// external reports whether u points off this origin.
func external(u string) bool {
	u = strings.TrimSpace(strings.ToLower(u))
	return strings.HasPrefix(u, "//") || strings.HasPrefix(u, "http:") || strings.HasPrefix(u, "https:") || strings.HasPrefix(u, "ftp:")
}

// externalRefs lists the references of an HTML page to other hosts.
func externalRefs(t *testing.T, page string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	require.NoError(t, err)
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch a.Key {
				case "src", "href", "action", "formaction", "poster", "data", "srcset", "background", "manifest":
					if external(a.Val) {
						out = append(out, n.Data+" "+a.Key+"="+a.Val)
					}
				case "style":
					if cssURL.MatchString(a.Val) {
						out = append(out, "style="+a.Val)
					}
				}
			}
			if (n.Data == "script" || n.Data == "style") && n.FirstChild != nil {
				text := n.FirstChild.Data
				if n.Data == "style" && cssURL.MatchString(text) || n.Data == "script" && scriptURL.MatchString(text) {
					out = append(out, n.Data+": "+text)
				}
			}
			if n.Data == "link" || n.Data == "base" {
				out = append(out, "<"+n.Data+">")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func TestNoExternalRequests(t *testing.T) {
	assert.NotEmpty(t, externalRefs(t, `<img src="https://cdn.example/x.png"><script>fetch("//evil.example/a")</script>`), "the check sees external references")
	for seed := int64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			s := serve(t, seed, Options{})
			s.signIn(t)
			crawl(t, s, func(path string, r resp) {
				if strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
					assert.Empty(t, externalRefs(t, r.body), "page %s", path)
					assert.NotRegexp(t, twoMarks, r.body, "page %s: one data-bug attribute per element", path)
				}
			})
		})
	}
}
