package consent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// A Confirmer puts a Question to a person and waits for the answer, with the form's content
// when the person accepted it; an error means that no answer came (ctx ended, or the client
// failed the request). The policy only sees the answer: how the person is asked differs by
// protocol era, not by policy.
type Confirmer interface {
	Confirm(ctx context.Context, q Question) (Answer, map[string]json.RawMessage, error)
}

// A Requester sends the request method with params to the client and waits for its response:
// the result, or the error the client answered with.
type Requester func(ctx context.Context, method string, params any) (result, failure json.RawMessage, err error)

// An Elicitor asks with elicitation/create, a request on the stream of the call being
// confirmed, which protocol versions 2025-06-18 and 2025-11-25 have.
type Elicitor struct {
	Request Requester
}

var _ Confirmer = Elicitor{}

// Confirm asks q with elicitation/create and reads the person's action.
func (e Elicitor) Confirm(ctx context.Context, q Question) (Answer, map[string]json.RawMessage, error) {
	result, failure, err := e.Request(ctx, questions.MethodElicit, questions.Elicit{Message: q.Message(), RequestedSchema: q.RequestedSchema()})
	if err != nil {
		return Declined, nil, err
	}
	if failure != nil {
		return Declined, nil, errors.New("the client failed elicitation/create: " + string(failure))
	}
	var r struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil {
		return Declined, nil, errors.New("the client's answer to elicitation/create is malformed")
	}
	switch r.Action {
	case "accept":
		return q.Accepted(r.Content), r.Content, nil
	case "decline":
		return Declined, nil, nil
	case "cancel":
		return Cancelled, nil, nil
	}
	return Declined, nil, errors.New("the client answered elicitation/create with the unknown action " + wording.Quote(r.Action))
}
