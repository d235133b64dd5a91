package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
)

// newRequest is httptest.NewRequest for a request from this machine to a loopback address,
// as a local client sends it: Host 127.0.0.1:8080, from 127.0.0.1.
func newRequest(method, target string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, target, body)
	r.Host = "127.0.0.1:8080"
	r.RemoteAddr = "127.0.0.1:40000"
	return r
}
