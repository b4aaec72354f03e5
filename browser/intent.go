package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Action names one thing an agent may do in the browser.
type Action string

// The allowed actions.
const (
	ActNavigate     Action = "navigate"
	ActClick        Action = "click"
	ActFill         Action = "fill"
	ActPress        Action = "press"
	ActSelectOption Action = "select_option"
	ActHover        Action = "hover"
	ActWaitFor      Action = "wait_for"
	ActScroll       Action = "scroll"
	ActExtractText  Action = "extract_text"
	ActSnapshot     Action = "snapshot"
	ActCheckHealth  Action = "check_page_health"
	ActScreenshot   Action = "screenshot"
	ActGoBack       Action = "go_back"
	ActReload       Action = "reload"
	ActDblclick     Action = "dblclick"
	ActFocus        Action = "focus"
	ActCheck        Action = "check"
	ActUncheck      Action = "uncheck"
	ActDrag         Action = "drag"
	ActSetFiles     Action = "set_input_files"
	// ActClearSiteData clears the browser context's cookies and the
	// page's local and session storage: the session ends as if it had
	// expired (the page stays; navigate or reload next).
	ActClearSiteData Action = "clear_site_data"
	// ActFillForm fills several fields of a form in one action, in order
	// (Intent.Fields): text into inputs, an option of a select, a tick.
	ActFillForm Action = "fill_form"
)

// Intent is one browser action as an agent emits it (JSON). Which fields are
// allowed and required depends on Action; ParseIntent checks that.
type Intent struct {
	Action Action `json:"action" jsonschema:"description=what to do,enum=navigate,enum=click,enum=fill,enum=press,enum=select_option,enum=hover,enum=wait_for,enum=scroll,enum=extract_text,enum=snapshot,enum=check_page_health,enum=screenshot,enum=go_back,enum=reload,enum=dblclick,enum=focus,enum=check,enum=uncheck,enum=drag,enum=set_input_files,enum=clear_site_data,enum=fill_form"`
	// Target is a snapshot ref (e12) or a stable selector (see ParseTarget).
	Target string `json:"target,omitempty" jsonschema:"description=a snapshot ref such as e12 or a stable selector: [data-testid=\"…\"]\\, role=button[name=\"…\"]\\, label=…\\, text=…\\, #id"`
	// URL for navigate: absolute within the allowed origins, or a path.
	URL string `json:"url,omitempty" jsonschema:"description=navigate: a path such as /login or a URL of the app"`
	// Value for fill (the text) and select_option (the option's value or label).
	Value *string `json:"value,omitempty" jsonschema:"description=fill: the text; select_option: the option's value or label"`
	// Key for press, e.g. "Enter", "Control+A".
	Key string `json:"key,omitempty" jsonschema:"description=press: a key such as Enter or Control+A"`
	// Text for wait_for: wait until this text is visible.
	Text string `json:"text,omitempty" jsonschema:"description=wait_for: visible text to wait for"`
	// State for wait_for with a target: visible (default), hidden, attached, detached.
	State string `json:"state,omitempty" jsonschema:"description=wait_for with target: the state to wait for,enum=visible,enum=hidden,enum=attached,enum=detached"`
	// Direction for scroll: down (default), up, top, bottom.
	Direction string `json:"direction,omitempty" jsonschema:"description=scroll: which way,enum=down,enum=up,enum=top,enum=bottom"`
	// Pixels for scroll up/down (default 600).
	Pixels int `json:"pixels,omitempty" jsonschema:"description=scroll up/down: how far (default 600)"`
	// FullPage for screenshot.
	FullPage bool `json:"full_page,omitempty" jsonschema:"description=screenshot: the whole scrollable page"`
	// TimeoutMS for wait_for (default 5000, at most 30000).
	TimeoutMS int `json:"timeout_ms,omitempty" jsonschema:"description=wait_for: at most 30000 (default 5000)"`
	// To for drag: the element to drop on, a ref or a stable selector.
	To string `json:"to,omitempty" jsonschema:"description=drag: the element to drop the target on (a ref such as e7 or a stable selector)"`
	// FileName, FileContent and MimeType for set_input_files: the small
	// file generated and given to the file input (no file of the host is
	// ever read).
	FileName    string `json:"file_name,omitempty" jsonschema:"description=set_input_files: the file's name such as notes.txt (default agentgraph-upload.txt)"`
	FileContent string `json:"file_content,omitempty" jsonschema:"description=set_input_files: the file's text (at most 65536 bytes; default a short line)"`
	MimeType    string `json:"mime_type,omitempty" jsonschema:"description=set_input_files: the MIME type (default from the name's extension)"`
	// Fields for fill_form: the fields to fill, in order.
	Fields []FormField `json:"fields,omitempty" jsonschema:"description=fill_form: the fields to fill\\, in order (at most 50)"`
}

// FormField is one field of a fill_form intent.
type FormField struct {
	// Target is a snapshot ref or a stable selector, as Intent.Target.
	Target string `json:"target" jsonschema:"description=a snapshot ref such as e12 or a stable selector"`
	// Value is the text (fill) or the option's value or label (select);
	// check ignores it.
	Value string `json:"value" jsonschema:"description=fill: the text; select: the option's value or label; check: ignored (may be empty)"`
	// Kind is FieldFill (default), FieldSelect or FieldCheck.
	Kind string `json:"kind,omitempty" jsonschema:"description=fill (default: replace the text of an input or textarea)\\, select (choose an option of a select) or check (tick a checkbox or radio button),enum=fill,enum=select,enum=check"`
}

// The kinds of a FormField.
const (
	FieldFill   = "fill"
	FieldSelect = "select"
	FieldCheck  = "check"
)

// MaxFormFields is the most fields one fill_form takes.
const MaxFormFields = 50

// Typed lists the texts the intent types into fields: a fill's value, or
// the values of a fill_form's fill fields in order (nil for other
// actions; options chosen and boxes ticked are not typed).
func (in Intent) Typed() []string {
	switch in.Action {
	case ActFill:
		return []string{in.ValueOrEmpty()}
	case ActFillForm:
		var out []string
		for _, f := range in.Fields {
			if f.kind() == FieldFill {
				out = append(out, f.Value)
			}
		}
		return out
	}
	return nil
}

// kind is the field's kind, FieldFill when unset.
func (f FormField) kind() string {
	if f.Kind == "" {
		return FieldFill
	}
	return f.Kind
}

// Defaults of set_input_files.
const (
	DefaultFileName    = "agentgraph-upload.txt"
	DefaultFileContent = "agentgraph test upload\n"
	maxFileContent     = 64 << 10
)

// UploadFile is the file set_input_files gives the input: the intent's
// name, content and type, or their defaults.
func (in Intent) UploadFile() (name, mimeType, content string) {
	name, content, mimeType = in.FileName, in.FileContent, in.MimeType
	if name == "" {
		name = DefaultFileName
	}
	if content == "" {
		content = DefaultFileContent
	}
	if mimeType == "" {
		mimeType = uploadTypes[strings.ToLower(path.Ext(name))]
	}
	if mimeType == "" {
		mimeType = mime.TypeByExtension(path.Ext(name))
		if i := strings.IndexByte(mimeType, ';'); i >= 0 {
			mimeType = mimeType[:i]
		}
		if mimeType == "" {
			mimeType = "application/octet-stream"
		}
	}
	return name, mimeType, content
}

// uploadTypes fixes the usual upload types, whatever the host's mime.types.
var uploadTypes = map[string]string{".txt": "text/plain", ".csv": "text/csv", ".json": "application/json",
	".xml": "application/xml", ".html": "text/html", ".md": "text/markdown", ".pdf": "application/pdf",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".svg": "image/svg+xml"}

var (
	reFileName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._ -]{0,99}$`)
	reMimeType = regexp.MustCompile(`^[a-z]+/[a-z0-9][a-z0-9.+-]{0,80}$`)
)

// checkFile checks set_input_files' parameters.
func checkFile(in Intent) string {
	switch {
	case in.FileName != "" && !reFileName.MatchString(in.FileName):
		return `"file_name" must be a plain file name (letters, digits, . _ - and spaces, no path), at most 100 characters`
	case len(in.FileContent) > maxFileContent:
		return fmt.Sprintf(`"file_content" is longer than %d bytes`, maxFileContent)
	case in.MimeType != "" && !reMimeType.MatchString(in.MimeType):
		return `"mime_type" must look like text/plain`
	}
	return ""
}

// namedKeys are the key names press accepts besides single characters.
var namedKeys = map[string]bool{"Enter": true, "Escape": true, "Tab": true, "Backspace": true, "Delete": true, "Insert": true,
	"Home": true, "End": true, "PageUp": true, "PageDown": true, "ArrowUp": true, "ArrowDown": true, "ArrowLeft": true,
	"ArrowRight": true, "Space": true, "Shift": true, "Control": true, "Alt": true, "Meta": true, "ControlOrMeta": true,
	"ContextMenu": true}

var (
	reFKey    = regexp.MustCompile(`^F(?:[1-9]|1[0-2])$`)
	reCodeKey = regexp.MustCompile(`^(?:Key[A-Z]|Digit[0-9]|Numpad[0-9A-Za-z]+|F(?:1[3-9]|2[0-4])|Equal|Minus|Comma|Period|Slash|Semicolon|Quote|Backquote|Backslash|BracketLeft|BracketRight|IntlBackslash|CapsLock|NumLock|ScrollLock|Pause|PrintScreen|(?:Shift|Control|Alt|Meta)(?:Left|Right))$`)
)

// checkKey accepts a Playwright key: one character or a key name, after
// optional modifiers (Control+Shift+ArrowLeft).
func checkKey(key string) string {
	if utf8.RuneCountInString(key) == 1 {
		return ""
	}
	parts := strings.Split(key, "+")
	if strings.HasSuffix(key, "++") { // Control++ presses "+"
		parts = append(parts[:len(parts)-2], "+")
	}
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case !last && slices.Contains([]string{"Shift", "Control", "Alt", "Meta", "ControlOrMeta"}, p):
		case last && (utf8.RuneCountInString(p) == 1 || namedKeys[p] || reFKey.MatchString(p) || reCodeKey.MatchString(p)):
		default:
			return fmt.Sprintf(`"key" %q is not a key: use one character or Enter, Escape, Tab, Backspace, Delete, Home, End, PageUp, PageDown, ArrowUp/Down/Left/Right, F1-F12, optionally after Control+, Shift+, Alt+, Meta+`, clip(key, 40))
		}
	}
	return ""
}

// ValueOrEmpty is Value, or "" when unset.
func (in Intent) ValueOrEmpty() string {
	if in.Value == nil {
		return ""
	}
	return *in.Value
}

type paramKind int

const (
	kString paramKind = iota
	kInt
	kBool
	kFields // fill_form's array of field objects
)

func (k paramKind) String() string {
	switch k {
	case kInt:
		return "an integer"
	case kBool:
		return "a boolean"
	case kFields:
		return "an array of field objects"
	default:
		return "a string"
	}
}

type param struct {
	name     string
	kind     paramKind
	required bool
	help     string
	enum     []string
}

type actionSpec struct {
	help   string
	params []param
	// check runs after the per-field checks for cross-field rules.
	check func(Intent) string
}

var targetHelp = `a snapshot ref such as "e12", or a stable selector: [data-testid="…"], role=button[name="…"], label=…, text=…, [aria-label="…"], #id`

// actionSpecs is read-only after package initialisation (a constant table).
var actionSpecs = map[Action]actionSpec{
	ActNavigate: {help: "open a URL of the app", params: []param{{name: "url", required: true, help: "an absolute URL within the allowed origins, or a path such as /login"}}},
	ActClick:    {help: "click an element", params: []param{{name: "target", required: true, help: targetHelp}}},
	ActFill:     {help: "replace the text of an input", params: []param{{name: "target", required: true, help: targetHelp}, {name: "value", required: true, help: "the text to type (may be empty)"}}},
	ActPress: {help: "press a key, on a target or the focused element", params: []param{{name: "key", required: true, help: `a key such as "Enter", "Escape", "Tab", "ArrowDown", "Control+A"`}, {name: "target", help: targetHelp}},
		check: func(in Intent) string { return checkKey(in.Key) }},
	ActDblclick: {help: "double-click an element", params: []param{{name: "target", required: true, help: targetHelp}}},
	ActFocus:    {help: "focus an element (fires focus handlers, shows focus-only controls)", params: []param{{name: "target", required: true, help: targetHelp}}},
	ActCheck:    {help: "tick a checkbox, radio button or switch (no change if already ticked)", params: []param{{name: "target", required: true, help: targetHelp}}},
	ActUncheck:  {help: "untick a checkbox or switch (no change if already unticked)", params: []param{{name: "target", required: true, help: targetHelp}}},
	ActDrag: {help: "drag an element and drop it on another", params: []param{{name: "target", required: true, help: "the element to drag; " + targetHelp},
		{name: "to", required: true, help: "the element to drop it on; " + targetHelp}}},
	ActSetFiles: {help: "give a file input a small generated file (never a file of the host)", params: []param{{name: "target", required: true, help: "the file input; " + targetHelp},
		{name: "file_name", help: "a plain file name such as notes.txt (default " + DefaultFileName + ")"},
		{name: "file_content", help: "the file's text, at most 65536 bytes (default a short line)"},
		{name: "mime_type", help: "such as text/csv (default from the name's extension)"}},
		check: checkFile},
	ActSelectOption: {help: "choose an option of a <select>", params: []param{{name: "target", required: true, help: targetHelp}, {name: "value", required: true, help: "the option's value or visible label"}}},
	ActHover:        {help: "move the mouse over an element", params: []param{{name: "target", required: true, help: targetHelp}}},
	ActWaitFor: {help: "wait for text or an element", params: []param{
		{name: "text", help: "visible text to wait for"}, {name: "target", help: targetHelp},
		{name: "state", help: "with target: the state to wait for", enum: []string{"visible", "hidden", "attached", "detached"}},
		{name: "timeout_ms", kind: kInt, help: "at most 30000 (default 5000)"}},
		check: func(in Intent) string {
			if (in.Text == "") == (in.Target == "") {
				return `give exactly one of "text" or "target"`
			}
			if in.State != "" && in.Target == "" {
				return `"state" needs "target"`
			}
			if in.TimeoutMS < 0 || in.TimeoutMS > 30000 {
				return `"timeout_ms" must be between 0 and 30000`
			}
			return ""
		}},
	ActScroll: {help: "scroll the page or an element into view", params: []param{
		{name: "direction", help: "which way", enum: []string{"down", "up", "top", "bottom"}},
		{name: "pixels", kind: kInt, help: "for up/down, 1..10000 (default 600)"}, {name: "target", help: "scroll this element into view instead; " + targetHelp}},
		check: func(in Intent) string {
			if in.Pixels < 0 || in.Pixels > 10000 {
				return `"pixels" must be between 1 and 10000`
			}
			if in.Target != "" && (in.Direction != "" || in.Pixels != 0) {
				return `give either "target" or "direction"/"pixels", not both`
			}
			return ""
		}},
	ActExtractText:   {help: "read the visible text of an element or the page", params: []param{{name: "target", help: "optional; " + targetHelp}}},
	ActSnapshot:      {help: "get the page's accessibility snapshot with element refs", params: nil},
	ActCheckHealth:   {help: "report page errors, failed requests, error banners and spinners", params: nil},
	ActScreenshot:    {help: "capture a PNG of the viewport", params: []param{{name: "full_page", kind: kBool, help: "the whole scrollable page"}}},
	ActGoBack:        {help: "go back in history", params: nil},
	ActReload:        {help: "reload the page", params: nil},
	ActClearSiteData: {help: "clear the site's cookies and storage, as when a session expires", params: nil},
	ActFillForm: {help: "fill several fields of a form in one action, in order (stops at the first field that fails)", params: []param{{name: "fields", kind: kFields, required: true,
		help: `1 to 50 objects {"target", "value", "kind"}: target as for fill; kind "fill" (default: replace the text of an input or textarea with value), "select" (choose the option whose value or label is value) or "check" (tick a checkbox or radio button; no value), e.g. [{"target":"e3","value":"Ada"},{"target":"label=Plan","value":"Pro","kind":"select"},{"target":"e9","kind":"check"}]`}}},
}

// Actions lists the allowed actions in a fixed order.
func Actions() []Action {
	return []Action{ActNavigate, ActClick, ActFill, ActPress, ActSelectOption, ActHover, ActWaitFor,
		ActScroll, ActExtractText, ActSnapshot, ActCheckHealth, ActScreenshot, ActGoBack, ActReload,
		ActDblclick, ActFocus, ActCheck, ActUncheck, ActDrag, ActSetFiles, ActClearSiteData, ActFillForm}
}

// IntentError says why an intent was refused, in words meant for the model.
type IntentError struct {
	Action Action // "" when the action itself is missing or unknown
	Param  string // the offending parameter, if any
	Msg    string
}

func (e *IntentError) Error() string {
	if e.Action == "" {
		return "invalid browser intent: " + e.Msg
	}
	return fmt.Sprintf("invalid %s intent: %s", e.Action, e.Msg)
}

// Usage describes an action's parameters, e.g. for error messages and tool
// descriptions.
func Usage(a Action) string {
	spec, ok := actionSpecs[a]
	if !ok {
		return ""
	}
	if len(spec.params) == 0 {
		return fmt.Sprintf("%s (%s) takes no parameters", a, spec.help)
	}
	parts := make([]string, 0, len(spec.params))
	for _, p := range spec.params {
		s := fmt.Sprintf("%q (%s", p.name, p.kind)
		if p.required {
			s += ", required"
		} else {
			s += ", optional"
		}
		if len(p.enum) > 0 {
			s += ", one of " + strings.Join(p.enum, "|")
		}
		parts = append(parts, s+": "+p.help+")")
	}
	return fmt.Sprintf("%s (%s) takes %s", a, spec.help, strings.Join(parts, "; "))
}

func actionList() string {
	names := make([]string, 0, len(actionSpecs))
	for _, a := range Actions() {
		names = append(names, string(a))
	}
	return strings.Join(names, ", ")
}

// ParseIntent decodes and validates a JSON intent such as
// {"action":"click","target":"e12"}. Errors are *IntentError.
func ParseIntent(raw []byte) (Intent, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Intent{}, &IntentError{Msg: `an intent is a JSON object such as {"action":"click","target":"e12"}; allowed actions: ` + actionList()}
	}
	rawAction, ok := fields["action"]
	if !ok {
		return Intent{}, &IntentError{Param: "action", Msg: `missing "action"; allowed actions: ` + actionList()}
	}
	var action string
	if err := json.Unmarshal(rawAction, &action); err != nil {
		return Intent{}, &IntentError{Param: "action", Msg: `"action" must be a string; allowed actions: ` + actionList()}
	}
	spec, ok := actionSpecs[Action(action)]
	if !ok {
		return Intent{}, &IntentError{Param: "action", Msg: fmt.Sprintf("unknown action %q; allowed actions: %s", action, actionList())}
	}
	a := Action(action)
	in := Intent{Action: a}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "action" {
			continue
		}
		idx := slices.IndexFunc(spec.params, func(p param) bool { return p.name == k })
		if idx < 0 {
			return Intent{}, &IntentError{Action: a, Param: k, Msg: fmt.Sprintf("unexpected parameter %q; %s", k, Usage(a))}
		}
		p := spec.params[idx]
		v := bytes.TrimSpace(fields[k])
		if err := assignParam(&in, p, v); err != "" {
			return Intent{}, &IntentError{Action: a, Param: k, Msg: err + "; " + Usage(a)}
		}
	}
	for _, p := range spec.params {
		if _, ok := fields[p.name]; p.required && !ok {
			return Intent{}, &IntentError{Action: a, Param: p.name, Msg: fmt.Sprintf("missing required parameter %q; %s", p.name, Usage(a))}
		}
	}
	if spec.check != nil {
		if msg := spec.check(in); msg != "" {
			return Intent{}, &IntentError{Action: a, Msg: msg + "; " + Usage(a)}
		}
	}
	if in.Target != "" {
		if _, err := ParseTarget(in.Target); err != nil {
			return Intent{}, &IntentError{Action: a, Param: "target", Msg: err.Error()}
		}
	}
	if in.To != "" {
		if _, err := ParseTarget(in.To); err != nil {
			return Intent{}, &IntentError{Action: a, Param: "to", Msg: err.Error()}
		}
	}
	return in, nil
}

func assignParam(in *Intent, p param, v json.RawMessage) string {
	if string(v) == "null" {
		return fmt.Sprintf("parameter %q must be %s, got null", p.name, p.kind)
	}
	switch p.kind {
	case kInt:
		var n int
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Sprintf("parameter %q must be an integer, got %s", p.name, describeJSON(v))
		}
		switch p.name {
		case "pixels":
			in.Pixels = n
		case "timeout_ms":
			in.TimeoutMS = n
		}
	case kBool:
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return fmt.Sprintf("parameter %q must be true or false, got %s", p.name, describeJSON(v))
		}
		in.FullPage = b
	case kFields:
		fields, msg := parseFields(v)
		if msg != "" {
			return msg
		}
		in.Fields = fields
	default:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Sprintf("parameter %q must be a string, got %s", p.name, describeJSON(v))
		}
		if p.name != "value" && p.name != "file_content" && strings.TrimSpace(s) == "" {
			return fmt.Sprintf("parameter %q must not be empty", p.name)
		}
		if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			return fmt.Sprintf("parameter %q must be one of %s, got %q", p.name, strings.Join(p.enum, ", "), s)
		}
		switch p.name {
		case "target":
			in.Target = s
		case "url":
			in.URL = s
		case "value":
			in.Value = &s
		case "key":
			in.Key = s
		case "text":
			in.Text = s
		case "state":
			in.State = s
		case "direction":
			in.Direction = s
		case "to":
			in.To = s
		case "file_name":
			in.FileName = s
		case "file_content":
			in.FileContent = s
		case "mime_type":
			in.MimeType = s
		}
	}
	return ""
}

// parseFields decodes and checks fill_form's "fields": a non-empty array
// of at most MaxFormFields objects with the keys target, value and kind.
// A check field's value is ignored and dropped.
func parseFields(v json.RawMessage) ([]FormField, string) {
	var raws []json.RawMessage
	if err := json.Unmarshal(v, &raws); err != nil || raws == nil {
		return nil, fmt.Sprintf(`parameter "fields" must be an array of objects such as {"target":"e3","value":"Ada"}, got %s`, describeJSON(v))
	}
	switch {
	case len(raws) == 0:
		return nil, `parameter "fields" must not be empty`
	case len(raws) > MaxFormFields:
		return nil, fmt.Sprintf(`parameter "fields" has %d fields; at most %d in one fill_form`, len(raws), MaxFormFields)
	}
	out := make([]FormField, 0, len(raws))
	for i, raw := range raws {
		raw = bytes.TrimSpace(raw)
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
			return nil, fmt.Sprintf(`fields[%d] must be an object such as {"target":"e3","value":"Ada"}, got %s`, i, describeJSON(raw))
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.Sort(names)
		var f FormField
		hasValue := false
		for _, k := range names {
			var dst *string
			switch k {
			case "target":
				dst = &f.Target
			case "value":
				dst, hasValue = &f.Value, true
			case "kind":
				dst = &f.Kind
			default:
				return nil, fmt.Sprintf(`fields[%d]: unexpected key %q; a field takes "target", "value" and "kind"`, i, clip(k, 40))
			}
			kv := bytes.TrimSpace(keys[k])
			if len(kv) == 0 || kv[0] != '"' || json.Unmarshal(kv, dst) != nil {
				return nil, fmt.Sprintf(`fields[%d].%s must be a string, got %s`, i, k, describeJSON(kv))
			}
		}
		if msg := checkField(i, f); msg != "" {
			return nil, msg
		}
		if !hasValue && f.kind() != FieldCheck {
			return nil, fmt.Sprintf(`fields[%d] (%s %q) needs "value"`, i, f.kind(), clip(f.Target, 60))
		}
		if f.kind() == FieldCheck {
			f.Value = ""
		}
		out = append(out, f)
	}
	return out, ""
}

// checkField checks one field of a fill_form (i is its index): a target
// under the selector policy, a known kind. Controls shown only on hover
// or focus (hN refs) need a step of their own first, so fill_form refuses
// them.
func checkField(i int, f FormField) string {
	if strings.TrimSpace(f.Target) == "" {
		return fmt.Sprintf(`fields[%d] needs a non-empty "target"`, i)
	}
	t, err := ParseTarget(f.Target)
	if err != nil {
		return fmt.Sprintf("fields[%d].target: %s", i, err.Error())
	}
	if t.Kind == TargetRef && t.Ref[0] == 'h' {
		return fmt.Sprintf(`fields[%d].target %s is shown only on hover or focus; use fill, select_option or check for it`, i, t.Ref)
	}
	if !slices.Contains([]string{FieldFill, FieldSelect, FieldCheck}, f.kind()) {
		return fmt.Sprintf(`fields[%d].kind must be "fill", "select" or "check", got %q`, i, clip(f.Kind, 40))
	}
	return ""
}

// checkFields checks the fields of a fill_form intent built without
// ParseIntent (what Session.Do and Entry.Validate are given).
func checkFields(fields []FormField) string {
	switch {
	case len(fields) == 0:
		return `fill_form needs at least one field in "fields"`
	case len(fields) > MaxFormFields:
		return fmt.Sprintf(`"fields" has %d fields; at most %d in one fill_form`, len(fields), MaxFormFields)
	}
	for i, f := range fields {
		if msg := checkField(i, f); msg != "" {
			return msg
		}
	}
	return ""
}

func describeJSON(v json.RawMessage) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "the number " + string(v)
	}
}

// JSON renders the intent compactly (for tapes and logs).
func (in Intent) JSON() string {
	b, _ := json.Marshal(in)
	return string(b)
}
