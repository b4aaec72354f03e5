package memory

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// FuzzDecodeStoreRecord feeds arbitrary bytes to the bbolt store's record
// decoder. It must never panic; an error must wrap ErrStoreCorrupt; a
// record it accepts must be one Put could have written (valid namespace and
// key, a JSON object value) and must survive an encode/decode round trip
// and a search.
func FuzzDecodeStoreRecord(f *testing.F) {
	cfg := storekit.NewConfig(nil)
	good := cfg.NewRecord([]string{"qa", "app", "bugs"}, "k1", json.RawMessage(`{"title":"login fails","n":3}`), nil, nil)
	good.Vector = []float32{0.5, -1}
	raw, err := json.Marshal(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw, "qa/app/bugs", "k1")
	f.Add([]byte(`{"v":1,"ns":["a"],"key":"k","value":{}}`), "a", "k")
	f.Add([]byte(`{"v":2,"ns":["a"],"key":"k","value":{}}`), "a", "k")
	f.Add([]byte(`{"v":1,"ns":[],"key":"","value":{}}`), "", "")
	f.Add([]byte(``), "a", "k")
	f.Add([]byte(`null`), "a", "k")
	f.Add(raw[:len(raw)/2], "qa/app/bugs", "k1")

	f.Fuzz(func(t *testing.T, raw []byte, nsPath, key string) {
		var ns []string
		if nsPath != "" {
			ns = strings.Split(nsPath, "/")
		}
		r, err := storekit.DecodeRecord(raw, ns, key)
		if err != nil {
			if !errors.Is(err, ErrStoreCorrupt) {
				t.Fatalf("error does not wrap ErrStoreCorrupt: %v", err)
			}
			if r != nil {
				t.Fatalf("record and error both returned")
			}
			return
		}
		if err := storekit.ValidateKey(r.Namespace, r.Key); err != nil {
			t.Fatalf("accepted a record Put could not write: %v", err)
		}
		if err := storekit.ValidateValue(r.Namespace, r.Key, r.Value); err != nil {
			t.Fatalf("accepted a record Put could not write: %v", err)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		r2, err := storekit.DecodeRecord(again, ns, key)
		if err != nil {
			t.Fatalf("round trip: %v\n%s", err, again)
		}
		if string(r2.Value) != string(r.Value) && !sameJSON(r2.Value, r.Value) {
			t.Fatalf("round trip changed the value: %s -> %s", r.Value, r2.Value)
		}
		// Searching the record, with a filter and keywords, gives an item or
		// skips it; it never fails.
		se, err := storekit.NewSearcher(t.Context(), &cfg, nil, searchAll)
		if err != nil {
			t.Fatal(err)
		}
		se.Now = time.Time{}
		if err := se.Add(r); err != nil {
			t.Fatalf("search of an accepted record: %v", err)
		}
		_ = se.Done()
	})
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

var searchAll = graph.SearchQuery{Filter: graph.Filter{graph.Gte("n", 0)}, Query: "login fails", Limit: 5}
