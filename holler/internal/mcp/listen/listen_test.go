package listen

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestReadFilter(t *testing.T) {
	t.Parallel()
	f, bad := ReadFilter(json.RawMessage(`{"notifications":{"toolsListChanged":true,"promptsListChanged":false,"resourcesListChanged":null,"resourceSubscriptions":["a://b"],"taskIds":["t"],"other":1}}`), []string{"taskIds"})
	if bad != nil || f.Kinds != Tools || len(f.Resources) != 1 || string(f.Extensions["taskIds"]) != `["t"]` || len(f.Extensions) != 1 {
		t.Fatalf("filter %+v, fault %+v", f, bad)
	}
	many, _ := json.Marshal(map[string]any{"notifications": map[string]any{"resourceSubscriptions": make([]string, MaxResourceSubscriptions+1)}})
	long, _ := json.Marshal(map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{strings.Repeat("x", MaxSubscribedURI+1)}}})
	for _, tc := range []struct {
		params, field string
	}{
		{`{}`, "params.notifications"},
		{`{"notifications":[]}`, "params.notifications"},
		{`{"notifications":{"toolsListChanged":"yes"}}`, "params.notifications.toolsListChanged"},
		{`{"notifications":{"resourceSubscriptions":"a://b"}}`, "params.notifications.resourceSubscriptions"},
		{string(many), "params.notifications.resourceSubscriptions"},
		{string(long), "params.notifications.resourceSubscriptions"},
	} {
		if _, bad := ReadFilter(json.RawMessage(tc.params), nil); bad == nil || bad.Field != tc.field || bad.Expected == "" || bad.Text == "" {
			t.Errorf("%.60s: fault %+v, want at %s", tc.params, bad, tc.field)
		}
	}
}

// FuzzReadFilter checks that any params give a filter within the bounds or a fault that names
// a member of params.notifications.
func FuzzReadFilter(f *testing.F) {
	for _, s := range []string{`{"notifications":{"toolsListChanged":true}}`, `{"notifications":{"resourceSubscriptions":["a"],"x":[1]}}`, `{}`, `null`, `{"notifications":{"promptsListChanged":1}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		flt, bad := ReadFilter(json.RawMessage(params), []string{"x"})
		if bad != nil {
			if !strings.HasPrefix(bad.Field, "params.notifications") {
				t.Fatalf("fault %+v", bad)
			}
			return
		}
		if len(flt.Resources) > MaxResourceSubscriptions || flt.Kinds&^(Tools|Prompts|Resources) != 0 {
			t.Fatalf("filter %+v", flt)
		}
	})
}

// TestStream checks that changes of the same list coalesce, that every notification carries
// the subscription id beside its own _meta, and that a queue over its bound is reported.
func TestStream(t *testing.T) {
	t.Parallel()
	ls := NewStream(json.RawMessage(`7`))
	ls.Lists(Tools)
	ls.Lists(Tools | Prompts)
	ls.Notify("notifications/x", map[string]any{"_meta": map[string]any{"k": 1}, "n": 1})
	<-ls.Wake()
	kinds, queue, over := ls.Take()
	if kinds != Tools|Prompts || len(queue) != 1 || over {
		t.Fatalf("take: %v, %d queued, overflow %v", kinds, len(queue), over)
	}
	meta := queue[0].Params.(map[string]any)["_meta"].(map[string]any)
	if string(meta[MetaSubscriptionID].(json.RawMessage)) != "7" || meta["k"] != 1 {
		t.Errorf("meta %v", meta)
	}
	for range MaxQueue + 1 {
		ls.Notify("notifications/x", nil)
	}
	if _, queue, over := ls.Take(); len(queue) != MaxQueue || !over {
		t.Errorf("%d queued, overflow %v", len(queue), over)
	}
}

// TestSetAndHub checks the bound of open streams, the end of all of them, and that a
// subscriber hears only the lists it follows until it cancels.
func TestSetAndHub(t *testing.T) {
	t.Parallel()
	var s Set
	s.Init(1)
	if !s.Acquire() || s.Acquire() || s.Open() != 1 {
		t.Fatal("a set of one took two")
	}
	s.Release()
	if !s.Acquire() {
		t.Error("a released place was not taken again")
	}
	s.EndAll()
	s.EndAll()
	<-s.Ended()

	var h Hub
	var got []Kinds
	cancel := h.Subscribe(Prompts|Resources, func(k Kinds) { got = append(got, k) })
	h.Publish(Tools)
	h.Publish(Tools | Prompts)
	cancel()
	h.Publish(Resources)
	if len(got) != 1 || got[0] != Prompts || strings.Join(got[0].Names(), ",") != "prompts" {
		t.Errorf("delivered %v", got)
	}
}
