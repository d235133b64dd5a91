package access

import (
	"crypto/subtle"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

const hashA = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestParseTokens(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name    string
		in      string
		want    int
		wantErr string
	}{
		{name: "empty", in: "", want: 0},
		{name: "comments and blanks", in: "# tokens\n\n   \n# more\n", want: 0},
		{name: "one", in: "alice standard " + hashA + "\n", want: 1},
		{name: "tabs and no final newline", in: "alice\tadmin\t" + hashA, want: 1},
		{name: "crlf", in: "alice basic " + hashA + "\r\nbob admin " + strings.Replace(hashA, "9f", "00", 1) + "\r\n", want: 2},
		{name: "two fields", in: "alice standard\n", wantErr: "line 1: want three fields"},
		{name: "four fields", in: "# x\nalice standard " + hashA + " extra\n", wantErr: "line 2: want three fields"},
		{name: "bad name", in: "al/ice standard " + hashA, wantErr: "line 1: name"},
		{name: "long name", in: strings.Repeat("a", 65) + " standard " + hashA, wantErr: "name"},
		{name: "bad tier", in: "alice root " + hashA, wantErr: "tier \"root\""},
		{name: "unspecified tier", in: "alice unspecified " + hashA, wantErr: "tier"},
		{name: "mixed case tier", in: "alice StanDard " + hashA, wantErr: "tier"},
		{name: "plain token instead of hash", in: "alice standard hoot_abc", wantErr: "must start with sha256:"},
		{name: "short hash", in: "alice standard sha256:abcd", wantErr: "64 hex digits"},
		{name: "not hex", in: "alice standard sha256:" + strings.Repeat("zz", 32), wantErr: "64 hex digits"},
		{name: "duplicate name", in: "alice standard " + hashA + "\nalice admin " + hashA, wantErr: "line 2: name \"alice\" is already used on line 1"},
		{name: "too big", in: strings.Repeat("#", maxTokenFileSize+1), wantErr: "more than"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTokens([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("got %d entries, want %d", len(got), tc.want)
			}
		})
	}
}

func TestParseTokensReadsFields(t *testing.T) {
	t.Parallel()
	got, err := ParseTokens([]byte("ci-deploy@x admin " + hashA))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Name != "ci-deploy@x" || got[0].Tier != hootv1.Tier_TIER_ADMIN || got[0].hash[0] != 0x9f {
		t.Fatalf("got %+v", got[0])
	}
}

func FuzzParseTokens(f *testing.F) {
	f.Add([]byte("alice standard " + hashA + "\n"))
	f.Add([]byte("# c\n\nbob admin sha256:00\n"))
	f.Add([]byte("a b c d\n\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseTokens(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if !validName(e.Name) || e.Tier < hootv1.Tier_TIER_BASIC || e.Tier > hootv1.Tier_TIER_OPERATOR {
				t.Fatalf("accepted a bad entry %+v", e)
			}
		}
		// What parses renders to lines that parse to the same entries.
		var b strings.Builder
		for _, e := range entries {
			b.WriteString(e.Name + " " + TierWord(e.Tier) + " sha256:" + strings.Repeat("00", 32) + "\n")
		}
		again, err := ParseTokens([]byte(b.String()))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("entries do not render back: %v", err)
		}
	})
}

func writeFile(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadTokensRefusesFilesOthersCanRead(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660, 0o666} {
		p := writeFile(t, "alice standard "+hashA+"\n", mode)
		_, err := LoadTokens(p, nil)
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+p) {
			t.Errorf("mode %o: err = %v, want one saying chmod 600 %s", mode, err, p)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		p := writeFile(t, "alice standard "+hashA+"\n", mode)
		if _, err := LoadTokens(p, nil); err != nil {
			t.Errorf("mode %o: %v", mode, err)
		}
	}
	if _, err := LoadTokens(filepath.Join(t.TempDir(), "none"), nil); err == nil || !strings.Contains(err.Error(), "holler token add") {
		t.Errorf("a missing file: err = %v, want one naming holler token add", err)
	}
	if _, err := LoadTokens(t.TempDir(), nil); err == nil {
		t.Error("a directory was taken as a token file")
	}
}

func TestAddTokenThenVerify(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "tokens")
	alice, err := AddToken(p, "alice", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	root, err := AddToken(p, "root", hootv1.Tier_TIER_ADMIN)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(alice, tokenPrefix) || len(alice) != len(tokenPrefix)+43 || alice == root {
		t.Fatalf("tokens %q and %q", alice, root)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file has mode %o, want 600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(p)
	if strings.Contains(string(data), alice) || strings.Contains(string(data), strings.TrimPrefix(alice, tokenPrefix)) {
		t.Fatal("the token file holds the token itself")
	}
	toks, err := LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := toks.Verify(alice); !ok || e.Name != "alice" || e.Tier != hootv1.Tier_TIER_STANDARD {
		t.Fatalf("alice's token: %+v %v", e, ok)
	}
	if e, ok := toks.Verify(root); !ok || e.Name != "root" || e.Tier != hootv1.Tier_TIER_ADMIN {
		t.Fatalf("root's token: %+v %v", e, ok)
	}
	for _, bad := range []string{"", alice[:len(alice)-1], alice + "x", strings.ToUpper(alice), hashA} {
		if _, ok := toks.Verify(bad); ok {
			t.Errorf("token %q was accepted", bad)
		}
	}
	if _, err := AddToken(p, "alice", hootv1.Tier_TIER_BASIC); err == nil || !strings.Contains(err.Error(), "already has a token named") {
		t.Fatalf("a second alice: %v", err)
	}
	if _, err := AddToken(p, "bad name", hootv1.Tier_TIER_BASIC); err == nil {
		t.Fatal("a name with a space was taken")
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AddToken(p, "carol", hootv1.Tier_TIER_BASIC); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("adding to a readable file: %v", err)
	}
}

// TestVerifyComparesInConstantTime checks that Verify compares with crypto/subtle, and
// compares every entry even after one matched, so that timing tells nothing about the file.
func TestVerifyComparesInConstantTime(t *testing.T) {
	if reflect.ValueOf(compareHash).Pointer() != reflect.ValueOf(subtle.ConstantTimeCompare).Pointer() {
		t.Fatal("compareHash is not subtle.ConstantTimeCompare")
	}
	p := filepath.Join(t.TempDir(), "tokens")
	first, err := AddToken(p, "first", hootv1.Tier_TIER_BASIC)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b", "c", "d"} {
		if _, err := AddToken(p, n, hootv1.Tier_TIER_BASIC); err != nil {
			t.Fatal(err)
		}
	}
	toks, err := LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	compareHash = func(x, y []byte) int { calls++; return subtle.ConstantTimeCompare(x, y) }
	defer func() { compareHash = subtle.ConstantTimeCompare }()
	if _, ok := toks.Verify(first); !ok {
		t.Fatal("the first token was refused")
	}
	if calls != 4 {
		t.Fatalf("Verify compared %d entries for a token matching the first of 4, want all 4", calls)
	}
	calls = 0
	toks.Verify("hoot_nothing")
	if calls != 4 {
		t.Fatalf("Verify compared %d entries for an unknown token, want 4", calls)
	}
}

func TestTokensReloadWhenTheFileChanges(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "tokens")
	alice, err := AddToken(p, "alice", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := AddToken(p, "bob", hootv1.Tier_TIER_BASIC)
	if err != nil {
		t.Fatal(err)
	}
	expire := func() {
		toks.mu.Lock()
		toks.checked = time.Time{}
		toks.mu.Unlock()
	}
	expire()
	if _, ok := toks.Verify(bob); !ok {
		t.Fatal("a token added to the file was not taken after the change")
	}
	// A file made readable by others lets nobody in until it is fixed.
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	expire()
	if _, ok := toks.Verify(alice); ok {
		t.Fatal("a token was taken from a file others can read")
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	expire()
	if _, ok := toks.Verify(alice); !ok {
		t.Fatal("a fixed file was not read again")
	}
	// Removing a line withdraws the token.
	data, _ := os.ReadFile(p)
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "alice ") {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(kept, "\n")+"\n# edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	expire()
	if _, ok := toks.Verify(alice); ok {
		t.Fatal("a withdrawn token still works")
	}
	if toks.Len() != 1 {
		t.Fatalf("Len = %d, want 1", toks.Len())
	}
}
