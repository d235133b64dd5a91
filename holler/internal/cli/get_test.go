package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPick(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"tree":{"id":"tre_1","root_id":"nod_1","size":3},"tunes":[{"title":"A"},{"title":"B"}],"none":[],"empty":{}}`), &v); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"tree.id":       `"tre_1"`,
		"tree.size":     `3`,
		"tunes.1.title": `"B"`,
		"tunes.0":       `{"title":"A"}`,
		"tree":          `{"id":"tre_1","root_id":"nod_1","size":3}`,
	} {
		got, err := pick(v, path)
		if err != nil {
			t.Errorf("pick(%s): %v", path, err)
			continue
		}
		if s := string(mustJSON(got)); s != want {
			t.Errorf("pick(%s) = %s, want %s", path, s, want)
		}
	}
	for path, want := range map[string]string{
		"tree.ID":       `tree has no "ID"; it has id, root_id, size`,
		"trees":         `the result has no "trees"; it has empty, none, tree, tunes`,
		"tunes.2.title": `tunes is a list of 2; name an index from 0 to 1, not "2"`,
		"tunes.x":       `tunes is a list of 2; name an index from 0 to 1, not "x"`,
		"none.0":        `none is an empty list, with no "0"`,
		"empty.a":       `empty is an empty object, with no "a"`,
		"tree.id.more":  `tree.id is "tre_1", which has no "more"`,
		"tree..id":      `tree has no ""`,
	} {
		_, err := pick(v, path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--get "+path+": ") {
			t.Errorf("pick(%s) = %v, want an error saying %q", path, err, want)
		}
	}
	if _, err := pick(nil, "a"); err == nil || !strings.Contains(err.Error(), "no structured result") {
		t.Errorf("pick(nil) = %v", err)
	}
}
