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
