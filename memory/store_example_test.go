package memory_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory"
)

func ExampleNewInMemoryStore() {
	ctx := context.Background()
	st := memory.NewInMemoryStore()
	ns := []string{"qa", "shop", "bugs"}
	for key, v := range map[string]string{
		"b1": `{"title":"Login rejects a valid password","severity":"high","page":{"path":"/login"}}`,
		"b2": `{"title":"Cart total wrong after coupon","severity":"high","page":{"path":"/cart"}}`,
		"b3": `{"title":"Login button misaligned","severity":"low","page":{"path":"/login"}}`,
	} {
		if err := st.Put(ctx, ns, key, []byte(v), nil); err != nil {
			log.Fatal(err)
		}
	}
	// Filter on a nested field, rank by keywords ("login" occurs twice in
	// b1 and b3: in the title and in the path).
	items, err := st.Search(ctx, []string{"qa"}, graph.SearchQuery{
		Filter: graph.Filter{graph.Eq("page.path", "/login")},
		Query:  "password login",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range items {
		fmt.Printf("%s %.2f\n", it.Key, it.Score)
	}
	nss, err := st.ListNamespaces(ctx, graph.NamespaceQuery{Prefix: []string{"qa"}, MaxDepth: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(nss)
	// Output:
	// b1 1.14
	// b3 0.64
	// [[qa shop]]
}

// wordEmbedder is a toy embedder: one axis per known word.
type wordEmbedder struct{ vocab []string }

func (e wordEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v := make([]float32, len(e.vocab))
	for i, w := range e.vocab {
		if strings.Contains(strings.ToLower(text), w) {
			v[i] = 1
		}
	}
	return v, nil
}

func (e wordEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i], _ = e.EmbedQuery(ctx, t)
	}
	return out, nil
}

// Any langchaingo embeddings.Embedder fits WithEmbedder; here a toy one.
func ExampleWithEmbedder() {
	ctx := context.Background()
	st := memory.NewInMemoryStore(memory.WithEmbedder(wordEmbedder{vocab: []string{"checkout", "login", "search"}}, "text"))
	_ = st.Put(ctx, []string{"notes"}, "n1", []byte(`{"text":"checkout fails with two coupons"}`), nil)
	_ = st.Put(ctx, []string{"notes"}, "n2", []byte(`{"text":"login works"}`), nil)
	items, err := st.Search(ctx, []string{"notes"}, graph.SearchQuery{Query: "problems at checkout", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(items[0].Key)
	// Output: n1
}
