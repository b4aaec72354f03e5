package demoapp

import (
	"html/template"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// ---- search ----

type searchPage struct {
	Query    string
	RawQuery template.HTML
	Raw      bool
	Results  []Project
	Searched bool
}

func (a *App) search(w http.ResponseWriter, r *http.Request, _ *session) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	q = truncate(q, maxQueryLen)
	sp := searchPage{Query: q, Searched: q != ""}
	if q != "" {
		needle := strings.ToLower(q)
		for _, p := range a.Projects() {
			if strings.Contains(strings.ToLower(p.Name), needle) || strings.Contains(strings.ToLower(p.Owner), needle) {
				sp.Results = append(sp.Results, p)
			}
		}
		if a.enabled[BugXSSSearch] {
			sp.Raw = true
			sp.RawQuery = template.HTML(q) //nolint:gosec // seeded reflected XSS (BUG-XSS-SEARCH)
			if strings.ContainsAny(q, "<>") {
				a.trigger(w, r, BugXSSSearch, "markup in search query")
			}
		}
	}
	a.render(w, r, http.StatusOK, "search", view{Title: "Search", User: a.displayName(), Active: "search", Page: sp})
}

// ---- settings ----

type settingsPage struct {
	settings
	Errors map[string]string
	Themes []string
}

func (a *App) settingsForm(w http.ResponseWriter, r *http.Request, _ *session) {
	a.mu.Lock()
	st := a.settings
	a.mu.Unlock()
	flash := ""
	if r.URL.Query().Get("saved") == "1" {
		flash = "Settings saved."
	}
	a.render(w, r, http.StatusOK, "settings", view{Title: "Settings", User: st.DisplayName, Active: "settings", Flash: flash,
		Page: settingsPage{settings: st, Themes: []string{"light", "dark"}}})
}

func (a *App) settingsSave(w http.ResponseWriter, r *http.Request, _ *session) {
	if !parseForm(w, r) {
		return
	}
	st := settings{
		DisplayName: strings.TrimSpace(r.PostForm.Get("display_name")),
		Timezone:    strings.TrimSpace(r.PostForm.Get("timezone")),
		Theme:       r.PostForm.Get("theme"),
		Notify:      r.PostForm.Get("notify") == "on",
	}
	errs := map[string]string{}
	if st.DisplayName == "" || utf8.RuneCountInString(st.DisplayName) > 60 {
		errs["display_name"] = "Display name must be 1 to 60 characters."
	}
	if utf8.RuneCountInString(st.Timezone) > 64 {
		errs["timezone"] = "Time zone must be 64 characters or fewer."
	}
	if st.Theme != "light" && st.Theme != "dark" {
		errs["theme"] = "Choose a theme."
	}
	if len(errs) > 0 {
		st.DisplayName = truncate(st.DisplayName, 200)
		st.Timezone = truncate(st.Timezone, 200)
		a.render(w, r, http.StatusUnprocessableEntity, "settings", view{Title: "Settings", User: a.displayName(), Active: "settings",
			Page: settingsPage{settings: st, Errors: errs, Themes: []string{"light", "dark"}}})
		return
	}
	a.mu.Lock()
	a.settings = st
	a.mu.Unlock()
	http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
}

// ---- reports ----

type reportsPage struct {
	Rows []reportRow
}

type reportRow struct {
	Owner    string
	Projects int
	Budget   int
}

func (a *App) reports(w http.ResponseWriter, r *http.Request, _ *session) {
	if a.enabled[BugSlowReports] {
		a.trigger(w, r, BugSlowReports, "delay "+a.slowDelay.String())
		t := time.NewTimer(a.slowDelay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	var rp reportsPage
	all := a.Projects()
	for _, o := range owners {
		row := reportRow{Owner: o}
		for _, p := range all {
			if p.Owner == o {
				row.Projects++
				row.Budget += p.Budget
			}
		}
		rp.Rows = append(rp.Rows, row)
	}
	a.render(w, r, http.StatusOK, "reports", view{Title: "Reports", User: a.displayName(), Active: "reports", Page: rp})
}
