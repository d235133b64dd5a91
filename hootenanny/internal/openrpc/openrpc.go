// Package openrpc reads an OpenRPC description written as YAML files, the way the Ethereum
// execution API keeps its own: method files (lists of methods, each with params, result and
// errors) and schema files (maps of schema name to JSON Schema, referred to as
// '#/components/schemas/NAME'). It keeps the order in which properties are written, which the
// generated protobuf messages number their fields by.
package openrpc

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// A Spec is an upstream's API: its methods and the schemas they refer to.
type Spec struct {
	Methods []*Method
	Schemas map[string]*Schema
}

// A Method is one method of the API.
type Method struct {
	Name        string
	Summary     string
	Description string
	Params      []*ContentDescriptor
	Result      *ContentDescriptor
	// File is the method file that defines it, relative to the spec's root.
	File string
	// ExampleParams are the parameters of the method's first example that are strings, by
	// parameter name.
	ExampleParams map[string]string
}

// A ContentDescriptor names a parameter or a result and gives its schema.
type ContentDescriptor struct {
	Name        string
	Description string
	Required    bool
	Schema      *Schema
}

// A Schema is the part of JSON Schema the execution API uses.
type Schema struct {
	Ref         string
	Title       string
	Description string
	Type        string
	Pattern     string
	Enum        []string
	Minimum     *float64
	Maximum     *float64
	Items       *Schema
	// Properties are in the order the file writes them.
	Properties []*Property
	Required   []string
	// Additional is the schema of additionalProperties (or of the one patternProperties
	// entry): the values of a map keyed by string.
	Additional *Schema
	// NoAdditional is additionalProperties: false.
	NoAdditional bool
	OneOf        []*Schema
	AnyOf        []*Schema
	AllOf        []*Schema
}

// A Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

const refPrefix = "#/components/schemas/"

// RefName returns the schema name a $ref names, and whether it is a local schema reference.
func RefName(ref string) (string, bool) {
	name, ok := strings.CutPrefix(ref, refPrefix)
	return name, ok && name != ""
}

// Load reads the method files and schema files under root. methodDirs and schemaDirs are
// directories relative to root whose *.yaml files hold methods and schemas; a method's name must
// be unique, and so must a schema's.
func Load(root string, methodDirs, schemaDirs []string) (*Spec, error) {
	spec := &Spec{Schemas: map[string]*Schema{}}
	seen := map[string]string{}
	for _, dir := range methodDirs {
		files, err := yamlFiles(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			var methods []*Method
			if err := decodeFile(f, &methods); err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(root, f)
			for _, m := range methods {
				if m.Name == "" {
					return nil, fmt.Errorf("%s: a method has no name", rel)
				}
				if other, dup := seen[m.Name]; dup {
					return nil, fmt.Errorf("%s: method %s is also defined in %s", rel, m.Name, other)
				}
				seen[m.Name] = rel
				m.File = filepath.ToSlash(rel)
				spec.Methods = append(spec.Methods, m)
			}
		}
	}
	for _, dir := range schemaDirs {
		files, err := yamlFiles(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			var node yaml.Node
			if err := decodeFile(f, &node); err != nil {
				return nil, err
			}
			m := &node
			if m.Kind == 0 {
				continue // an empty file
			}
			if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
				m = m.Content[0]
			}
			if m.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("%s: want a map of schema names to schemas", f)
			}
			for i := 0; i+1 < len(m.Content); i += 2 {
				name := m.Content[i].Value
				if _, dup := spec.Schemas[name]; dup {
					return nil, fmt.Errorf("%s: schema %s is defined twice", f, name)
				}
				s := new(Schema)
				if err := m.Content[i+1].Decode(s); err != nil {
					return nil, fmt.Errorf("%s: schema %s: %w", f, name, err)
				}
				spec.Schemas[name] = s
			}
		}
	}
	sort.Slice(spec.Methods, func(i, j int) bool { return spec.Methods[i].Name < spec.Methods[j].Name })
	return spec, spec.checkRefs()
}

// Resolve follows s's $ref chain to the schema it names.
func (spec *Spec) Resolve(s *Schema) (*Schema, string, error) {
	name := ""
	for i := 0; s != nil && s.Ref != ""; i++ {
		if i > 32 {
			return nil, "", fmt.Errorf("$ref %s: the chain of references does not end", s.Ref)
		}
		n, ok := RefName(s.Ref)
		if !ok {
			return nil, "", fmt.Errorf("$ref %q: only %sNAME is supported", s.Ref, refPrefix)
		}
		// A pointer into a schema: NAME/properties/PROP or NAME/items.
		segs := strings.Split(n, "/")
		next, ok := spec.Schemas[segs[0]]
		for j := 1; ok && j < len(segs); j++ {
			switch {
			case segs[j] == "items" && next.Items != nil:
				next = next.Items
			case segs[j] == "properties" && j+1 < len(segs):
				j++
				ok = false
				for _, p := range next.Properties {
					if p.Name == segs[j] {
						next, ok = p.Schema, true
					}
				}
			default:
				ok = false
			}
		}
		if !ok {
			return nil, "", fmt.Errorf("$ref %s: no such schema", s.Ref)
		}
		s, name = next, strings.ReplaceAll(strings.ReplaceAll(n, "/properties/", ""), "/items", "Item")
	}
	return s, name, nil
}

// checkRefs checks that every $ref names a schema.
func (spec *Spec) checkRefs() error {
	var walk func(where string, s *Schema) error
	walk = func(where string, s *Schema) error {
		if s == nil {
			return nil
		}
		if s.Ref != "" {
			if _, _, err := spec.Resolve(s); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		for _, sub := range s.children() {
			if err := walk(where, sub); err != nil {
				return err
			}
		}
		return nil
	}
	for _, m := range spec.Methods {
		for _, p := range m.Params {
			if err := walk(m.Name+" param "+p.Name, p.Schema); err != nil {
				return err
			}
		}
		if m.Result != nil {
			if err := walk(m.Name+" result", m.Result.Schema); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(spec.Schemas))
	for n := range spec.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := walk("schema "+n, spec.Schemas[n]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Schema) children() []*Schema {
	var out []*Schema
	out = append(out, s.Items, s.Additional)
	for _, p := range s.Properties {
		out = append(out, p.Schema)
	}
	out = append(out, s.OneOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.AllOf...)
	return out
}

// UnmarshalYAML decodes a schema, keeping the order of its properties.
func (s *Schema) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!bool") {
		// `true` allows anything; `false` nothing. Neither carries a type.
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a schema must be a map", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i].Value, n.Content[i+1]
		var err error
		switch key {
		case "$ref":
			s.Ref = v.Value
		case "title":
			s.Title = v.Value
		case "description":
			s.Description = v.Value
		case "type":
			if v.Kind == yaml.SequenceNode {
				// type: [string, "null"]: the non-null type.
				for _, t := range v.Content {
					if t.Value != "null" {
						s.Type = t.Value
					}
				}
			} else {
				s.Type = v.Value
			}
		case "pattern":
			s.Pattern = v.Value
		case "const":
			// A constant tells its type when the schema does not.
			if s.Type == "" && v.Kind == yaml.ScalarNode {
				s.Type = map[string]string{"!!int": "integer", "!!float": "number", "!!bool": "boolean", "!!str": "string"}[v.Tag]
			}
		case "enum":
			err = v.Decode(&s.Enum)
		case "minimum":
			s.Minimum = new(float64)
			err = v.Decode(s.Minimum)
		case "maximum":
			s.Maximum = new(float64)
			err = v.Decode(s.Maximum)
		case "items":
			s.Items = new(Schema)
			err = v.Decode(s.Items)
		case "required":
			if v.Kind == yaml.SequenceNode {
				err = v.Decode(&s.Required)
			}
		case "properties":
			if v.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: properties must be a map", v.Line)
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				p := &Property{Name: v.Content[j].Value, Schema: new(Schema)}
				if err := v.Content[j+1].Decode(p.Schema); err != nil {
					return err
				}
				s.Properties = append(s.Properties, p)
			}
		case "additionalProperties":
			if v.Kind == yaml.ScalarNode && v.Value == "false" {
				s.NoAdditional = true
			} else if v.Kind == yaml.MappingNode {
				s.Additional = new(Schema)
				err = v.Decode(s.Additional)
			}
		case "patternProperties":
			// Keys matching a pattern (an address, say): a map whose values have the one
			// schema given.
			if v.Kind == yaml.MappingNode && len(v.Content) == 2 {
				s.Additional = new(Schema)
				err = v.Content[1].Decode(s.Additional)
			}
		case "oneOf":
			err = v.Decode(&s.OneOf)
		case "anyOf":
			err = v.Decode(&s.AnyOf)
		case "allOf":
			err = v.Decode(&s.AllOf)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return nil
}

// UnmarshalYAML decodes a content descriptor, whose schema may be left out.
func (c *ContentDescriptor) UnmarshalYAML(n *yaml.Node) error {
	var raw struct {
		Name        string  `yaml:"name"`
		Description string  `yaml:"description"`
		Summary     string  `yaml:"summary"`
		Required    bool    `yaml:"required"`
		Schema      *Schema `yaml:"schema"`
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	c.Name, c.Required, c.Schema = raw.Name, raw.Required, raw.Schema
	c.Description = raw.Description
	if c.Description == "" {
		c.Description = raw.Summary
	}
	if c.Schema == nil {
		c.Schema = new(Schema)
	}
	return nil
}

// UnmarshalYAML decodes a method, ignoring its examples and errors.
func (m *Method) UnmarshalYAML(n *yaml.Node) error {
	var raw struct {
		Name        string               `yaml:"name"`
		Summary     string               `yaml:"summary"`
		Description string               `yaml:"description"`
		Params      []*ContentDescriptor `yaml:"params"`
		Result      *ContentDescriptor   `yaml:"result"`
		Examples    []struct {
			Params []struct {
				Name  string    `yaml:"name"`
				Value yaml.Node `yaml:"value"`
			} `yaml:"params"`
		} `yaml:"examples"`
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	m.Name, m.Summary, m.Description, m.Params, m.Result = raw.Name, raw.Summary, raw.Description, raw.Params, raw.Result
	m.ExampleParams = map[string]string{}
	if len(raw.Examples) > 0 {
		for _, p := range raw.Examples[0].Params {
			if p.Value.Kind == yaml.ScalarNode && p.Value.Tag == "!!str" {
				m.ExampleParams[p.Name] = p.Value.Value
			}
		}
	}
	return nil
}

func yamlFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

func decodeFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
