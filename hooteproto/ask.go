package hooteproto

import "context"

// WithAsk returns a context whose AskClient calls go to f. The worker answers AskClient for
// every request it serves; code that runs a handler's work elsewhere, such as a job runner
// that keeps a job's questions for the client to answer later, sets its own.
func WithAsk(ctx context.Context, f ClientAsker) context.Context {
	return context.WithValue(ctx, askKey{}, f)
}
