package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusals runs the plugin on each file of internal/testdata/refuse, each with one mistake,
// and checks that it refuses the schema with an error that names the element and the fix.
func TestRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []string // parts of the error, in any order
	}{
		{"no_tool_option", []string{"hoot.refuse.no_tool_option.Payload.plain", "PlainRequest", "has no (hoot.v1.tool) option", "add `option (hoot.v1.tool)"}},
		{"not_in_payload", []string{"hoot.refuse.not_in_payload.StrayRequest", "is not in hoot.refuse.not_in_payload.Payload.request", "StrayRequest stray = N;"}},
		{"no_result", []string{"hoot.refuse.no_result.DoItRequest", `tool "do_it" has no result`, "DoItResult", "add `DoItResult do_it = N;`"}},
		{"result_option_unknown", []string{`tool "do_it" has no result`, "hoot.refuse.result_option_unknown.Elsewhere is not a member"}},
		{"orphan_result", []string{"hoot.refuse.orphan_result.Result.lonely", "LonelyResult", "which no tool returns"}},
		{"no_tool_error", []string{"hoot.refuse.no_tool_error.Result.result has no ToolError member", "ToolError error = N;"}},
		{"duplicate_name", []string{"hoot.refuse.duplicate_name.AgainRequest", `tool name "do_it" is already the name of hoot.refuse.duplicate_name.DoItRequest`}},
		{"name_upper", []string{"hoot.refuse.name_upper.DoItRequest", `tool name "DoIt" is not valid`, "[a-z0-9_]"}},
		{"name_digit_first", []string{`tool name "1do_it" is not valid`, "starting with a letter"}},
		{"name_too_long", []string{"is not valid", "1 to 64 characters"}},
		{"name_missing", []string{"hoot.refuse.name_missing.DoItRequest", "(hoot.v1.tool).name is empty", `"do_it"`}},
		{"service_missing", []string{"hoot.refuse.service_missing.DoItRequest", "(hoot.v1.tool).service is empty"}},
		{"tier_missing", []string{"hoot.refuse.tier_missing.DoItRequest", "(hoot.v1.tool).tier is not set", "TIER_BASIC"}},
		{"max_length_on_int", []string{"hoot.refuse.max_length_on_int.DoItRequest.count", "an int32", "minimum/maximum"}},
		{"minimum_on_string", []string{"hoot.refuse.minimum_on_string.DoItRequest.name", "minimum and maximum bound numbers", "a string", "min_length/max_length"}},
		{"pattern_on_int", []string{"hoot.refuse.pattern_on_int.DoItRequest.id", "pattern applies to strings", "an int64"}},
		{"pattern_on_bytes", []string{"hoot.refuse.pattern_on_bytes.DoItRequest.data", "pattern applies to strings", "a bytes"}},
		{"minimum_without_flag", []string{"hoot.refuse.minimum_without_flag.DoItRequest.count", "add has_minimum: true"}},
		{"minimum_above_maximum", []string{"hoot.refuse.minimum_above_maximum.DoItRequest.count", "minimum 5 is above maximum 4"}},
		{"min_length_above_max_length", []string{"hoot.refuse.min_length_above_max_length.DoItRequest.name", "min_length 5 is above max_length 4"}},
		{"bad_pattern", []string{"hoot.refuse.bad_pattern.DoItRequest.name", `pattern "^(?=a)a$" does not compile as an RE2`}},
		{"recursive_request", []string{"hoot.refuse.recursive_request.Node is recursive", "hoot.refuse.recursive_request.Node.children", "finite tree"}},
		{"example_breaks_pattern", []string{"hoot.refuse.example_breaks_pattern.DoItRequest.hash", `example "xyz" breaks the field's own rules`, "must match ^[0-9a-f]{4}$"}},
		{"example_wrong_type", []string{"hoot.refuse.example_wrong_type.DoItRequest.count", `example "many" is not a valid value for an int32`}},
		{"example_quoted", []string{"hoot.refuse.example_quoted.DoItRequest.name", "is not a valid value for a string", "without the quotes"}},
		{"example_too_long", []string{"hoot.refuse.example_too_long.DoItRequest.name", "must be at most 3 characters, got 5"}},
		{"required_needs_example", []string{"hoot.refuse.required_needs_example.DoItRequest", `the example call of tool "do_it"`, "hash must match", "give hoot.refuse.required_needs_example.DoItRequest.hash an example"}},
		{"job_without_job_started", []string{"hoot.refuse.job_without_job_started.DoItRequest", `tool "do_it" is of kind JOB`, "JobStarted job_started = N;"}},
		{"nested_example", []string{"hoot.refuse.nested_example.DoItRequest.part", "part.id must be at most 10, got 20"}},
		{"resource_without_uri", []string{"hoot.refuse.resource_without_uri.DoItRequest", `resource "do_it" has no uri`}},
		{"uri_on_tool", []string{"hoot.refuse.uri_on_tool.DoItRequest", "uri and mime_type are for resources", "SURFACE_RESOURCE"}},
		{"template_unknown_variable", []string{"hoot.refuse.template_unknown_variable.DoItRequest", `names {id}, which is not a string field`}},
		{"confirm_not_destructive", []string{"hoot.refuse.confirm_not_destructive.DoItRequest", "confirm is for destructive or admin tools", "destructive: true"}},
		{"confirm_on_prompt", []string{"hoot.refuse.confirm_on_prompt.DoItRequest", "confirm is for tools", "drop confirm"}},
		{"admin_prompt", []string{"hoot.refuse.admin_prompt.DoItRequest", `"do_it" is an admin prompt`, "make it a tool or give it a lower tier"}},
		{"fixture_schema_outside_conformance", []string{"hoot.refuse.fixture_schema_outside_conformance.DoItRequest", "fixture_input_schema is for fixtures", "option (hoot.v1.fixtures) = true;", `tool "do_it" is one of the product's`, "drop fixture_input_schema"}},
		{"carried_without_carrier", []string{"carried_without_carrier.proto has the (hoot.v1.carried) option", "no other schema's Payload and Result have a google.protobuf.Any member", "google.protobuf.Any carried = N;"}},
		{"fixture_schema_unknown_property", []string{"hoot.refuse.fixture_schema_unknown_property.DoItRequest", `has property "nickname", which is not a field of the request`}},
		{"header_bad_name", []string{"hoot.refuse.header_bad_name.DoItRequest.region", `header "My Region" has ' '`, "letters, digits and -"}},
		{"header_duplicate", []string{"hoot.refuse.header_duplicate.DoItRequest.b", `header "region" is also the header of hoot.refuse.header_duplicate.DoItRequest.a`}},
		{"header_on_double", []string{"hoot.refuse.header_on_double.DoItRequest.score", "a double", "string, enum, bool or 32-bit integer"}},
		{"header_on_int64", []string{"hoot.refuse.header_on_int64.DoItRequest.big", "an int64"}},
		{"header_on_list", []string{"hoot.refuse.header_on_list.DoItRequest.tags", "string, enum, bool or 32-bit integer"}},
		{"header_nested", []string{"hoot.refuse.header_nested.Part.id", "nested message", "move the field to the request"}},
		{"prompt_as_job", []string{"hoot.refuse.prompt_as_job.DoItRequest", "SURFACE_PROMPT and must be of kind KIND_SYNC"}},
		{"task_role_two_fields", []string{"hoot.refuse.task_role_two_fields.DoItRequest", "takes the job's id as its first field", "needs a field of type hoot.v1.Job"}},
		{"task_role_twice", []string{"hoot.refuse.task_role_twice.AgainRequest", `task_role TASK_ROLE_CANCEL is already the role of "do_it"`}},
		{"elicit_on_list", []string{"hoot.refuse.elicit_on_list.DoItRequest.tags", "a repeated string field", "single string, enum, bool or number", "drop elicit"}},
		{"elicit_on_int64", []string{"hoot.refuse.elicit_on_int64.DoItRequest.big", "an int64", "not 64-bit"}},
		{"elicit_required", []string{"hoot.refuse.elicit_required.DoItRequest.name", "elicit and required are both set", "drop required"}},
		{"elicit_without_presence", []string{"hoot.refuse.elicit_without_presence.DoItRequest.count", "without presence", "declare it optional"}},
		{"elicit_in_oneof", []string{"hoot.refuse.elicit_in_oneof.DoItRequest.a", "member of the oneof source"}},
		{"elicit_on_prompt", []string{"hoot.refuse.elicit_on_prompt.DoItRequest.topic", "elicit is for the arguments of tools", "drop elicit"}},
		{"elicit_nested", []string{"hoot.refuse.elicit_nested.Part.id", "nested message", "move the field to the request or drop elicit"}},
		{"task_required_on_sync", []string{"hoot.refuse.task_required_on_sync.DoItRequest", "task_required is for tools of kind JOB", "drop task_required"}},
	}
	seen := make(map[string]bool)
	for _, tc := range tests {
		seen[tc.file+".proto"] = true
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			file := tc.file + ".proto"
			files := compile(t, []string{filepath.Join(testdataDir, "refuse"), schemaDir}, file)
			rsp := generate(t, newRequest(files, "paths=source_relative", file))
			got := rsp.GetError()
			if got == "" {
				t.Fatalf("the plugin accepted %s and wrote %d files", file, len(rsp.GetFile()))
			}
			if len(rsp.GetFile()) != 0 {
				t.Errorf("the plugin refused %s but wrote %d files", file, len(rsp.GetFile()))
			}
			if !strings.HasPrefix(got, "protoc-gen-hoot: ") {
				t.Errorf("error %q does not start with protoc-gen-hoot: ", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("error does not mention %q:\n%s", w, got)
				}
			}
		})
	}
	entries, err := os.ReadDir(filepath.Join(testdataDir, "refuse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("refuse/%s has no test case", e.Name())
		}
	}
}
