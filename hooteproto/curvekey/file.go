package curvekey

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// maxFileSize bounds what a key file may hold; a real one is about 300 bytes.
const maxFileSize = 16 << 10

// WriteFiles writes p to base+".key" (mode 0644) and base+".key_secret" (mode 0600), creating
// base's directory (mode 0700) if needed. It never overwrites: if either file exists, it writes
// nothing and says so. tool names the program that made the keys, for the files' comments.
func WriteFiles(base string, p Pair, tool string) (publicPath, secretPath string, err error) {
	if err := p.Check(); err != nil {
		return "", "", err
	}
	if base == "" || strings.HasSuffix(base, string(filepath.Separator)) {
		return "", "", fmt.Errorf("curvekey: %q names a directory; give DIR/NAME, such as keys/gateway", base)
	}
	publicPath, secretPath = base+PublicSuffix, base+SecretSuffix
	for _, path := range []string{publicPath, secretPath} {
		if _, err := os.Lstat(path); err == nil {
			return "", "", fmt.Errorf("curvekey: %s already exists; remove it or choose another name, since a key is never overwritten", path)
		}
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return "", "", fmt.Errorf("curvekey: %w", err)
	}
	stamp := time.Now().UTC().Format(time.RFC3339)
	secret := fmt.Sprintf(`#   hoot CURVE secret key, made by %s on %s.
#   Keep this file private: only its owner may read it (mode 0600).
#   Give the other side %s instead.
metadata
curve
    public-key = "%s"
    secret-key = "%s"
`, tool, stamp, filepath.Base(publicPath), p.Public, p.Secret)
	public := fmt.Sprintf(`#   hoot CURVE public key, made by %s on %s.
#   Give this file to the other side of the connection.
metadata
curve
    public-key = "%s"
`, tool, stamp, p.Public)
	if err := writeNew(secretPath, secret, 0o600); err != nil {
		return "", "", err
	}
	if err := writeNew(publicPath, public, 0o644); err != nil {
		os.Remove(secretPath)
		return "", "", err
	}
	return publicPath, secretPath, nil
}

func writeNew(path, content string, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("curvekey: %w", err)
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("curvekey: write %s: %w", path, err)
	}
	return nil
}

// ReadPublic reads the public key from a key file (BASE.key; a BASE.key_secret holds it too).
func ReadPublic(path string) (string, error) {
	keys, err := readFile(path)
	if err != nil {
		return "", err
	}
	public, ok := keys["public-key"]
	if !ok {
		return "", fmt.Errorf("curvekey: %s has no public-key under curve; is it a key file made by keygen?", path)
	}
	if _, err := Decode(public); err != nil {
		return "", fmt.Errorf("%s: public-key: %w", path, err)
	}
	return public, nil
}

// ReadSecret reads a key pair from a secret key file (BASE.key_secret). It refuses a file that
// anyone but its owner may read or write, as ssh does with private keys.
func ReadSecret(path string) (Pair, error) {
	keys, err := readFile(path)
	if err != nil {
		return Pair{}, err
	}
	p := Pair{Public: keys["public-key"], Secret: keys["secret-key"]}
	if p.Secret == "" {
		return Pair{}, fmt.Errorf("curvekey: %s has no secret-key; give the %s file that keygen wrote, not the %s file", path, SecretSuffix, PublicSuffix)
	}
	info, err := os.Stat(path)
	if err != nil {
		return Pair{}, fmt.Errorf("curvekey: %w", err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return Pair{}, fmt.Errorf("curvekey: the secret key file %s is open to other users (mode %#o); make it private with: chmod 600 %s", path, perm, path)
	}
	if p.Public == "" {
		if p.Public, err = PublicOf(p.Secret); err != nil {
			return Pair{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := p.Check(); err != nil {
		return Pair{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ReadAllowed reads the public keys that path names: one key file, or every *.key file of a
// directory (files ending in .key_secret are skipped). It fails when there is none, since a
// gateway that allows no key can serve no worker.
func ReadAllowed(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("curvekey: %w", err)
	}
	var files []string
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, fmt.Errorf("curvekey: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), PublicSuffix) {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("curvekey: %s holds no public key files (*%s); copy the workers' %s files there", path, PublicSuffix, PublicSuffix)
		}
	} else {
		files = []string{path}
	}
	var keys []string
	for _, f := range files {
		k, err := ReadPublic(f)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

// readFile parses a key file: ZeroMQ's ZPL text, of which it reads the name = "value" lines
// of the curve section. Lines starting with # are comments; other sections are skipped.
func readFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("curvekey: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("curvekey: read %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("curvekey: %s is over %d bytes: not a key file", path, maxFileSize)
	}
	keys := map[string]string{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimLeft(text, " \t")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if trimmed == text { // not indented: a section name
			section = trimmed
			continue
		}
		if section != "curve" {
			continue
		}
		name, value, ok := strings.Cut(trimmed, "=")
		if !ok {
			return nil, fmt.Errorf("curvekey: %s:%d: want name = \"value\", got %q", path, line, trimmed)
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		if _, dup := keys[name]; dup {
			return nil, fmt.Errorf("curvekey: %s:%d: %s given twice", path, line, name)
		}
		keys[name] = value
	}
	return keys, nil
}
