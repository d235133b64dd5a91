package mcp

import (
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
)

// TestEthBroadcastNeedsAPerson drives the generated tools of the Ethereum wrapper through the
// gateway's policy: a broadcast (eth_send_transaction, tier broadcast: admin with confirmation)
// reaches no worker, and so no node, unless the gateway allows admin tools and a person accepts
// the exact call; a read (eth_get_balance) runs without a question.
func TestEthBroadcastNeedsAPerson(t *testing.T) {
	t.Parallel()
	send := map[string]any{"name": "eth_send_transaction", "arguments": map[string]any{"transaction": map[string]any{
		"from": "0x71562b71999873db5b286df957af199ec94617f7", "to": "0x000000000000000000000000000000000000beef", "value": "0x2a"}}}
	balance := map[string]any{"name": "eth_get_balance", "arguments": map[string]any{"address": "0x71562b71999873db5b286df957af199ec94617f7"}}
	accept := answerWith(`{"action":"accept","content":{"confirm":true}}`)
	tests := []struct {
		name        string
		caps        string
		maxTier     hootv1.Tier
		params      map[string]any
		answer      func(rpcResponse) string
		wantAsked   bool
		wantCalls   int64
		wantOutcome string
	}{
		{name: "broadcast declined", caps: elicitCaps, maxTier: hootv1.Tier_TIER_ADMIN, params: send,
			answer: answerWith(`{"action":"decline"}`), wantAsked: true, wantOutcome: consent.OutcomeDeclined},
		{name: "broadcast from a client that cannot ask its user", caps: `{}`, maxTier: hootv1.Tier_TIER_ADMIN, params: send,
			wantOutcome: consent.OutcomeCannotElicit},
		{name: "broadcast above the gateway's tier", caps: elicitCaps, maxTier: hootv1.Tier_TIER_STANDARD, params: send,
			wantOutcome: consent.OutcomeTierTooHigh},
		{name: "broadcast confirmed", caps: elicitCaps, maxTier: hootv1.Tier_TIER_ADMIN, params: send,
			answer: accept, wantAsked: true, wantCalls: 1},
		{name: "read without a question", caps: elicitCaps, params: balance, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, b := newTestServer(t, func(c *Config) {
				if tc.maxTier != 0 {
					c.MaxTier = tc.maxTier
				}
			})
			c := newMCPHTTP(t, s)
			c.initializeWith(era.Latest, tc.caps)
			ans := tc.answer
			if ans == nil {
				ans = func(m rpcResponse) string {
					t.Errorf("the client was asked: %s", m.Params)
					return answerWith(`{"action":"decline"}`)(m)
				}
			}
			r, asked := c.callAnswering(3, tc.params, ans)
			if got := len(asked) > 0; got != tc.wantAsked {
				t.Errorf("asked = %v, want %v", got, tc.wantAsked)
			}
			if n := b.calls.Load(); n != tc.wantCalls {
				t.Errorf("the worker was called %d times, want %d", n, tc.wantCalls)
			}
			if tc.wantOutcome != "" {
				checkRefusal(t, r, tc.wantOutcome, consent.ConfirmationRequired, nil)
			}
		})
	}
}
