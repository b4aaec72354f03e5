package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/tmc/langchaingo/llms"
)

// ChooseTool is the name of the function the model calls to choose.
const ChooseTool = "choose"

// Choice is the option a model chose, with its stated reason.
type Choice struct {
	Option string
	Reason string
}

// RouteError is returned by Choose when the model's answer stays outside the
// options after the retry.
type RouteError struct {
	Options []string
	Answers []string // what the model answered on each attempt ("" for no answer)
	Err     error    // the last validation problem
}

func (e *RouteError) Error() string {
	return fmt.Sprintf("llm: route: model did not choose one of [%s] after %d attempts (answers %q): %v",
		strings.Join(e.Options, ", "), len(e.Answers), e.Answers, e.Err)
}

func (e *RouteError) Unwrap() error { return e.Err }

// ChooseSchema is the JSON Schema of the choose function for options: an
// object with a required "choice", a string that is one of options, and an
// optional "reason".
func ChooseSchema(options []string) *jsonschema.Schema {
	enum := make([]any, len(options))
	for i, o := range options {
		enum[i] = o
	}
	props := jsonschema.NewProperties()
	// the options are in the description too: langchaingo's Google client
	// drops "enum" when it converts the schema
	props.Set("choice", &jsonschema.Schema{Type: "string", Enum: enum, Description: "exactly one of: " + strings.Join(options, ", ")})
	props.Set("reason", &jsonschema.Schema{Type: "string", Description: "one short sentence on why"})
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           props,
		Required:             []string{"choice"},
		AdditionalProperties: jsonschema.FalseSchema,
	}
}

// schemaParams turns a schema into the decoded JSON object langchaingo's
// clients take as a function's Parameters (the Google client accepts
// nothing else).
func schemaParams(s *jsonschema.Schema) (map[string]any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var params map[string]any
	if err := json.Unmarshal(b, &params); err != nil {
		return nil, err
	}
	return params, nil
}

// Choose asks model to pick one of options through function calling: the
// model gets one tool, "choose", whose "choice" argument is an enum of
// options, and is told to call it. The answer is validated; an answer
// outside the options (or no call) is sent back once with the error, and a
// second bad answer gives a *RouteError. A model that answers with plain text
// equal to an option is accepted too. Matching ignores case and surrounding
// spaces; the returned Option is spelled as in options.
func Choose(ctx context.Context, model llms.Model, messages []llms.MessageContent, options []string, callOpts ...llms.CallOption) (Choice, error) {
	if len(options) == 0 {
		return Choice{}, errors.New("llm: route: no options")
	}
	seen := map[string]bool{}
	for _, o := range options {
		if strings.TrimSpace(o) == "" || seen[strings.ToLower(o)] {
			return Choice{}, fmt.Errorf("llm: route: empty or duplicate option %q", o)
		}
		seen[strings.ToLower(o)] = true
	}
	params, err := schemaParams(ChooseSchema(options))
	if err != nil {
		return Choice{}, fmt.Errorf("llm: route: choose schema: %w", err)
	}
	tool := llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
		Name:        ChooseTool,
		Description: "Choose exactly one of the allowed options: " + strings.Join(options, ", "),
		Parameters:  params,
	}}
	opts := append([]llms.CallOption{
		llms.WithTools([]llms.Tool{tool}),
		llms.WithToolChoice(llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: ChooseTool}}),
	}, callOpts...)
	convo := append([]llms.MessageContent(nil), messages...)
	var answers []string
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		resp, err := model.GenerateContent(ctx, convo, opts...)
		if err != nil {
			return Choice{}, fmt.Errorf("llm: route: %w", err)
		}
		c, call, answer, verr := parseChoice(resp, options)
		answers = append(answers, answer)
		if verr == nil {
			return c, nil
		}
		lastErr = verr
		feedback := fmt.Sprintf("Error: %v. Call the %s tool again with choice set to exactly one of: %s.", verr, ChooseTool, strings.Join(options, ", "))
		if call != nil {
			convo = append(convo,
				llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{*call}},
				llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: call.ID, Name: ChooseTool, Content: feedback}}})
		} else {
			if answer != "" {
				convo = append(convo, llms.TextParts(llms.ChatMessageTypeAI, answer))
			}
			convo = append(convo, llms.TextParts(llms.ChatMessageTypeHuman, feedback))
		}
	}
	return Choice{}, &RouteError{Options: append([]string(nil), options...), Answers: answers, Err: lastErr}
}

func matchOption(s string, options []string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, o := range options {
		if strings.EqualFold(s, strings.TrimSpace(o)) {
			return o, true
		}
	}
	return "", false
}

// parseChoice finds the choose call (or a bare text answer) in resp.
func parseChoice(resp *llms.ContentResponse, options []string) (Choice, *llms.ToolCall, string, error) {
	if resp == nil || len(resp.Choices) == 0 {
		return Choice{}, nil, "", errors.New("empty response")
	}
	var text string
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		text += ch.Content
		for i := range ch.ToolCalls {
			tc := ch.ToolCalls[i]
			if tc.FunctionCall == nil {
				continue
			}
			if tc.FunctionCall.Name != ChooseTool {
				return Choice{}, &tc, tc.FunctionCall.Name, fmt.Errorf("called unknown function %q (only %s exists)", tc.FunctionCall.Name, ChooseTool)
			}
			var args struct {
				Choice string `json:"choice"`
				Reason string `json:"reason"`
			}
			if err := json.Unmarshal([]byte(tc.FunctionCall.Arguments), &args); err != nil {
				return Choice{}, &tc, tc.FunctionCall.Arguments, fmt.Errorf("arguments are not a JSON object with a string choice: %v", err)
			}
			opt, ok := matchOption(args.Choice, options)
			if !ok {
				return Choice{}, &tc, args.Choice, fmt.Errorf("choice %q is not one of the allowed options", args.Choice)
			}
			return Choice{Option: opt, Reason: args.Reason}, nil, args.Choice, nil
		}
	}
	if opt, ok := matchOption(text, options); ok {
		return Choice{Option: opt}, nil, text, nil
	}
	if strings.TrimSpace(text) == "" {
		return Choice{}, nil, "", fmt.Errorf("no %s call and no answer", ChooseTool)
	}
	return Choice{}, nil, text, fmt.Errorf("answered %q without calling %s", Truncate(text, 200), ChooseTool)
}
