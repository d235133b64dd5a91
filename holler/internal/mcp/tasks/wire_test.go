package tasks

import (
	"encoding/json"
	"testing"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

func TestWire(t *testing.T) {
	for params, want := range map[string]bool{
		`{"name":"x","task":{}}`:         true,
		`{"name":"x","task":{"ttl":60}}`: true,
		`{"name":"x","task":true}`:       false,
		`{"name":"x"}`:                   false,
		`not json`:                       false,
	} {
		if got := AsksForTask(json.RawMessage(params)); got != want {
			t.Errorf("AsksForTask(%s) = %v", params, got)
		}
	}
	if Support(&hootv1hoot.Tool{TaskRequired: true}) != "required" || Support(&hootv1hoot.Tool{}) != "optional" {
		t.Error("Support does not follow TaskRequired")
	}
	if !IsLegacyMethod(MethodList) || IsLegacyMethod(MethodUpdate) || LegacyCapabilityOf(nil) != nil || LegacyCapabilityOf(&List{}) == nil {
		t.Error("IsLegacyMethod or LegacyCapabilityOf")
	}
}
