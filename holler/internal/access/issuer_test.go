package access

import (
	"testing"

	"github.com/hootenanny/hoot/holler/internal/access/accesstest"
)

// testIssuer adapts accesstest.Issuer to the names these tests use.
type testIssuer struct {
	*accesstest.Issuer
	url string
}

func newTestIssuer(t *testing.T) *testIssuer {
	iss := accesstest.NewIssuer(t)
	return &testIssuer{Issuer: iss, url: iss.URL}
}
