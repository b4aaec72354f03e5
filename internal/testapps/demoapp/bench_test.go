package demoapp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProjectList(b *testing.B) {
	app, err := New(Options{})
	require.NoError(b, err)
	req := signedInRequest(app, http.MethodGet, "/projects?status=all&sort=name&page=2", "")
	for b.Loop() {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
