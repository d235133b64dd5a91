package gateway

import (
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"slices"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// toolTable returns the tools the gateway serves: the product's, and with conformance the test
// fixtures too. A gateway without it cannot list or call a fixture, even when a worker offers
// the fixtures' services.
func toolTable(conformance bool) []hootv1hoot.Tool {
	if !conformance {
		return hootv1hoot.Tools
	}
	return slices.Concat(hootv1hoot.Tools, conformancev1hoot.Fixtures)
}
