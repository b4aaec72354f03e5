package clip

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	assert.Equal(t, "abc", String("abc", 3))
	assert.Equal(t, "ab…", String("abc", 2))
	assert.Equal(t, "…", String("abc", 0))
}

func TestUTF8(t *testing.T) {
	assert.Equal(t, "ab", UTF8("ab", 5))
	assert.Equal(t, "a", UTF8("aé", 2), "é is two bytes: not split")
	assert.Equal(t, "aé", UTF8("aéb", 3))
	assert.Equal(t, "", UTF8("abc", 0))
}
