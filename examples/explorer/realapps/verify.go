package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/realapps/kit"
)

// Proof is one mutation's trigger played on the mutated build and on the
// clean one.
type Proof struct {
	ID      string      `json:"id"`
	Class   kit.Class   `json:"class"`
	What    string      `json:"what"`
	Mutated kit.Verdict `json:"mutated"`
	Clean   kit.Verdict `json:"clean"`
	// MutatedErr and CleanErr are trigger steps that could not be played.
	MutatedErr string `json:"mutated_error,omitempty"`
	CleanErr   string `json:"clean_error,omitempty"`
}

// OK says the trigger proved the mutation: visible on the mutated build,
// absent on the clean one, every step played on both.
func (p Proof) OK() bool {
	return p.MutatedErr == "" && p.CleanErr == "" && p.Mutated.Visible && !p.Clean.Visible
}

// triggerTimeout bounds one trigger run.
const triggerTimeout = 90 * time.Second

// verify plays every trigger of a (or of ids, when given) on a fresh
// instance with all of a's mutations patched in, then on a fresh clean
// instance.
func verify(ctx context.Context, a kit.App, cache string, b *browser.Browser, ids []string, progress io.Writer) ([]Proof, error) {
	muts := a.Mutations
	if len(ids) > 0 {
		muts = nil
		for _, id := range ids {
			m, ok := a.Mutation(id)
			if !ok {
				return nil, fmt.Errorf("%s: no mutation %q", a.Name, id)
			}
			muts = append(muts, m)
		}
	}
	proofs := make([]Proof, len(muts))
	for i, m := range muts {
		proofs[i] = Proof{ID: m.ID, Class: m.Class, What: m.What}
	}
	for _, mutated := range []bool{true, false} {
		var apply []string
		if mutated {
			for _, m := range a.Mutations {
				apply = append(apply, m.ID)
			}
		}
		inst, err := kit.Start(ctx, a, cache, kit.StartOptions{Mutations: apply})
		if err != nil {
			return nil, err
		}
		for i, m := range muts {
			tctx, cancel := context.WithTimeout(ctx, triggerTimeout)
			v, err := kit.Run(tctx, b, inst.URL, a.Account, m)
			cancel()
			if ctx.Err() != nil {
				inst.Close()
				return nil, ctx.Err()
			}
			es := ""
			if err != nil {
				es = err.Error()
			}
			if mutated {
				proofs[i].Mutated, proofs[i].MutatedErr = v, es
			} else {
				proofs[i].Clean, proofs[i].CleanErr = v, es
			}
		}
		inst.Close()
	}
	for _, p := range proofs {
		verdict := "proved"
		if !p.OK() {
			verdict = "NOT PROVED"
		}
		fmt.Fprintf(progress, "  %s %-14s %s: mutated %s; clean %s\n", p.ID, p.Class, verdict, say(p.Mutated, p.MutatedErr), say(p.Clean, p.CleanErr))
	}
	return proofs, nil
}

func say(v kit.Verdict, err string) string {
	if err != "" {
		return "error: " + err
	}
	w := "absent"
	if v.Visible {
		w = "visible"
	}
	if v.Evidence != "" {
		w += " (" + clipText(v.Evidence, 160) + ")"
	}
	return w
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
