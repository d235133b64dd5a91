package mcp

import (
	"context"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/hooteproto"
)

// Requests from a worker's tool to the client (sampling/createMessage, elicitation/create,
// roots/list) go out on the stream of the tools/call they belong to, and the client's response
// comes back as a message without a method, matched by its id (sessions.Calls). This is the
// older protocols' way; 2026-07-28 asks in results instead (mrtr.go). How a question and its
// answer read in JSON is package questions'.

// clientAsker returns the ClientAsker of one tools/call: it sends a tool's request to the
// client on out and waits for the response.
func (s *Server) clientAsker(sess *sessions.Session, out sessions.Notifier) hooteproto.ClientAsker {
	return func(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		method, params := questions.Params(req)
		if method == "" {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the request for the client is empty")
		}
		if method == questions.MethodRootsList && !sess.Caps().Roots {
			// Sampling and elicitation are left to the client to refuse, as they always were.
			return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "this client did not declare the roots capability in initialize, so it cannot be asked for its roots")
		}
		msg, err := s.clientCalls.Ask(ctx, sess, out, method, params)
		if err != nil {
			return nil, hooteproto.AsError(err)
		}
		return questions.Response(req, msg.Result, msg.Error), nil
	}
}
