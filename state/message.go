package state

import (
	"crypto/rand"
	"encoding/hex"
)

// Role says who wrote a Message.
type Role string

const (
	RoleSystem  Role = "system"
	RoleHuman   Role = "human"
	RoleAI      Role = "ai"
	RoleTool    Role = "tool"
	RoleRemove  Role = "remove" // a removal marker, see RemoveMessage
	removeAllID      = "__remove_all__"
)

// ToolCall is a model's request to call a tool.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text
}

// Message is a provider-neutral chat message with an identity, so that the
// AddMessages reducer can replace or remove it later.
type Message struct {
	ID         string     `json:"id,omitempty"`
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"` // for RoleTool: the call answered
}

// RemoveMessage returns a marker that, written through AddMessages, deletes
// the message with this id.
func RemoveMessage(id string) Message { return Message{ID: id, Role: RoleRemove} }

// RemoveAllMessages returns a marker that, written through AddMessages,
// deletes every message before it; messages after it in the same update are kept.
func RemoveAllMessages() Message { return Message{ID: removeAllID, Role: RoleRemove} }

// MessagesState is a ready-made state for chat agents. Register its reducer
// with graph.Reducer(func(s *state.MessagesState) *[]state.Message { return &s.Messages }, state.AddMessages).
type MessagesState struct {
	Messages []Message `json:"messages"`
}

// AddMessages merges messages by id, like LangGraph's add_messages: an
// update message with a known id replaces the old one in place, a
// RemoveMessage marker deletes by id, RemoveAllMessages clears the list, and
// other messages are appended. Messages without an id get a random one.
//
// The elements of cur are never modified. When the update only adds
// messages — the usual step — it is appended like Append does (the result
// may grow cur's backing array past its length, which no earlier view can
// reach), at the cost of the new messages plus, for update messages that
// carry their own id, a comparison with each id of cur (no copy, no
// index). Replacements and removals build a new slice.
func AddMessages(cur, upd []Message) []Message {
	if len(upd) == 0 {
		return cur
	}
	for i := len(upd) - 1; i >= 0; i-- {
		if upd[i].Role == RoleRemove && upd[i].ID == removeAllID {
			cur, upd = nil, upd[i+1:]
			break
		}
	}
	withIDs := make([]Message, len(upd))
	preset := 0 // update messages that came with an id
	for i, m := range upd {
		if m.ID == "" {
			m.ID = NewID()
		} else {
			preset++
		}
		withIDs[i] = m
	}
	if onlyNew(cur, upd, withIDs, preset) {
		return append(cur, withIDs...)
	}
	return mergeMessages(cur, withIDs)
}

// onlyNew reports whether withIDs (upd with ids filled in) only adds
// messages: no removal marker, and no preset id that repeats or is in cur.
func onlyNew(cur, upd, withIDs []Message, preset int) bool {
	for _, m := range upd {
		if m.Role == RoleRemove {
			return false
		}
	}
	if preset == 0 {
		return true // random ids are new
	}
	if preset > 8 {
		set := make(map[string]bool, preset)
		for i, m := range upd {
			if m.ID == "" {
				continue
			}
			if set[withIDs[i].ID] {
				return false
			}
			set[withIDs[i].ID] = true
		}
		for i := range cur {
			if set[cur[i].ID] {
				return false
			}
		}
		return true
	}
	ids := make([]string, 0, preset)
	for i, m := range upd {
		if m.ID == "" {
			continue
		}
		for _, id := range ids {
			if id == withIDs[i].ID {
				return false
			}
		}
		ids = append(ids, withIDs[i].ID)
	}
	for i := range cur {
		for _, id := range ids {
			if cur[i].ID == id {
				return false
			}
		}
	}
	return true
}

var mergeMessages = MergeByID(func(m Message) string { return m.ID }, func(m Message) bool { return m.Role == RoleRemove })

// NewID returns a random 128-bit hex id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
