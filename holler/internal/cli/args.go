package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// maxFileArgument bounds a file read into an argument with key=@path: the gateway refuses
// larger requests anyway, and saying so before reading a huge file is kinder.
const maxFileArgument = 64 << 20

// asMap returns v as a JSON object, converting typed schemas through their JSON form.
func asMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	if v == nil {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}

// A schema is a tool's input schema, kept as decoded JSON.
type schema struct {
	root map[string]any
}

// property returns the schema of the top-level argument name, with a local $ref resolved.
func (s schema) property(name string) (map[string]any, bool) {
	props, _ := s.root["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	if !ok {
		return nil, false
	}
	return s.resolve(p), true
}

// resolve follows a "#/$defs/Name" reference.
func (s schema) resolve(p map[string]any) map[string]any {
	ref, _ := p["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return p
	}
	defs, _ := s.root["$defs"].(map[string]any)
	if d, ok := defs[name].(map[string]any); ok {
		return d
	}
	return p
}

// parseArguments turns key=value words into a tool's arguments, each value typed by the
// tool's input schema: numbers, booleans and enums as such, lists by repeating the key, and
// objects as JSON. key:=JSON takes the JSON as it is; key=@path takes a file's contents
// (key=@- standard input), as base64 where the schema wants bytes.
func parseArguments(words []string, s schema, stdin io.Reader) (map[string]any, error) {
	args := map[string]any{}
	for _, w := range words {
		key, raw, isJSON := splitArgument(w)
		if key == "" {
			return nil, fmt.Errorf("argument %q is not key=value (or key:=JSON, key=@file)", w)
		}
		prop, known := s.property(key)
		var v any
		if isJSON {
			if err := json.Unmarshal([]byte(raw), &v); err != nil {
				return nil, fmt.Errorf("%s:= takes JSON: %v", key, err)
			}
		} else {
			var err error
			if v, err = typedValue(key, raw, prop, known, s, stdin); err != nil {
				return nil, err
			}
		}
		if known && prop["type"] == "array" && !isJSON {
			list, _ := args[key].([]any)
			args[key] = append(list, v)
			continue
		}
		if _, dup := args[key]; dup {
			return nil, fmt.Errorf("%s is given twice, and it takes one value", key)
		}
		args[key] = v
	}
	return args, nil
}

// splitArgument splits key=value or key:=json.
func splitArgument(w string) (key, value string, isJSON bool) {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return "", "", false
	}
	if w[i-1] == ':' {
		return w[:i-1], w[i+1:], true
	}
	return w[:i], w[i+1:], false
}

// typedValue types one value (of the argument, or of one element of a list argument).
func typedValue(key, raw string, prop map[string]any, known bool, s schema, stdin io.Reader) (any, error) {
	if known && prop["type"] == "array" {
		items, _ := prop["items"].(map[string]any)
		if items == nil {
			items = map[string]any{}
		}
		return typedValue(key, raw, s.resolve(items), true, s, stdin)
	}
	if strings.HasPrefix(raw, "@") {
		b, err := readFileArgument(raw[1:], stdin)
		if err != nil {
			return nil, fmt.Errorf("%s=@%s: %w", key, raw[1:], err)
		}
		if known && prop["contentEncoding"] == "base64" {
			return base64.StdEncoding.EncodeToString(b), nil
		}
		return string(b), nil
	}
	if !known {
		return raw, nil // the gateway names the arguments it expected
	}
	switch prop["type"] {
	case "integer":
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s takes a whole number, not %q", key, raw)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, fmt.Errorf("%s takes a number, not %q", key, raw)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, fmt.Errorf("%s takes true or false, not %q", key, raw)
		}
		return b, nil
	case "object":
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			return nil, fmt.Errorf("%s takes a JSON object: %v", key, err)
		}
		return v, nil
	case "string":
		if enum, ok := prop["enum"].([]any); ok {
			return enumValue(key, raw, enum)
		}
	}
	return raw, nil
}

// enumValue accepts an enum's value as written, or its last words in any case: "all" for
// "AWAIT_MODE_ALL".
func enumValue(key, raw string, enum []any) (any, error) {
	names := make([]string, 0, len(enum))
	for _, e := range enum {
		name, _ := e.(string)
		if name == raw {
			return raw, nil
		}
		names = append(names, name)
	}
	want := "_" + strings.ToUpper(strings.ReplaceAll(raw, "-", "_"))
	var match string
	for _, name := range names {
		if strings.HasSuffix(name, want) {
			if match != "" {
				return nil, fmt.Errorf("%s=%s could be %s or %s; write it whole", key, raw, match, name)
			}
			match = name
		}
	}
	if match == "" {
		return nil, fmt.Errorf("%s takes one of %s, not %q", key, strings.Join(names, ", "), raw)
	}
	return match, nil
}

// readFileArgument reads path ("-" for standard input), at most maxFileArgument bytes.
func readFileArgument(path string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxFileArgument+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileArgument {
		return nil, fmt.Errorf("the file is over %d MiB, more than one call can carry", maxFileArgument>>20)
	}
	return b, nil
}
