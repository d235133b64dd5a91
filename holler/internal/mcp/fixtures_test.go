package mcp

import (
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/types/known/anypb"
)

// fixtureResult puts a fixture's result into the hoot.v1 Result that carries it, as the
// fixture worker's dispatch does.
func fixtureResult(r *conformancev1.Result) *hootv1.Result {
	a, err := anypb.New(r)
	if err != nil {
		panic(err)
	}
	return &hootv1.Result{Result: &hootv1.Result_Carried{Carried: a}}
}

// requestOf returns what a fake backend switches on: the member of p's oneof, or for a call of a
// fixture the member of the fixtures' own Payload that p carries.
func requestOf(p *hootv1.Payload) any {
	c, ok := p.GetRequest().(*hootv1.Payload_Carried)
	if !ok {
		return p.GetRequest()
	}
	in := new(conformancev1.Payload)
	if err := c.Carried.UnmarshalTo(in); err != nil {
		return nil
	}
	return in.GetRequest()
}

// carriedResult returns the fixtures' own Result that r carries, or an empty one.
func carriedResult(r *hootv1.Result) *conformancev1.Result {
	out := new(conformancev1.Result)
	if c, ok := r.GetResult().(*hootv1.Result_Carried); ok {
		_ = c.Carried.UnmarshalTo(out)
	}
	return out
}

// carriedPayload returns the fixtures' own Payload that p carries, or an empty one.
func carriedPayload(p *hootv1.Payload) *conformancev1.Payload {
	out := new(conformancev1.Payload)
	if c, ok := p.GetRequest().(*hootv1.Payload_Carried); ok {
		_ = c.Carried.UnmarshalTo(out)
	}
	return out
}
