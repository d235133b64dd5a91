package access

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// A token file holds one token a line, as three fields separated by spaces or tabs:
//
//	# comments and blank lines are ignored
//	alice    standard  sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//	deploy   admin     sha256:...
//
// The name (letters, digits and ._@-, at most 64) says who holds the token, in logs and in
// answers; the tier is the highest tool tier it allows (basic, standard, admin or operator); the hash is
// the SHA-256 of the token, in hex. The token itself is never stored: it is shown once, when
// it is made (AddToken). A plain hash is enough because a token is 32 random bytes: no
// dictionary reaches it, so a slow password hash would add only cost.
const (
	// maxTokenFileSize bounds a token file; a line takes about 100 bytes.
	maxTokenFileSize = 1 << 20
	// maxTokenNameLength bounds a token's name.
	maxTokenNameLength = 64
	// tokenPrefix starts every token AddToken makes, so that a leaked one is easy to spot.
	tokenPrefix = "hoot_"
	// hashPrefix names the hash of a token in the file.
	hashPrefix = "sha256:"
	// reloadCheckInterval is how often, at most, a token file is checked for changes.
	reloadCheckInterval = time.Second
)

// A TokenEntry is one line of a token file.
type TokenEntry struct {
	Name string
	Tier hootv1.Tier
	hash [sha256.Size]byte
}

// ParseTokens reads a token file's content. Errors name the line and what is wrong with it.
func ParseTokens(data []byte) ([]TokenEntry, error) {
	if len(data) > maxTokenFileSize {
		return nil, fmt.Errorf("the token file has %d bytes, more than the %d a token file may have", len(data), maxTokenFileSize)
	}
	var out []TokenEntry
	seen := map[string]int{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		no := n + 1
		text := strings.TrimSpace(string(line))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want three fields, NAME TIER sha256:HEX, and found %d", no, len(f))
		}
		if !validName(f[0]) {
			return nil, fmt.Errorf("line %d: name %q: a name is 1 to %d letters, digits and ._@-", no, f[0], maxTokenNameLength)
		}
		if prev, dup := seen[f[0]]; dup {
			return nil, fmt.Errorf("line %d: name %q is already used on line %d; give each token its own name", no, f[0], prev)
		}
		seen[f[0]] = no
		tier, ok := ParseTier(f[1])
		if !ok {
			return nil, fmt.Errorf("line %d: tier %q: want basic, standard, admin or operator", no, f[1])
		}
		hexHash, ok := strings.CutPrefix(f[2], hashPrefix)
		if !ok {
			return nil, fmt.Errorf("line %d: the hash must start with %s (the token itself is never stored; make tokens with holler token add)", no, hashPrefix)
		}
		b, err := hex.DecodeString(hexHash)
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("line %d: the hash must be %d hex digits after %s", no, 2*sha256.Size, hashPrefix)
		}
		e := TokenEntry{Name: f[0], Tier: tier}
		copy(e.hash[:], b)
		out = append(out, e)
	}
	return out, nil
}

// validName reports whether s may name a token.
func validName(s string) bool {
	if s == "" || len(s) > maxTokenNameLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '@' || c == '-') {
			return false
		}
	}
	return true
}

// compareHash compares two hashes in time that does not depend on where they differ, so that
// the answer's timing tells nothing about a stored hash.
var compareHash = subtle.ConstantTimeCompare

// Tokens are the bearer tokens of a token file. The file is read again when it changes
// (checked at most once a second, on use); a file that becomes unreadable, unsafe or
// malformed lets no token in until it is fixed, and the error is logged.
type Tokens struct {
	path string
	log  *slog.Logger

	mu      sync.Mutex
	entries []TokenEntry
	stamp   fileStamp
	checked time.Time
	broken  error
}

// fileStamp tells whether a file changed.
type fileStamp struct {
	mod  time.Time
	size int64
	mode fs.FileMode
}

// LoadTokens reads the token file at path. A file that users other than its owner can read or
// write is refused, with the chmod that fixes it.
func LoadTokens(path string, log *slog.Logger) (*Tokens, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Tokens{path: path, log: log}
	entries, stamp, err := readTokenFile(path)
	if err != nil {
		return nil, err
	}
	t.entries, t.stamp, t.checked = entries, stamp, time.Now()
	return t, nil
}

// Len returns how many tokens the file holds now.
func (t *Tokens) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

// readTokenFile reads and checks a token file.
func readTokenFile(path string) ([]TokenEntry, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("token file: %w (make one with holler token add NAME --tier standard --file %s)", err, path)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("token file: %w", err)
	}
	if err := checkTokenFileMode(path, fi); err != nil {
		return nil, fileStamp{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFileSize+1))
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("token file %s: %w", path, err)
	}
	entries, err := ParseTokens(data)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("token file %s: %w", path, err)
	}
	return entries, fileStamp{mod: fi.ModTime(), size: fi.Size(), mode: fi.Mode()}, nil
}

// checkTokenFileMode refuses a token file that is not a regular file, or that users other
// than its owner may read or write: hashes are not secrets one may publish, and a file others
// can write lets them add tokens.
func checkTokenFileMode(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("token file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("token file %s has mode %04o: users other than its owner can read or change it. Run chmod 600 %s", path, perm, path)
	}
	return nil
}

// Verify returns the entry of token, or ok false. Every entry is compared, in constant time,
// whether or not an earlier one matched.
func (t *Tokens) Verify(token string) (e TokenEntry, ok bool) {
	t.reloadIfChanged()
	h := sha256.Sum256([]byte(token))
	t.mu.Lock()
	entries, broken := t.entries, t.broken
	t.mu.Unlock()
	if broken != nil {
		return TokenEntry{}, false
	}
	for _, c := range entries {
		if compareHash(h[:], c.hash[:]) == 1 && !ok {
			e, ok = c, true
		}
	}
	return e, ok
}

// reloadIfChanged reads the file again when its modification time, size or mode changed
// since it was read, checking at most once per reloadCheckInterval.
func (t *Tokens) reloadIfChanged() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if now.Sub(t.checked) < reloadCheckInterval {
		return
	}
	t.checked = now
	fi, err := os.Stat(t.path)
	if err == nil && t.broken == nil && (fileStamp{mod: fi.ModTime(), size: fi.Size(), mode: fi.Mode()}) == t.stamp {
		return
	}
	entries, stamp, err := readTokenFile(t.path)
	if err != nil {
		if t.broken == nil || t.broken.Error() != err.Error() {
			t.log.Error("access: the token file cannot be used; no file token is accepted until it is fixed", "err", err)
		}
		t.broken, t.entries = err, nil
		return
	}
	if t.broken != nil || len(entries) != len(t.entries) || stamp != t.stamp {
		t.log.Info("access: token file read again", "path", t.path, "tokens", len(entries))
	}
	t.entries, t.stamp, t.broken = entries, stamp, nil
}

// NewToken returns a new random token: 32 bytes from crypto/rand, in base64url, after a prefix
// that makes a leaked token easy to recognise.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails; it aborts the program instead
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// HashLine returns the token file line of a token.
func HashLine(name string, tier hootv1.Tier, token string) string {
	h := sha256.Sum256([]byte(token))
	return name + " " + TierWord(tier) + " " + hashPrefix + hex.EncodeToString(h[:])
}

// AddToken makes a new token named name of tier, appends its hash to the token file at path
// (made with mode 0600 when it does not exist) and returns the token, which is stored nowhere
// else: the caller shows it once. An existing file must be safe (mode 0600 or stricter) and
// well formed, and must not already hold name.
func AddToken(path, name string, tier hootv1.Tier) (string, error) {
	if !validName(name) {
		return "", fmt.Errorf("name %q: a token's name is 1 to %d letters, digits and ._@-, such as alice or ci-deploy", name, maxTokenNameLength)
	}
	if tier < hootv1.Tier_TIER_BASIC || tier > hootv1.Tier_TIER_OPERATOR {
		return "", errors.New("the tier must be basic, standard, admin or operator")
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	if err := checkTokenFileMode(path, fi); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFileSize+1))
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	entries, err := ParseTokens(data)
	if err != nil {
		return "", fmt.Errorf("token file %s: %w; fix it before adding a token", path, err)
	}
	for _, e := range entries {
		if e.Name == name {
			return "", fmt.Errorf("token file %s already has a token named %q: choose another name, or delete its line to replace it", path, name)
		}
	}
	token := NewToken()
	var line strings.Builder
	if len(data) == 0 {
		line.WriteString("# holler tokens: NAME TIER sha256:HEX (see holler token add)\n")
	} else if data[len(data)-1] != '\n' {
		line.WriteByte('\n')
	}
	line.WriteString(HashLine(name, tier, token) + "\n")
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	if _, err := f.WriteString(line.String()); err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	return token, nil
}
