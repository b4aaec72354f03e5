package personas_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/personas"
)

// A custom persona: a coupon hunter who tries codes in every coupon field.
// It is registered next to the built-ins, gets its own team, and its
// offline strategy runs in a real browser against a shop whose coupon
// endpoint fails on one code.
func Example_customPersona() {
	shop := http.NewServeMux()
	shop.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Shop</title><h1>Cart</h1>
<label for="c">Coupon code</label><input id="c"><button id="apply">Apply</button><p id="msg"></p>
<script>document.getElementById('apply').onclick = async () => {
  const r = await fetch('/api/coupon?code=' + encodeURIComponent(document.getElementById('c').value));
  document.getElementById('msg').textContent = await r.text();
};</script>`)
	})
	shop.HandleFunc("/api/coupon", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("code") == "FREE100" {
			http.Error(w, "discount exceeds total", http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, "unknown code")
	})
	srv := httptest.NewServer(shop)
	defer srv.Close()

	codes := []string{"WELCOME", "SAVE10", "FREE100"}
	hunter := personas.Persona{
		Name:     "coupon_hunter",
		Role:     "a bargain hunter who tries every coupon code",
		Focus:    []string{"coupon and voucher fields", "stacked and oversized discounts"},
		Keywords: []string{"coupon", "discount", "voucher"},
		NewStrategy: func() personas.Strategy {
			tried := 0
			return personas.StrategyFunc(func(s personas.Step) (browser.Intent, error) {
				fields := personas.Named(s.Elements, personas.Element.Fillable, "coupon")
				apply := personas.Named(s.Elements, personas.Element.Clickable, "apply")
				if tried >= 2*len(codes) || len(fields) == 0 || len(apply) == 0 {
					return browser.Intent{}, personas.ErrDone
				}
				tried++
				if tried%2 == 1 {
					return personas.Fill(fields[0], codes[tried/2]), nil
				}
				return personas.Click(apply[0]), nil
			})
		},
	}
	reg := personas.NewRegistry()
	if err := reg.Register(hunter); err != nil {
		panic(err)
	}
	if err := reg.SetTeam("checkout", "coupon_hunter", personas.Impatient); err != nil {
		panic(err)
	}
	route, _ := reg.Route("Try discount codes at checkout", "checkout")
	fmt.Println("team:", route.Team, len(route.Personas), "personas")
	fmt.Println(strings.SplitN(hunter.SystemPrompt(personas.PromptInput{App: personas.App{Name: "Shop"}}), "\n", 2)[0])

	ctx := context.Background()
	b, err := browser.Launch(ctx, browser.LaunchOptions{})
	if err != nil {
		fmt.Println("no browser:", err)
		return
	}
	defer b.Close()
	eng, err := b.NewEngine(browser.Config{Origins: []string{srv.URL}})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	user, err := eng.User(ctx, "hunter")
	if err != nil {
		panic(err)
	}
	rep, err := personas.Run(ctx, user, hunter, personas.RunOptions{Start: srv.URL + "/", Steps: 10, Seed: 1})
	if err != nil {
		panic(err)
	}
	for _, f := range rep.Findings {
		if f.Kind == browser.FindServerError {
			fmt.Printf("%s: %s after %q (tape entry %d: %s)\n", f.Kind, f.Title, f.Payload, f.TapeIndex, rep.Tape[f.TapeIndex].Action)
		}
	}
	// Output:
	// team: checkout 2 personas
	// You are coupon_hunter, a bargain hunter who tries every coupon code, testing a web application for bugs.
	// http_5xx: GET /api/coupon?code=FREE100 returned 500 after "FREE100" (tape entry 6: click)
}
