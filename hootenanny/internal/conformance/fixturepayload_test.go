package conformance

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

// carriedResult returns the fixtures' own Result that r carries, or an empty one.
func carriedResult(r *hootv1.Result) *conformancev1.Result {
	out := new(conformancev1.Result)
	if c, ok := r.GetResult().(*hootv1.Result_Carried); ok {
		_ = c.Carried.UnmarshalTo(out)
	}
	return out
}
