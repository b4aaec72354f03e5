package bugfarm

import (
	"fmt"
	"html/template"
	"net/http"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// illustration is a 1x1 GIF: the home page's picture, embedded.
const illustration = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"

func (s *site) serveHome(w http.ResponseWriter, r *http.Request) {
	pg := s.byKind[pHome]
	type card struct{ Text, Href, Note string }
	type recent struct {
		Title     any
		Href, Bug string
	}
	data := map[string]any{
		"Intro":    fmt.Sprintf("Keep track of every %s in one place.", s.one),
		"Image":    template.URL(illustration), //nolint:gosec // constant data URI
		"ImageBug": s.image.fires(),
		"ImageAlt": s.product + " logo",
	}
	hidden := s.revealed()
	if s.cards {
		var cards []card
		for _, p := range s.pages {
			if p.Kind == pHome || p.Kind == pView || p.Kind == pEdit || p.Kind == pSignIn || slices.Contains(hidden, p) {
				continue
			}
			cards = append(cards, card{Text: p.Title, Href: p.Path, Note: cardNote(p.Kind, s.many)})
		}
		data["Cards"] = cards
	}
	var rs []recent
	for i, rec := range s.records() {
		if i == 3 {
			break
		}
		rv := recent{Title: s.titleOf(rec), Href: fmt.Sprintf("%s/%d", s.coll, rec.ID)}
		if x := s.storedXSS; x.fires() != "" && x.sink == pHome {
			rv.Title, rv.Bug = raw(x, s.titleOf(rec)), x.ID
		}
		rs = append(rs, rv)
	}
	data["Recent"] = rs
	if len(hidden) > 0 {
		var links []navItem
		for _, p := range hidden {
			links = append(links, navItem{Text: p.Title, Href: p.Path})
		}
		data["Reveal"] = links
	}
	s.render(w, r, pg, pg.Title, "home", data, nil)
}

func cardNote(k pageKind, many string) string {
	switch k {
	case pList:
		return "Browse and filter all " + many + "."
	case pNew:
		return "Add a new entry."
	case pSearch:
		return "Find anything by name."
	case pPrefs:
		return "Tune how the app behaves."
	case pReports:
		return "Numbers at a glance."
	case pHelp:
		return "Answers to common questions."
	case pBoard, pPlanner:
		return "Switch between views."
	}
	return "Handy tools."
}

// query reads a bounded query parameter.
func (s *site) query(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	v := r.URL.Query().Get(name)
	if utf8.RuneCountInString(v) > maxQuery || !utf8.ValidString(v) {
		s.problem(w, http.StatusBadRequest, "Bad request", fmt.Sprintf("The %s must be valid text of at most %d characters.", name, maxQuery))
		return "", false
	}
	return v, true
}

func (s *site) serveList(w http.ResponseWriter, r *http.Request) {
	pg := s.byKind[pList]
	q, ok := s.query(w, r, "q")
	if !ok {
		return
	}
	type row struct {
		Title                any
		Href, DupBug, XSSBug string
		Cells                []string
	}
	type pageLink struct {
		Text, Href string
		Current    bool
	}
	var rows []row
	cols := []string{s.fields[0].Label}
	for _, f := range s.listed() {
		cols = append(cols, f.Label)
	}
	x := s.storedXSS
	for _, rec := range s.records() {
		if q != "" && !s.matches(rec, q) {
			continue
		}
		rw := row{Title: s.titleOf(rec), Href: fmt.Sprintf("%s/%d", s.coll, rec.ID), DupBug: rec.DupBug}
		if x.fires() != "" && x.sink == pList {
			rw.Title, rw.XSSBug = raw(x, s.titleOf(rec)), x.ID
		}
		for _, f := range s.listed() {
			rw.Cells = append(rw.Cells, rec.Values[f.Key])
		}
		rows = append(rows, rw)
	}
	count := len(rows)
	data := map[string]any{
		"Path": pg.Path, "Many": s.many, "One": s.one, "Q": q, "Count": count, "Table": s.tableList,
		"Columns": cols, "Caption": fmt.Sprintf("%d %s", count, s.many), "NewPath": s.byKind[pNew].Path,
		"ExportPath": pg.Path + "/export", "Echo": raw(s.listQ, q), "EchoBug": s.listQ.fires(),
	}
	if s.perPage > 0 {
		pages := max(1, (len(rows)+s.perPage-1)/s.perPage)
		n := 1
		if v := r.URL.Query().Get("page"); v != "" {
			var err error
			n, err = strconv.Atoi(v)
			if err != nil || n < 1 || n > pages {
				s.problem(w, http.StatusBadRequest, "Bad request", fmt.Sprintf("Page must be a whole number from 1 to %d.", pages))
				return
			}
		}
		href := func(i int) string {
			v := url.Values{}
			if q != "" {
				v.Set("q", q)
			}
			if i > 1 {
				v.Set("page", strconv.Itoa(i))
			}
			if len(v) == 0 {
				return pg.Path
			}
			return pg.Path + "?" + v.Encode()
		}
		var links []pageLink
		for i := 1; i <= pages; i++ {
			links = append(links, pageLink{Text: strconv.Itoa(i), Href: href(i), Current: i == n})
		}
		if pages > 1 {
			data["Pages"] = links
		}
		if n > 1 {
			data["Prev"] = href(n - 1)
		}
		if n < pages {
			data["Next"] = href(n + 1)
		}
		rows = rows[(n-1)*s.perPage : min(len(rows), n*s.perPage)]
	}
	data["Rows"] = rows
	s.render(w, r, pg, pg.Title, "list", data, nil)
}

func (s *site) serveExport(w http.ResponseWriter, r *http.Request) {
	pg := s.byKind[pList]
	data := map[string]any{"Back": pg.Path}
	if p := s.export; p.fires() != "" {
		s.log.Warn("bugfarm: bug fired", "bug", p.ID, "class", p.Class, "path", r.URL.Path)
		w.Header().Set(BugHeader, p.ID)
		data["Banner"], data["Bug"] = p.msg, p.ID
	} else {
		recs := s.records()
		var b strings.Builder
		b.WriteString("id," + s.fields[0].Key + "\n")
		for _, rec := range recs {
			fmt.Fprintf(&b, "%d,%q\n", rec.ID, s.titleOf(rec))
		}
		data["Count"], data["CSV"] = len(recs), b.String()
	}
	s.render(w, r, nil, "Export", "export", data, nil)
}

// fieldView is a form field as rendered.
type fieldView struct {
	field
	Value, Error string
	Attr         attrs
}

// attrs are a field's client-side constraints.
type attrs struct {
	Required bool
	Min, Max string
	MaxLen   int
}

// constraints are f's HTML constraints on a form; a field that holds a
// server-side bug lacks the one its input class would trip (in every
// build, so the pages stay the same).
func constraints(f field, p *placed) attrs {
	a := attrs{Required: f.Required, MaxLen: f.MaxLen}
	if f.Kind == kNumber {
		a.Min, a.Max = strconv.Itoa(f.Min), strconv.Itoa(f.Max)
	}
	if p != nil {
		switch p.Input {
		case InputNegative, InputZero:
			a.Min = ""
		case InputOutOfRange:
			a.Max = ""
		case InputEmpty:
			a.Required = false
		case InputLong:
			a.MaxLen = 0
		}
	}
	return a
}

// formData is what the form template reads.
type formData struct {
	Intro, Action, Token, Submit string
	Step                         int
	Steps                        []navItem
	Hidden                       []struct{ Name, Value string }
	Fields                       []fieldView
	Review                       []struct{ Label, Value string }
	Errors                       map[string]string
	Multipart, Upload, Guard     bool
	FetchSubmit                  bool // the form posts through fetch() and follows the answer
	Confirm                      bool
	ReviewJS                     template.JS
}

// form builds the create/edit form for fields with values.
func (s *site) form(action string, fs []field, values, errs map[string]string, bugs map[string]*placed) formData {
	fd := formData{Action: action, Token: s.token(), Errors: errs, Guard: s.double.fires() == ""}
	for _, f := range fs {
		fd.Fields = append(fd.Fields, fieldView{field: f, Value: values[f.Key], Error: errs[f.Key], Attr: constraints(f, bugs[f.Key])})
	}
	return fd
}

func (s *site) serveNew(w http.ResponseWriter, r *http.Request) {
	s.renderCreate(w, r, 1, map[string]string{}, nil, "")
}

// renderCreate renders the create form (step of the wizard).
func (s *site) renderCreate(w http.ResponseWriter, r *http.Request, step int, values, errs map[string]string, token string) {
	pg := s.byKind[pNew]
	groups := s.wizardGroups()
	var fd formData
	switch {
	case !s.multi:
		fd = s.form(pg.Path, s.fields, values, errs, s.newField)
		fd.Submit = "Create " + s.one
		fd.Upload, fd.Multipart = s.upload, s.upload
	case step <= 2:
		fd = s.form(pg.Path, groups[step-1], values, errs, s.newField)
		fd.Step = step
		for _, f := range groups[0] {
			if step == 2 {
				fd.Hidden = append(fd.Hidden, struct{ Name, Value string }{f.Key, values[f.Key]})
			}
		}
		fd.Upload, fd.Multipart = s.upload && step == 2, s.upload && step == 2
	default:
		fd = s.form(pg.Path, nil, values, errs, s.newField)
		fd.Step, fd.Confirm, fd.Submit = 3, true, "Create "+s.one
		for _, f := range s.fields {
			fd.Hidden = append(fd.Hidden, struct{ Name, Value string }{f.Key, values[f.Key]})
			fd.Review = append(fd.Review, struct{ Label, Value string }{f.Label, values[f.Key]})
		}
		if values["attachment"] != "" {
			fd.Hidden = append(fd.Hidden, struct{ Name, Value string }{"attachment_name", values["attachment"]})
		}
		fd.ReviewJS = faultJS(s.wizard)
	}
	if token != "" {
		fd.Token = token
	}
	fd.FetchSubmit = s.fetchForms
	if s.multi {
		for i, t := range []string{"Basics", "Details", "Review"} {
			fd.Steps = append(fd.Steps, navItem{Text: fmt.Sprintf("%d. %s", i+1, t), Current: i+1 == step})
		}
	}
	s.render(w, r, pg, pg.Title, "form", fd, nil)
}

// readValues reads the record fields from a posted form.
func (s *site) readValues(r *http.Request, fs []field) map[string]string {
	v := map[string]string{}
	for _, f := range fs {
		v[f.Key] = r.PostFormValue(f.Key)
	}
	return v
}

// check fires a server-side bug of fs or validates them.
func (s *site) check(w http.ResponseWriter, r *http.Request, fs []field, v map[string]string, bugs map[string]*placed) (errs map[string]string, fired bool) {
	for _, f := range fs {
		if p := bugs[f.Key]; p.fires() != "" && trips(p.Input, f, v[f.Key]) {
			s.fail(w, r, p, serverMsg(p.Input, f, strings.TrimPrefix(s.coll, "/"), p.ID))
			return nil, true
		}
	}
	errs = map[string]string{}
	for _, f := range fs {
		if msg := validate(f, v[f.Key]); msg != "" {
			errs[f.Key] = msg
		}
	}
	if len(errs) == 0 {
		return nil, false
	}
	return errs, false
}

func (s *site) serveCreate(w http.ResponseWriter, r *http.Request) {
	if err := s.readForm(w, r); err != nil {
		s.problem(w, http.StatusBadRequest, "Bad request", "The form could not be read (at most 1 MB).")
		return
	}
	token := r.PostFormValue("token")
	if len(token) > 40 {
		s.problem(w, http.StatusBadRequest, "Bad request", "The form token is not valid.")
		return
	}
	file := r.PostFormValue("attachment_name")
	if r.MultipartForm != nil {
		if fh := r.MultipartForm.File["attachment"]; len(fh) > 0 {
			file = fh[0].Filename
		}
	}
	if len(file) > 200 {
		file = file[:200]
	}
	fs := s.fields
	step := 0
	if s.multi {
		var err error
		step, err = strconv.Atoi(r.PostFormValue("step"))
		if err != nil || step < 1 || step > 3 {
			s.problem(w, http.StatusBadRequest, "Bad request", "The wizard step must be 1, 2 or 3.")
			return
		}
		if step < 3 {
			fs = s.wizardGroups()[step-1]
		}
	}
	values := s.readValues(r, s.fields)
	errs, fired := s.check(w, r, fs, values, s.newField)
	if fired {
		return
	}
	if s.multi && step < 3 {
		if file != "" {
			values["attachment"] = file
		}
		if errs != nil {
			s.renderCreate(w, r, step, values, errs, token)
			return
		}
		s.renderCreate(w, r, step+1, values, nil, token)
		return
	}
	if errs != nil {
		if s.multi {
			// a tampered review step: back to the first step with the messages
			s.renderCreate(w, r, 1, values, errs, token)
			return
		}
		s.renderCreate(w, r, 0, values, errs, token)
		return
	}
	rec, res := s.insert(values, file, token)
	if res == clash {
		p := s.double
		s.fail(w, r, p, fmt.Sprintf("Internal Server Error\n\nERROR: duplicate key value violates unique constraint \"%s_form_token_key\" (SQLSTATE 23505)\nDETAIL: Key (form_token)=(%s) already exists.\n[%s]\n", strings.TrimPrefix(s.coll, "/"), token, p.ID))
		return
	}
	if rec.DupBug != "" {
		s.log.Warn("bugfarm: bug fired", "bug", rec.DupBug, "class", ClassDouble, "path", r.URL.Path)
		w.Header().Set(BugHeader, rec.DupBug)
	}
	http.Redirect(w, r, fmt.Sprintf("%s/%d", s.coll, rec.ID), http.StatusSeeOther)
}

func (s *site) serveView(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.recordID(w, r)
	if !ok {
		return
	}
	pg := s.byKind[pView]
	type dd struct {
		Label, Key, ID, Bug, Value string
		Raw                        any
		Editable                   bool
	}
	dbl := slices.ContainsFunc(pg.Widgets, func(wd *widget) bool { return wd.Kind == wDblEdit })
	x := s.storedXSS
	var fields []dd
	for _, f := range s.fields {
		v := rec.Values[f.Key]
		if f.Kind == kCheckbox {
			v = map[bool]string{true: "Yes", false: "No"}[v == "on"]
		}
		d := dd{Label: f.Label, Key: f.Key, Value: v}
		if dbl && f.textual() {
			d.ID, d.Editable = "dbl-"+f.Key, true
		}
		if x.fires() != "" && x.sink == pView && x.field == f.Key {
			d.Raw, d.Bug = raw(x, v), x.ID
		}
		fields = append(fields, d)
	}
	events := []string{"Imported from the old system", "Checked by the team"}
	var tl template.JS
	if rec.Mine {
		events = []string{}
		tl = faultJS(s.timeline)
	}
	data := map[string]any{
		"Fields": fields, "File": rec.File, "EditPath": fmt.Sprintf("%s/%d/edit", s.coll, rec.ID), "ListPath": s.coll,
		"One": s.one, "Many": s.many, "Events": events, "TimelineJS": tl,
	}
	s.render(w, r, pg, s.titleOf(rec), "view", data, &rec)
}

func (s *site) serveEdit(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.recordID(w, r)
	if !ok {
		return
	}
	s.renderEdit(w, r, rec.ID, rec.Values, nil)
}

func (s *site) renderEdit(w http.ResponseWriter, r *http.Request, id int, values, errs map[string]string) {
	pg := s.byKind[pEdit]
	fd := s.form(fmt.Sprintf("%s/%d/edit", s.coll, id), s.fields, values, errs, s.editField)
	fd.Submit, fd.Guard = "Save changes", false
	s.render(w, r, pg, pg.Title, "form", fd, nil)
}

func (s *site) serveUpdate(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.recordID(w, r)
	if !ok {
		return
	}
	if err := s.readForm(w, r); err != nil {
		s.problem(w, http.StatusBadRequest, "Bad request", "The form could not be read (at most 1 MB).")
		return
	}
	values := s.readValues(r, s.fields)
	errs, fired := s.check(w, r, s.fields, values, s.editField)
	if fired {
		return
	}
	if errs != nil {
		s.renderEdit(w, r, rec.ID, values, errs)
		return
	}
	s.update(rec.ID, values)
	http.Redirect(w, r, fmt.Sprintf("%s/%d", s.coll, rec.ID), http.StatusSeeOther)
}

func (s *site) serveSearch(w http.ResponseWriter, r *http.Request) {
	pg := s.byKind[pSearch]
	q, ok := s.query(w, r, "q")
	if !ok {
		return
	}
	if p := s.searchQ; p.fires() != "" && p.Class == ClassServerError && strings.Contains(q, "'") {
		s.fail(w, r, p, fmt.Sprintf("Internal Server Error\n\npq: unterminated quoted string at or near \"'%s%%')\" (SQLSTATE 42601)\nquery: SELECT * FROM %s WHERE name ILIKE '%%...\n[%s]\n", strings.SplitN(q, "'", 2)[1], strings.TrimPrefix(s.coll, "/"), p.ID))
		return
	}
	type hit struct{ Title, Href string }
	var hits []hit
	if q != "" {
		for _, rec := range s.records() {
			if s.matches(rec, q) {
				hits = append(hits, hit{Title: s.titleOf(rec), Href: fmt.Sprintf("%s/%d", s.coll, rec.ID)})
			}
		}
	}
	data := map[string]any{"Path": pg.Path, "Many": s.many, "Q": q, "Hits": hits}
	if p := s.searchQ; p != nil && p.Class == ClassReflected {
		data["Echo"], data["EchoBug"] = raw(p, q), p.fires()
	} else {
		data["Echo"] = q
	}
	s.render(w, r, pg, pg.Title, "search", data, nil)
}

func (s *site) serveSection(w http.ResponseWriter, r *http.Request) {
	var pg *page
	for _, p := range s.pages {
		if p.Path == r.URL.Path || p.Kind == pBoard && strings.HasPrefix(r.URL.Path, p.Path+"/") {
			pg = p
		}
	}
	if pg == nil {
		s.serveNotFound(w, r)
		return
	}
	type kv struct{ Text, Value string }
	data := map[string]any{"Intro": sectionIntro(pg.Kind, s.many)}
	switch pg.Kind {
	case pReports:
		var cat field
		for _, f := range s.fields {
			if f.Kind == kSelect || f.Kind == kRadio {
				cat = f
			}
		}
		if cat.Key != "" {
			counts := map[string]int{}
			for _, rec := range s.records() {
				counts[rec.Values[cat.Key]]++
			}
			var stats []kv
			for _, o := range cat.Options {
				stats = append(stats, kv{o, strconv.Itoa(counts[o])})
			}
			data["Stats"], data["StatLabel"], data["Caption"] = stats, cat.Label, s.many+" by "+strings.ToLower(cat.Label)
		}
	case pHelp:
		data["FAQ"] = []kv{
			{"How do I add a " + s.one + "?", "Open “New " + s.one + "”, fill in the form and save."},
			{"Can I undo a change?", "Edit the " + s.one + " again; every change is kept in its history."},
			{"Who can see my " + s.many + "?", "Everyone on your team."},
		}
	}
	s.render(w, r, pg, pg.Title, "section", data, nil)
}

func sectionIntro(k pageKind, many string) string {
	switch k {
	case pPrefs:
		return "Changes apply at once."
	case pReports:
		return "A summary of your " + many + "."
	case pHelp:
		return "Short answers to the questions people ask most."
	case pBoard, pPlanner:
		return "Pick a view."
	}
	return "Shortcuts for everyday work."
}

// validate is the correct server-side check of one value ("" when valid).
func validate(f field, v string) string {
	if !utf8.ValidString(v) {
		return f.Label + " must be valid text."
	}
	if strings.TrimSpace(v) == "" {
		if f.Required {
			return f.Label + " is required."
		}
		return ""
	}
	switch f.Kind {
	case kNumber:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return f.Label + " must be a whole number."
		}
		if n < f.Min || n > f.Max {
			return fmt.Sprintf("%s must be between %d and %d.", f.Label, f.Min, f.Max)
		}
	case kText, kTextarea:
		if f.MaxLen > 0 && utf8.RuneCountInString(v) > f.MaxLen {
			return fmt.Sprintf("%s must be at most %d characters.", f.Label, f.MaxLen)
		}
	case kEmail:
		if a, err := mail.ParseAddress(v); err != nil || a.Address != v || len(v) > 254 {
			return "Enter an email address like name@example.org."
		}
	case kURL:
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(v) > 500 {
			return "Enter a full web address starting with https://."
		}
	case kDate:
		if _, err := time.Parse("2006-01-02", v); err != nil {
			return "Enter a date as YYYY-MM-DD."
		}
	case kTel:
		digits := 0
		for _, c := range v {
			switch {
			case c >= '0' && c <= '9':
				digits++
			case strings.ContainsRune("+ ()-", c):
			default:
				return "Enter a phone number (digits, spaces, +, - and brackets)."
			}
		}
		if digits < 6 || digits > 15 {
			return "Enter a phone number with 6 to 15 digits."
		}
	case kSelect, kRadio:
		if !slices.Contains(f.Options, v) {
			return "Choose a " + strings.ToLower(f.Label) + " from the list."
		}
	case kCheckbox:
		if v != "on" {
			return f.Label + " must be ticked or not."
		}
	}
	return ""
}
