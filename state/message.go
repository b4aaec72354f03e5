package state

import (
	"crypto/rand"
	"encoding/hex"
	"math"
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
// reach), at the cost of the new messages: the ids of a list of 32 or more
// messages are indexed beside it (the index follows the list from step to
// step, extended by each append), so an update message that carries its own
// id is looked up, not compared with each message. Replacements and
// removals build a new slice (a copy of the list).
//
// The index is a cache keyed weakly by the list's backing array: it never
// keeps a list alive and never changes a result. It describes the array's
// contents as AddMessages left them, so a list whose elements are written
// in place by other code must not be handed to AddMessages again (the
// reducer contract already forbids writing cur's elements).
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
	removal := false
	for i, m := range upd {
		if m.Role == RoleRemove {
			removal = true
		}
		if m.ID == "" {
			m.ID = NewID()
		} else {
			preset++
		}
		withIDs[i] = m
	}
	ix := indexOf(cur) // locked when not nil
	fresh := false     // ix built here, not yet registered
	if ix == nil && len(cur) >= indexMin && (preset > 0 || removal) {
		ix = buildIndex(cur)
		fresh = ix != nil
	}
	if !removal && onlyNew(cur, upd, withIDs, preset, ix) {
		out := append(cur, withIDs...)
		switch {
		case fresh:
			if ix.add(out, len(cur), withIDs) {
				publish(ix, out)
			}
		case ix != nil:
			ix.extend(cur, out, withIDs)
			ix.mu.Unlock()
		case len(out) >= indexMin && len(withIDs) >= len(cur):
			// A list made mostly by this update (an input, a seed):
			// indexing it costs about as much as the update did.
			publish(buildIndex(out), out)
		}
		return out
	}
	var pos map[uint64]int32
	if fresh {
		pos = ix.pos
	} else if ix != nil {
		pos = ix.release()
	}
	return mergeMessages(cur, withIDs, pos)
}

// onlyNew reports whether withIDs (upd with ids filled in, no removal
// marker) only adds messages: no preset id that repeats or is in cur. ix,
// when not nil, indexes cur.
func onlyNew(cur, upd, withIDs []Message, preset int, ix *msgIndex) bool {
	if preset == 0 {
		return true // random ids are new
	}
	inCur := func(id string) bool {
		if ix != nil {
			if found, sure := ix.has(cur, id); sure {
				return found
			}
		}
		for i := range cur {
			if cur[i].ID == id {
				return true
			}
		}
		return false
	}
	if preset > 8 {
		// Hashed ids (no pointers for the garbage collector to scan in
		// a large input); a hash shared by two ids is taken for a repeat,
		// which the merge then handles exactly.
		seen := make(map[uint64]struct{}, preset)
		for i, m := range upd {
			if m.ID == "" {
				continue
			}
			id := withIDs[i].ID
			h := idHash(id)
			if _, dup := seen[h]; dup || inCur(id) {
				return false
			}
			seen[h] = struct{}{}
		}
		return true
	}
	ids := make([]string, 0, preset)
	for i, m := range upd {
		if m.ID == "" {
			continue
		}
		id := withIDs[i].ID
		for _, seen := range ids {
			if seen == id {
				return false
			}
		}
		if inCur(id) {
			return false
		}
		ids = append(ids, id)
	}
	return true
}

// mergeMessages is MergeByID for messages (id, removal markers) that
// indexes its result. pos, when not nil, is the index of cur (see
// msgIndex) and becomes the result's.
func mergeMessages(cur, upd []Message, pos map[uint64]int32) []Message {
	if len(cur)+len(upd) >= math.MaxInt32 {
		return plainMerge(cur, upd)
	}
	if pos == nil {
		ix := buildIndex(cur)
		if ix == nil {
			return plainMerge(cur, upd)
		}
		pos = ix.pos
	}
	out := make([]Message, len(cur), len(cur)+len(upd))
	copy(out, cur)
	ix := &msgIndex{pos: pos}
	var dead map[int]bool
	for _, v := range upd {
		h := idHash(v.ID)
		p, ok := pos[h]
		if ok && out[p].ID != v.ID {
			return plainMerge(cur, upd) // two ids of one hash
		}
		i := int(p)
		if v.Role == RoleRemove {
			if ok && !dead[i] {
				if dead == nil {
					dead = make(map[int]bool)
				}
				dead[i] = true
				delete(pos, h)
			}
			continue
		}
		if ok {
			out[i] = v
			continue
		}
		pos[h] = int32(len(out))
		out = append(out, v)
	}
	if dead != nil {
		kept := out[:0]
		for i, v := range out {
			if !dead[i] {
				kept = append(kept, v)
			}
		}
		out = kept
		clear(pos)
		if !ix.add(out, 0, out) {
			return out
		}
	}
	publish(ix, out)
	return out
}

var plainMerge = MergeByID(func(m Message) string { return m.ID }, func(m Message) bool { return m.Role == RoleRemove })

// NewID returns a random 128-bit hex id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
