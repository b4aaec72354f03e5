package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
)

// Func is the Go function behind a typed tool: it receives the decoded
// arguments and returns text for the model.
type Func[In any] func(ctx context.Context, in In) (string, error)

// Typed is a Tool built from a Go function. Its JSON Schema is derived from
// In, and its arguments are decoded strictly into In before fn runs.
//
// Schema rules (github.com/invopop/jsonschema): every field whose json tag
// lacks omitempty/omitzero is required; no additional properties are
// accepted; `jsonschema:"description=…,enum=a,enum=b"` tags add descriptions
// and allowed values.
type Typed[In any] struct {
	name        string
	description string
	fn          Func[In]
	schema      json.RawMessage
	fields      []field // top-level properties, in declaration order
}

type field struct {
	name     string
	typ      string // JSON Schema type, for messages
	required bool
	enum     []any
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Define builds a typed tool. It fails when name is not 1–64 characters of
// [a-zA-Z0-9_-], fn is nil, or In is not a struct (tool arguments are a JSON
// object).
func Define[In any](name, description string, fn Func[In]) (*Typed[In], error) {
	if !namePattern.MatchString(name) {
		return nil, fmt.Errorf("tools: tool name %q: want 1-64 characters of [a-zA-Z0-9_-]", name)
	}
	if fn == nil {
		return nil, fmt.Errorf("tools: tool %q: nil function", name)
	}
	t := reflect.TypeFor[In]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("tools: tool %q: argument type %s is not a struct", name, t)
	}
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	s := r.ReflectFromType(t)
	s.Version = ""
	s.Definitions = nil
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("tools: tool %q: schema: %w", name, err)
	}
	tt := &Typed[In]{name: name, description: description, fn: fn, schema: raw}
	if s.Properties != nil {
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			tt.fields = append(tt.fields, field{
				name:     pair.Key,
				typ:      schemaType(pair.Value),
				required: slices.Contains(s.Required, pair.Key),
				enum:     pair.Value.Enum,
			})
		}
	}
	return tt, nil
}

// New is Define for tools declared at program start: it panics when the
// definition itself is wrong (bad name, nil fn, non-struct In), like
// regexp.MustCompile. Bad arguments at call time never panic.
func New[In any](name, description string, fn Func[In]) *Typed[In] {
	t, err := Define(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}

func schemaType(s *jsonschema.Schema) string {
	if s == nil {
		return "any"
	}
	if s.Type != "" {
		return s.Type
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		return "one of several types"
	}
	return "any"
}

// Name implements Tool.
func (t *Typed[In]) Name() string { return t.name }

// Description implements Tool.
func (t *Typed[In]) Description() string { return t.description }

// Schema implements Tool: the JSON Schema of In.
func (t *Typed[In]) Schema() json.RawMessage { return slices.Clone(t.schema) }

// Call decodes args strictly into In and runs the function. A decoding
// problem is returned as *ArgumentError.
func (t *Typed[In]) Call(ctx context.Context, args json.RawMessage) (string, error) {
	in, err := t.Decode(args)
	if err != nil {
		return "", err
	}
	return t.fn(ctx, in)
}

// Decode parses args as the tool would, without running it. Empty args and
// JSON null count as an empty object.
func (t *Typed[In]) Decode(args json.RawMessage) (In, error) {
	var in In
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &top); err != nil {
		return in, t.argErr("", "arguments must be a JSON object: %s", jsonProblem(err))
	}
	if top == nil {
		return in, t.argErr("", "arguments must be a JSON object, got null")
	}
	known := make([]string, 0, len(t.fields))
	for _, f := range t.fields {
		known = append(known, f.name)
	}
	var unknown []string
	for k := range top {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return in, t.argErr(unknown[0], "unknown field(s) %s; allowed fields: %s", quoteAll(unknown), t.fieldList())
	}
	for _, f := range t.fields {
		v, ok := top[f.name]
		if f.required && (!ok || bytes.Equal(bytes.TrimSpace(v), []byte("null"))) {
			return in, t.argErr(f.name, "missing required field %q (%s); allowed fields: %s", f.name, f.typ, t.fieldList())
		}
		if ok && len(f.enum) > 0 {
			var got any
			if err := json.Unmarshal(v, &got); err == nil && !enumContains(f.enum, got) {
				return in, t.argErr(f.name, "field %q: %s is not allowed; expected one of %s", f.name, strings.TrimSpace(string(v)), enumList(f.enum))
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			name := te.Field
			return in, t.argErr(name, "field %q: expected %s, got JSON %s", name, goTypeToJSON(te.Type), te.Value)
		}
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return in, t.argErr(strings.Trim(rest, `"`), "unknown nested field %s", rest)
		}
		return in, t.argErr("", "%s", jsonProblem(err))
	}
	return in, nil
}

func (t *Typed[In]) fieldList() string {
	if len(t.fields) == 0 {
		return "(none)"
	}
	parts := make([]string, 0, len(t.fields))
	for _, f := range t.fields {
		p := f.name + " (" + f.typ
		if !f.required {
			p += ", optional"
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, ", ")
}

func (t *Typed[In]) argErr(fieldName, format string, a ...any) error {
	return &ArgumentError{Tool: t.name, Field: fieldName, Msg: fmt.Sprintf(format, a...)}
}

// ArgumentError reports arguments that do not fit a tool's schema.
type ArgumentError struct {
	Tool  string
	Field string // the offending field ("" when the whole object is wrong)
	Msg   string
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for tool %q: %s", e.Tool, e.Msg)
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("expected %s, got JSON %s", goTypeToJSON(te.Type), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func goTypeToJSON(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return t.String()
	}
}

func enumContains(enum []any, v any) bool {
	for _, e := range enum {
		if fmt.Sprint(e) == fmt.Sprint(v) {
			return true
		}
	}
	return false
}

func enumList(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		b, _ := json.Marshal(e)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
