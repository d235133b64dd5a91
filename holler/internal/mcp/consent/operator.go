package consent

import (
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// This file holds what the gateway does differently for the tools of tier OPERATOR, which run
// commands on a worker's machine: the person asked to confirm a call reads every argument in
// full (the exact command line, its working directory and its limits), with those left out
// named as the worker's defaults; and --confirm never does not waive the question (consent.go).

// operatorWarning says, in a confirmation, what an operator tool is.
const operatorWarning = "It is an operator tool: it runs a command on a worker's machine, in a sandbox, with the limits below."

// operatorWaiver is the end of the hint of a call refused because its client cannot ask its
// user: how the operator can let such tools run without asking, which for an operator tool
// they cannot.
func operatorWaiver(t *hootv1hoot.Tool) string {
	if t.Tier >= hootv1.Tier_TIER_OPERATOR {
		return "An operator tool is confirmed by a person on every call, whatever the server's --confirm says; use a client that can ask."
	}
	return "For trusted clients only, the server's operator can start holler with --confirm never, which runs such tools without asking anyone."
}
