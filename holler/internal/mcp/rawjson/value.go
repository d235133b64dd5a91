package rawjson

import (
	"bytes"
	"encoding/json"
)

// Kind names the JSON type of the valid JSON value v: "object", "array", "string",
// "boolean", "null" or "number", and "nothing" for empty text. It reads only the first byte
// that is not whitespace.
func Kind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// Compact returns the JSON text v without insignificant whitespace, in new memory when it
// has any; text that is not valid JSON comes back unchanged.
func Compact(v []byte) []byte {
	// Most JSON arrives compact already; checking is much cheaper than compacting.
	if IsCompact(v) {
		return v
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return v
	}
	return b.Bytes()
}
