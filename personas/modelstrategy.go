package personas

import (
	"errors"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
)

// ErrPass is returned by a persona's own Strategy when it has nothing of
// its own to do on this step: the app model, played by the persona's
// preference, chooses instead (see [Persona.Strategy]).
var ErrPass = errors.New("personas: nothing of the persona's own here")

// Strategy is the persona's offline strategy for one run: its own
// strategy (NewStrategy) when it has one, then its tricks (Tricks, played
// by the same TrickPlayer as in the explorer's team), then the app model
// (ModelStrategy) played by its preference. The own strategy goes first
// on every step; when it returns ErrPass the tricks are asked, and when
// none has anything to do on the page the model chooses. The model
// observes every page, and a macro under way (a trick's, or a model
// target's fields and submission) is finished before anything else is
// asked. Nil when NewStrategy returns nil.
func (p Persona) Strategy() Strategy {
	ms := newModelStrategy(p.Preference())
	var own Strategy
	if p.NewStrategy != nil {
		if own = p.NewStrategy(); own == nil {
			return nil
		}
	}
	if own == nil && len(p.Tricks) == 0 {
		return ms
	}
	return &overModel{own: own, tricks: newTrickStrategy(p.Tricks, ms), ms: ms}
}

// overModel is a persona's own strategy and tricks over the app model.
type overModel struct {
	own    Strategy // nil: none
	tricks *trickStrategy
	ms     *modelStrategy
}

func (o *overModel) Next(s Step) (browser.Intent, error) {
	here := o.ms.observe(s)
	o.tricks.observe(s)
	if in, ok := o.ms.carryOn(s, here); ok {
		return in, nil
	}
	if len(o.tricks.q) == 0 && o.own != nil {
		in, err := o.own.Next(s)
		if !errors.Is(err, ErrPass) {
			return in, err
		}
	}
	if in, ok := o.tricks.next(s); ok {
		return in, nil
	}
	return o.ms.pick(s, here)
}

// ModelStrategy plays the app model (a [Model] of its own, built as it
// goes): every step it observes the page, records where its previous
// target led (Model.Transition; Model.Fail when an intent of it failed),
// and goes for the best untried target the model offers
// (Model.NextFar, prefer as the hook): here, or by the known way to its
// state, or by opening an entry URL. A field's input class is typed with
// the page's other empty fields valid (ValidValue) and submitted the
// page's own way: its submit button, else Enter in the field. The
// intents of one target go out one per step. It is ErrDone when no
// untried target is reachable. Deterministic: it uses no randomness.
func ModelStrategy(prefer func(Target) float64) Strategy { return newModelStrategy(prefer) }

func newModelStrategy(prefer func(Target) float64) *modelStrategy {
	return &modelStrategy{m: NewModel(Limits{}), prefer: prefer}
}

// modelHop is what a step of the way to a target costs against its
// score (see Model.NextFar).
const modelHop = 1.5

type modelStrategy struct {
	m      *Model
	cur    StateID // the state of the latest page observed
	prefer func(Target) float64
	// pend is the target being played: its state, its key and the
	// intents still to send.
	pend *modelPending
}

type modelPending struct {
	from StateID
	key  ActionKey
	q    []browser.Intent
}

// observe adds the page to the model; the collector's own pages (where a
// persona clears the site's data) are not the app's.
func (ms *modelStrategy) observe(s Step) StateID {
	if strings.Contains(s.Snapshot.URL, collector.Prefix) {
		ms.cur = ""
		return ""
	}
	ms.cur = ms.m.Observe(s.Snapshot.URL, s.Elements)
	return ms.cur
}

func (ms *modelStrategy) Next(s Step) (browser.Intent, error) {
	here := ms.observe(s)
	if in, ok := ms.carryOn(s, here); ok {
		return in, nil
	}
	return ms.pick(s, here)
}

// carryOn settles the target in play: the next intent of its macro, or
// where it led (a failed intent fails it).
func (ms *modelStrategy) carryOn(s Step, here StateID) (browser.Intent, bool) {
	p := ms.pend
	if p == nil {
		return browser.Intent{}, false
	}
	last, ok := s.Last()
	switch {
	case ok && !last.OK:
		ms.m.Fail(p.from, p.key)
	case len(p.q) > 0:
		in := p.q[0]
		p.q = p.q[1:]
		return in, true
	default:
		ms.m.Transition(p.from, p.key, here, 0)
	}
	ms.pend = nil
	return browser.Intent{}, false
}

// pick chooses the next target from state here.
func (ms *modelStrategy) pick(s Step, here StateID) (browser.Intent, error) {
	for range 8 {
		t, path, ok := ms.m.NextFar(here, ms.prefer, modelHop)
		if !ok {
			return browser.Intent{}, ErrDone
		}
		key := t.Key()
		if len(path) > 0 {
			key = path[0] // on the way: its first step, from here
		}
		a, err := ParseActionKey(key)
		if err != nil {
			ms.m.Fail(here, key)
			continue
		}
		if a.Kind == ActionNavigate {
			ms.pend = &modelPending{from: here, key: key}
			return Navigate(a.Arg), nil
		}
		el, ok := Locate(a, s.Elements)
		if !ok {
			ms.m.Fail(here, key)
			continue
		}
		in, _ := ms.m.Input(Target{State: here, Action: a})
		ins := a.Intents(el, in)
		if a.Kind == ActionFill && len(ins) > 0 {
			// One field's class at a time, with the other empty
			// fields valid, so that their refusal hides nothing.
			var others []browser.Intent
			for _, e := range s.Elements {
				if e.Ref != el.Ref && e.Fillable() && e.Value == "" && !e.Has("disabled") {
					others = append(others, Fill(e, ValidValue(FieldOf(e, nil))))
				}
			}
			ins = append(append(others, ins...), submitAfter(el, s.Elements))
		}
		if len(ins) == 0 {
			ms.m.Fail(here, key)
			continue
		}
		ms.pend = &modelPending{from: here, key: key, q: ins[1:]}
		return ins[0], nil
	}
	return browser.Intent{}, ErrDone
}

// submitAfter sends what was typed into field the page's own way: its
// submit button, else Enter in the field.
func submitAfter(field Element, els []Element) browser.Intent {
	if b, ok := SubmitButton(els); ok {
		return Click(b)
	}
	return Press(field, "Enter")
}
