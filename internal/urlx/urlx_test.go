package urlx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPath(t *testing.T) {
	assert.Equal(t, "/a/b", Path("http://h:1/a/b?x=1#f"))
	assert.Equal(t, "", Path("http://h"))
	assert.Equal(t, "::bad", Path("::bad"), "a URL that does not parse is kept")
	assert.Equal(t, "/a?x=1&y=2", PathQuery("https://h/a?x=1&y=2#f"))
	assert.Equal(t, "/a", PathQuery("/a"))
	assert.Equal(t, "::bad", PathQuery("::bad"))
}

func TestResolve(t *testing.T) {
	u, ok := Resolve("http://h:1/a/b", "../c?x=1")
	assert.True(t, ok)
	assert.Equal(t, "/c?x=1", PathQuery(u.String()))
	for _, href := range []string{"http://other/x", "mailto:a@b", "javascript:void(0)", "ftp://h:1/x", "http://h:2/x"} {
		_, ok := Resolve("http://h:1/a", href)
		assert.False(t, ok, href)
	}
	_, ok = Resolve("::bad", "/x")
	assert.False(t, ok)
}
