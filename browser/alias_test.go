package browser

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnalias(t *testing.T) {
	e := &Engine{cfg: Config{Aliases: map[string]string{
		"https://shop.example":      "http://127.0.0.1:4100",
		"https://shop.example/app/": "http://127.0.0.1:4200/",
	}}}
	for in, want := range map[string]string{
		"https://shop.example/cart?x=1":  "http://127.0.0.1:4100/cart?x=1",
		"https://shop.example":           "http://127.0.0.1:4100",
		"https://shop.example/app/items": "http://127.0.0.1:4200/items",
		"https://shop.example.evil/x":    "https://shop.example.evil/x", // not at a boundary
		"https://other.example/":         "https://other.example/",
	} {
		assert.Equal(t, want, e.unalias(in), in)
	}
	assert.Equal(t, "http://a/x", (&Engine{}).unalias("http://a/x"))
}
