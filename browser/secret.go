package browser

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mxschmitt/playwright-go"
)

// Secrets keeps the secret values typed into pages (passwords, tokens) and
// the references that stand for them everywhere they are recorded: the
// tape, the window, results and specs hold ${SECRET_1}, never the value.
// A generated spec reads process.env.SECRET_1; Env gives the variables to
// run it with. An engine fills a field with the value when an intent's
// value is a reference it knows (or one set in the environment), so a
// recorded tape replays. Safe for concurrent use; share one between the
// engines of a run (Config.Secrets) so that replays resolve references.
type Secrets struct {
	mu      sync.Mutex
	byValue map[string]string // value -> name (SECRET_n)
	byName  map[string]string // name -> value
}

// NewSecrets returns an empty set; values adds known secrets up front (a
// configured password), in order: the first is SECRET_1.
func NewSecrets(values ...string) *Secrets {
	s := &Secrets{byValue: map[string]string{}, byName: map[string]string{}}
	for _, v := range values {
		s.Add(v)
	}
	return s
}

// reSecretRef is a whole value that is a secret reference.
var reSecretRef = regexp.MustCompile(`^\$\{(SECRET_[0-9]{1,4})\}$`)

// SecretRef reports whether v is a reference such as ${SECRET_1} and
// returns its variable name.
func SecretRef(v string) (name string, ok bool) {
	m := reSecretRef.FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// Add registers value as a secret and returns its reference. Values
// shorter than 3 bytes are not secrets (they would be redacted everywhere
// they occur by chance); they come back unchanged.
func (s *Secrets) Add(value string) string {
	if s == nil || len(value) < 3 {
		return value
	}
	if _, ok := SecretRef(value); ok {
		return value
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if name, ok := s.byValue[value]; ok {
		return "${" + name + "}"
	}
	name := "SECRET_" + strconv.Itoa(len(s.byName)+1)
	s.byValue[value] = name
	s.byName[name] = value
	return "${" + name + "}"
}

// Ref returns the reference of a known secret value.
func (s *Secrets) Ref(value string) (string, bool) {
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name, ok := s.byValue[value]
	if !ok {
		return "", false
	}
	return "${" + name + "}", true
}

// Resolve returns the value a reference stands for: a secret of this set,
// else the environment variable of that name. Anything else is returned
// unchanged with ok=false.
func (s *Secrets) Resolve(v string) (string, bool) {
	name, ok := SecretRef(v)
	if !ok {
		return v, false
	}
	if s != nil {
		s.mu.Lock()
		val, ok := s.byName[name]
		s.mu.Unlock()
		if ok {
			return val, true
		}
	}
	if val, ok := os.LookupEnv(name); ok {
		return val, true
	}
	return v, false
}

// Redact replaces every known secret value in text by its reference,
// longest first (so a secret that contains another goes whole).
func (s *Secrets) Redact(text string) string {
	if s == nil || text == "" {
		return text
	}
	s.mu.Lock()
	vals := make([]string, 0, len(s.byValue))
	for v := range s.byValue {
		vals = append(vals, v)
	}
	s.mu.Unlock()
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	for _, v := range vals {
		if strings.Contains(text, v) {
			ref, _ := s.Ref(v)
			text = strings.ReplaceAll(text, v, ref)
		}
	}
	return text
}

// Env is the environment a generated spec needs: NAME=value lines, in
// name order.
func (s *Secrets) Env() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name, v := range s.byName {
		out = append(out, name+"="+v)
	}
	slices.SortFunc(out, func(a, b string) int {
		na, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(a, "=", 2)[0], "SECRET_"))
		nb, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(b, "=", 2)[0], "SECRET_"))
		return na - nb
	})
	return out
}

// Len is the number of secrets.
func (s *Secrets) Len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byName)
}

// secretFieldJS tells whether an element takes a secret: a password input
// (also one that a script turned into text to show it), an
// autocomplete=*password / one-time-code field, or one matching a selector
// of Config.SecretFields.
const secretFieldJS = `(el, sels) => {
  const t = (el.getAttribute('type') || '').toLowerCase();
  const ac = (el.getAttribute('autocomplete') || '').toLowerCase();
  if (t === 'password' || ac.includes('password') || ac.includes('one-time-code')) return true;
  for (const s of sels) { try { if (el.matches(s)) return true; } catch (e) {} }
  return false;
}`

// fillValue is what a fill intent types and records: typed is the value
// for the page (a reference resolved), recorded the value for the tape (a
// reference when the field or the value is secret). The caller holds s.mu;
// loc is the field. Intents that type into fields (fill, and fill_form's
// fill fields) use it for every value.
func (s *Session) fillValue(ctx context.Context, loc playwright.Locator, value string) (typed, recorded string) {
	sec := s.e.secrets
	typed, _ = sec.Resolve(value)
	if ref, ok := sec.Ref(typed); ok {
		return typed, ref
	}
	sels := s.e.cfg.SecretFields
	if sels == nil {
		sels = []string{}
	}
	secret, err := bounded(ctx, s.e.cfg.ActionTimeout, "secret field", func() (any, error) {
		return loc.Evaluate(secretFieldJS, sels, playwright.LocatorEvaluateOptions{Timeout: playwright.Float(float64(s.e.cfg.ActionTimeout.Milliseconds()))})
	})
	if b, _ := secret.(bool); b && err == nil {
		return typed, sec.Add(typed)
	}
	return typed, typed
}

// RedactIntent replaces known secret values in an intent by their references.
func (s *Secrets) RedactIntent(in Intent) Intent {
	if s == nil || s.Len() == 0 {
		return in
	}
	if in.Value != nil {
		v := s.Redact(*in.Value)
		in.Value = &v
	}
	in.Text = s.Redact(in.Text)
	in.FileContent = s.Redact(in.FileContent)
	if in.Fields != nil {
		fields := slices.Clone(in.Fields)
		for i := range fields {
			fields[i].Value = s.Redact(fields[i].Value)
		}
		in.Fields = fields
	}
	return in
}

// fillValueTS is the TypeScript of a recorded fill value: a secret
// reference reads its environment variable (the spec fails clearly when it
// is unset), any other value is an escaped string literal.
func fillValueTS(v string) string {
	if name, ok := SecretRef(v); ok {
		return "secret(" + jsString(name) + ")"
	}
	return jsString(v)
}

// secretTS is the spec helper that reads a secret reference's variable.
const secretTS = `function secret(name: string): string {
  const v = process.env[name];
  if (v === undefined) throw new Error(` + "`" + `set ${name}: the recording typed a secret there (explorer: Secrets.Env)` + "`" + `);
  return v;
}
`

// RedactHandler wraps h so that the message and every string attribute
// of a record (in groups too) have secrets' values replaced by their
// references before h sees them. The engine's own logger is wrapped so.
func RedactHandler(h slog.Handler, secrets *Secrets) slog.Handler {
	if rh, ok := h.(redactHandler); ok && rh.s == secrets {
		return rh
	}
	return redactHandler{h: h, s: secrets}
}

type redactHandler struct {
	h slog.Handler
	s *Secrets
}

func (r redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, r.s.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = r.attr(a)
	}
	return redactHandler{h: r.h.WithAttrs(red), s: r.s}
}

func (r redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{h: r.h.WithGroup(name), s: r.s}
}

// attr redacts a's strings; other kinds (an error, a Stringer) are
// turned into their text first, which is what a handler would print.
func (r redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.s.Redact(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = r.attr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, r.s.Redact(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, r.s.Redact(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
