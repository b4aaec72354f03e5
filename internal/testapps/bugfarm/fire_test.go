package bugfarm

import (
	"fmt"
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fireHTTP drives bug p of s over plain HTTP and reports whether its id
// showed where the catalogue says. Browser-only bugs (JS errors, a11y,
// dead controls) are checked by their evidence being in the page source.
func fireHTTP(t *testing.T, s *served, p *placed) bool {
	t.Helper()
	site := s.app.site
	id := p.ID
	holds := func(r resp) bool { return strings.Contains(r.body, id) || r.header.Get(BugHeader) == id }
	switch p.Class {
	case ClassServerError:
		var r resp
		switch {
		case site.searchQ == p:
			r = s.get(t, site.byKind[pSearch].Path+"?q="+url.QueryEscape("O'Brien"))
		case site.newField[p.field] == p:
			r = s.create(t, map[string]string{p.field: badValue(p.Input, site.field(p.field))}, "")
		case site.editField[p.field] == p:
			v := s.validRecord(map[string]string{p.field: badValue(p.Input, site.field(p.field))})
			r = s.post(t, site.byKind[pEdit].Path, v)
		default:
			w := widgetOf(site, p)
			require.NotNil(t, w, id)
			r = s.get(t, "/api/"+w.ID+"?n="+url.QueryEscape(badValue(p.Input, *w.Param)))
		}
		if r.status >= 500 {
			return r.status == 500 && holds(r) && strings.Contains(r.body, "["+id+"]")
		}
		assert.Contains(t, []int{200, 303}, r.status, "%s: the fixed build answers a message or a redirect", id)
		if r.status == 200 {
			// a validation message: plain words, no crash
			assert.Regexp(t, `class="field-error"|"invalid"|Results for`, r.body, id)
			assert.NotRegexp(t, `Traceback|Exception|SQLSTATE|Error:`, r.body, id)
		}
		return false
	case ClassBrokenLink:
		r := s.get(t, p.Page)
		sel := strings.TrimPrefix(p.Trigger[len(p.Trigger)-1].Selector, "#")
		m := regexp.MustCompile(`id="` + sel + `" href="([^"]+)"`).FindStringSubmatch(r.body)
		require.NotNil(t, m, "%s: link %s on %s", id, sel, p.Page)
		href := html.UnescapeString(m[1])
		lr := s.get(t, href)
		if lr.status == 404 {
			return strings.Contains(href, id) && lr.header.Get(BugHeader) == id
		}
		assert.Equal(t, 200, lr.status, "%s: the fixed link works", id)
		return false
	case ClassSlow:
		path := p.Page
		if w := widgetOf(site, p); w != nil {
			path = apiPath(w)
		}
		if path == site.byKind[pView].Path {
			other := s.get(t, site.coll+"/2")
			assert.Empty(t, other.header.Get(BugHeader), "%s: only record 1 is slow, records made by other triggers are not", id)
		}
		r := s.get(t, path)
		assert.Equal(t, 200, r.status, id)
		slow := r.took >= site.opts.SlowDelay
		return slow && r.header.Get(BugHeader) == id
	case ClassSession:
		if w := widgetOf(site, p); w != nil {
			// the fetch button's script throws on the 401
			api := s.get(t, apiPath(w))
			require.Equal(t, 200, api.status, "%s: signed in, the action works", id)
			page := s.get(t, p.Page)
			jar, err := cookiejar.New(nil)
			require.NoError(t, err)
			old := s.c.Jar
			s.c.Jar = jar
			defer func() { s.c.Jar = old }()
			gone := s.get(t, apiPath(w))
			assert.Equal(t, http.StatusOK, gone.status, "%s: without a session the action says so (no 4xx: no console error)", id)
			assert.Contains(t, gone.body, `"signin"`, id)
			assert.Empty(t, FindIDs(gone.body), id)
			return holds(page)
		}
		jar, err := cookiejar.New(nil)
		require.NoError(t, err)
		old := s.c.Jar
		s.c.Jar = jar
		defer func() { s.c.Jar = old }()
		r := s.get(t, p.Page)
		if r.status == 500 {
			return holds(r)
		}
		assert.Equal(t, http.StatusSeeOther, r.status, "%s: the fixed build asks to sign in", id)
		return false
	case ClassBanner:
		if w := widgetOf(site, p); w != nil {
			r := s.get(t, apiPath(w))
			return strings.Contains(r.body, `"error"`) && holds(r)
		}
		r := s.post(t, site.byKind[pList].Path+"/export", nil)
		require.Equal(t, 200, r.status)
		return strings.Contains(r.body, `role="alert"`) && holds(r)
	case ClassDouble:
		first := s.create(t, nil, "double-1")
		require.Equal(t, http.StatusSeeOther, first.status, first.body)
		second := s.create(t, nil, "double-1")
		if second.status == 500 {
			return holds(second)
		}
		require.Equal(t, http.StatusSeeOther, second.status)
		list := s.get(t, site.byKind[pList].Path)
		return strings.Contains(list.body, fmt.Sprintf(`data-bug="%s"`, id))
	case ClassStoredXSS:
		r := s.create(t, map[string]string{p.field: xssPayload}, "")
		require.Equal(t, http.StatusSeeOther, r.status, r.body)
		path := r.header.Get("Location")
		if p.sink != pView {
			path = site.byKind[p.sink].Path
		}
		page := s.get(t, path)
		if strings.Contains(page.body, xssPayload) {
			return strings.Contains(page.body, fmt.Sprintf(`data-bug="%s">%s`, id, xssPayload))
		}
		assert.Contains(t, page.body, html.EscapeString(xssPayload), "%s: escaped in the fixed build", id)
		return false
	case ClassReflected:
		r := s.get(t, p.Page+"?q="+url.QueryEscape(xssPayload))
		require.Equal(t, 200, r.status)
		return strings.Contains(r.body, xssPayload) && holds(r)
	case ClassDeep:
		if site.wizard == p {
			v := s.validRecord(nil)
			v.Set("step", "2")
			return holds(s.post(t, site.byKind[pNew].Path, v))
		}
		r := s.create(t, nil, "")
		require.Equal(t, http.StatusSeeOther, r.status, r.body)
		return holds(s.get(t, r.header.Get("Location")))
	}
	// browser-side bugs: the evidence is in the page that hosts them
	if w := widgetOf(site, p); w != nil && w.Kind == wFrame {
		return holds(s.get(t, "/embed/"+w.ID))
	}
	return holds(s.get(t, p.Page))
}

// apiPath is what a fetch button asks for, with its input's sample value.
func apiPath(w *widget) string {
	if w.Param == nil {
		return "/api/" + w.ID
	}
	return "/api/" + w.ID + "?n=" + url.QueryEscape(w.Param.Sample)
}

// widgetOf is the widget that hosts bug p, if any.
func widgetOf(site *site, p *placed) *widget {
	for _, pg := range site.pages {
		for _, w := range pg.Widgets {
			if w.bug == p || w.name == p {
				return w
			}
		}
	}
	return nil
}

func TestBugsFireOverHTTP(t *testing.T) {
	for seed := int64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			buggy := serve(t, seed, Options{})
			buggy.signIn(t)
			for _, p := range buggy.app.site.bugs {
				assert.True(t, fireHTTP(t, buggy, p), "%s %s (%s) does not fire", p.ID, p.Class, p.What)
			}
			fixed := serve(t, seed, Options{Fixed: true})
			fixed.signIn(t)
			for _, p := range fixed.app.site.bugs {
				assert.False(t, fireHTTP(t, fixed, p), "%s %s fires in the fixed build", p.ID, p.Class)
			}
		})
	}
}

func TestDisabledBugIsGoneAlone(t *testing.T) {
	all := Generate(9, Options{}).All
	for _, b := range all {
		t.Run(b.ID, func(t *testing.T) {
			t.Parallel()
			s := serve(t, 9, Options{Disabled: []string{b.ID}})
			s.signIn(t)
			for _, p := range s.app.site.bugs {
				assert.Equal(t, p.ID != b.ID, fireHTTP(t, s, p), "%s with %s disabled", p.ID, b.ID)
			}
		})
	}
}
