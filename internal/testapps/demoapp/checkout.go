package demoapp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ---- checkout wizard ----

type checkoutPage struct {
	checkout
	Plans     []plan
	Countries []string
	Errors    map[string]string
	PlanName  string
	Price     int
}

func (a *App) checkoutView(s *session) checkoutPage {
	a.mu.Lock()
	c := s.checkout
	a.mu.Unlock()
	cp := checkoutPage{checkout: c, Plans: plans, Countries: countries}
	for _, p := range plans {
		if p.ID == c.Plan {
			cp.PlanName, cp.Price = p.Name, p.Price
		}
	}
	return cp
}

func parseStep(r *http.Request) (int, bool) {
	switch r.PathValue("step") {
	case "1":
		return 1, true
	case "2":
		return 2, true
	case "3":
		return 3, true
	}
	return 0, false
}

func (a *App) checkoutStep(w http.ResponseWriter, r *http.Request, s *session) {
	step, ok := parseStep(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	cp := a.checkoutView(s)
	if step > cp.Step+1 {
		http.Redirect(w, r, "/checkout/"+strconv.Itoa(cp.Step+1), http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "checkout"+strconv.Itoa(step), view{Title: fmt.Sprintf("Checkout – step %d of 3", step), User: a.displayName(), Active: "checkout", Page: cp})
}

func (a *App) checkoutSubmit(w http.ResponseWriter, r *http.Request, s *session) {
	step, ok := parseStep(r)
	if !ok {
		a.notFound(w, r)
		return
	}
	if !parseForm(w, r) {
		return
	}
	cp := a.checkoutView(s)
	if step > cp.Step+1 {
		http.Redirect(w, r, "/checkout/"+strconv.Itoa(cp.Step+1), http.StatusSeeOther)
		return
	}
	errs := map[string]string{}
	a.mu.Lock()
	c := s.checkout
	switch step {
	case 1:
		c.Plan = r.PostForm.Get("plan")
		if !slices.ContainsFunc(plans, func(p plan) bool { return p.ID == c.Plan }) {
			errs["plan"] = "Choose a plan."
		}
	case 2:
		c.Company = truncate(strings.TrimSpace(r.PostForm.Get("company")), 200)
		c.Email = truncate(strings.TrimSpace(r.PostForm.Get("email")), 200)
		c.Country = r.PostForm.Get("country")
		if c.Company == "" {
			errs["company"] = "Company is required."
		}
		if !strings.Contains(c.Email, "@") {
			errs["email"] = "Enter a valid email address."
		}
		if !slices.Contains(countries, c.Country) {
			errs["country"] = "Choose a country."
		}
	}
	if len(errs) == 0 {
		if step == 3 {
			c = checkout{Orders: c.Orders + 1}
		} else {
			c.Step = max(c.Step, step)
		}
		s.checkout = c
	}
	a.mu.Unlock()
	if len(errs) > 0 {
		cp := a.checkoutView(s)
		cp.checkout = c
		cp.Errors = errs
		a.render(w, r, http.StatusUnprocessableEntity, "checkout"+strconv.Itoa(step), view{Title: fmt.Sprintf("Checkout – step %d of 3", step), User: a.displayName(), Active: "checkout", Page: cp})
		return
	}
	if step == 3 {
		http.Redirect(w, r, "/checkout/done", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/checkout/"+strconv.Itoa(step+1), http.StatusSeeOther)
}

type draftResponse struct {
	Saved   bool   `json:"saved"`
	Message string `json:"message"`
}

func (a *App) checkoutDraft(w http.ResponseWriter, r *http.Request, s *session) {
	if !parseForm(w, r) {
		return
	}
	a.mu.Lock()
	s.checkout.Company = truncate(strings.TrimSpace(r.PostForm.Get("company")), 200)
	s.checkout.Email = truncate(strings.TrimSpace(r.PostForm.Get("email")), 200)
	if c := r.PostForm.Get("country"); slices.Contains(countries, c) {
		s.checkout.Country = c
	}
	s.checkout.Draft = true
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(draftResponse{Saved: true, Message: "Draft saved."})
}

func (a *App) checkoutDone(w http.ResponseWriter, r *http.Request, s *session) {
	a.render(w, r, http.StatusOK, "checkout_done", view{Title: "Order confirmed", User: a.displayName(), Active: "checkout", Page: a.checkoutView(s)})
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
