package hooteproto_test

import (
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/types/known/anypb"
)

// fixturePayload puts a call of a fixture into the hoot.v1 Payload that carries it, as the
// gateway's tool table does.
func fixturePayload(p *conformancev1.Payload) *hootv1.Payload {
	a, err := anypb.New(p)
	if err != nil {
		panic(err)
	}
	return &hootv1.Payload{Request: &hootv1.Payload_Carried{Carried: a}}
}
