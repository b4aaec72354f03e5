package personas

import "slices"

// Preference is the persona's offline strategy over the app model: its
// score for a target, added to the model's own (Model.Score) when the
// model picks the next target (Model.Next and NextFar take it as their
// prefer hook). It is the catalogue's order of input classes (ClassBias)
// plus the persona's own lean ([Persona.Prefer]): the explorer's team and
// [ModelStrategy] both pick targets by it, so a persona leans the same
// way wherever it runs offline.
func (p Persona) Preference() func(Target) float64 {
	lean := p.Prefer
	return func(t Target) float64 {
		s := ClassBias(t.Action)
		if lean != nil {
			s += lean(t)
		}
		return s
	}
}

// ClassBias orders the catalogue's classes within a field by how often
// they break an app: the classic equivalence classes and boundaries
// first, the exotic variants of a class after. Other actions get 0.
func ClassBias(a Action) float64 {
	if a.Kind != ActionFill {
		return 0
	}
	switch a.Class {
	case ClassValid:
		// A submission fills the field validly already, and so does
		// every other field's class: alone it tells little.
		return -3
	case ClassMarkup, ClassQuotes:
		// Injection: the classes whose bugs are the most severe.
		return 1.5
	case ClassEmpty, ClassNonLatin, ClassLong256, ClassNegative, ClassZero, ClassHuge, ClassAboveMax:
		return 1
	case ClassEmoji, ClassRTL, ClassLong10001, ClassWhitespace, ClassPadded, ClassMin, ClassMax, ClassBelowMin:
		return -1.5
	}
	return 0
}

// The built-in personas' leans over the model's targets.

// leanHostile: invalid and hostile input classes (adversarial).
func leanHostile(t Target) float64 {
	if t.Action.Kind == ActionFill && t.Action.Class != ClassValid {
		return 2
	}
	return 0
}

// leanKinds scores the targets of the given kinds: new user and
// explorer, clicks (what moves through the app); power user and data
// heavy, selects, toggles and keys; impatient, double clicks;
// accessibility, key presses.
func leanKinds(bonus float64, kinds ...ActionKind) func(Target) float64 {
	return func(t Target) float64 {
		if slices.Contains(kinds, t.Action.Kind) {
			return bonus
		}
		return 0
	}
}
