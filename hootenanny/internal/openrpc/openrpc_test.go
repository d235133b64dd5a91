package openrpc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "m/a.yaml", "- name: b_two\n  params: []\n- name: a_one\n  params:\n    - name: X\n      required: true\n      schema:\n        $ref: '#/components/schemas/Obj/properties/inner'\n")
	write(t, dir, "s/s.yaml", "Obj:\n  type: object\n  properties:\n    z: {type: string}\n    inner: {type: boolean}\n    a: {type: string}\n")
	spec, err := Load(dir, []string{"m"}, []string{"s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Methods) != 2 || spec.Methods[0].Name != "a_one" || spec.Methods[0].File != "m/a.yaml" {
		t.Fatalf("methods %+v", spec.Methods)
	}
	var order []string
	for _, p := range spec.Schemas["Obj"].Properties {
		order = append(order, p.Name)
	}
	if strings.Join(order, ",") != "z,inner,a" {
		t.Errorf("properties in the order %v, want the file's", order)
	}
	r, _, err := spec.Resolve(spec.Methods[0].Params[0].Schema)
	if err != nil || r.Type != "boolean" {
		t.Errorf("a $ref into a property: %+v %v", r, err)
	}
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, methods, schemas, want string }{
		{"duplicate method", "- name: a\n- name: a\n", "", "also defined"},
		{"nameless method", "- summary: x\n", "", "has no name"},
		{"dangling ref", "- name: a\n  result:\n    name: r\n    schema:\n      $ref: '#/components/schemas/Nope'\n", "", "no such schema"},
		{"foreign ref", "- name: a\n  result:\n    name: r\n    schema:\n      $ref: 'http://x/y'\n", "", "only #/components/schemas/NAME"},
		{"ref loop", "- name: a\n  result:\n    name: r\n    schema:\n      $ref: '#/components/schemas/A'\n", "A:\n  $ref: '#/components/schemas/B'\nB:\n  $ref: '#/components/schemas/A'\n", "does not end"},
		{"schema file not a map", "", "- a\n", "want a map"},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		write(t, dir, "m/m.yaml", tc.methods)
		write(t, dir, "s/s.yaml", tc.schemas)
		if _, err := Load(dir, []string{"m"}, []string{"s"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzSchema decodes arbitrary YAML as a schema: an error or a schema, never a panic.
func FuzzSchema(f *testing.F) {
	for _, seed := range []string{
		"type: object\nproperties:\n  a: {type: string}\nrequired: [a]\n",
		"anyOf:\n  - $ref: '#/components/schemas/x'\n  - type: 'null'\n",
		"type: [string, 'null']\nconst: 3\n", "patternProperties:\n  '^0x': {type: integer}\n", "true", "items: 1", "properties: [1]",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<14 {
			return
		}
		var s Schema
		_ = yaml.Unmarshal(b, &s)
		var ms []*Method
		_ = yaml.Unmarshal(b, &ms)
	})
}
