package browser

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// ErrTooLarge is returned by InjectHTML for a page over its size limit; the
// response is left readable and unchanged.
var ErrTooLarge = errors.New("browser: page too large to instrument")

// InjectHTML rewrites an HTML response of a reverse proxy
// (httputil.ReverseProxy.ModifyResponse) so tags come first in its <head>
// (or <body>, or the document's start). Responses that are not HTML, or are
// content-encoded, pass untouched. A page over max bytes is relayed unchanged
// with ErrTooLarge. The page's Content-Security-Policy is dropped so the
// injected scripts run.
func InjectHTML(resp *http.Response, tags string, max int) error {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Content-Encoding") != "" {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err != nil {
		_ = resp.Body.Close()
		return err
	}
	if len(body) > max {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return ErrTooLarge
	}
	_ = resp.Body.Close()
	at := 0
	lower := bytes.ToLower(body)
	for _, open := range []string{"<head", "<body"} {
		if i := bytes.Index(lower, []byte(open)); i >= 0 {
			if j := bytes.IndexByte(lower[i:], '>'); j >= 0 {
				at = i + j + 1
				break
			}
		}
	}
	out := make([]byte, 0, len(body)+len(tags))
	out = append(out, body[:at]...)
	out = append(out, tags...)
	out = append(out, body[at:]...)
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	resp.Header.Del("Content-Security-Policy")
	return nil
}
