package curvekey

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestZ85(t *testing.T) {
	t.Parallel()
	// The example of ZeroMQ RFC 32.
	if got := encode([]byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B}); got != "HelloWorld" {
		t.Fatalf("encode = %q, want HelloWorld", got)
	}
	var key [32]byte
	for i := range key {
		key[i] = byte(i * 7)
	}
	back, err := Decode(Encode(key))
	if err != nil || back != key {
		t.Fatalf("round trip: %x, %v", back, err)
	}
	for _, bad := range []string{"", "short", strings.Repeat("a", 39), strings.Repeat("~", 40), strings.Repeat("#", 40)} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) succeeded", bad)
		}
	}
}

func TestPublicOf(t *testing.T) {
	t.Parallel()
	// A key pair from libzmq's own CURVE tests.
	const secret, public = "JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6", "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
	got, err := PublicOf(secret)
	if err != nil || got != public {
		t.Fatalf("PublicOf = %q, %v; want %q", got, err, public)
	}
	p, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if err := (Pair{Public: public, Secret: p.Secret}).Check(); err == nil {
		t.Fatal("a mismatched pair passed Check")
	}
}

func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "keys", "w1")
	publicPath, secretPath, err := WriteFiles(base, p, "test")
	if err != nil {
		t.Fatal(err)
	}
	if publicPath != base+".key" || secretPath != base+".key_secret" {
		t.Fatalf("paths %s %s", publicPath, secretPath)
	}
	if info, _ := os.Stat(secretPath); info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file mode %v, want 0600", info.Mode().Perm())
	}
	if info, _ := os.Stat(filepath.Dir(base)); info.Mode().Perm() != 0o700 {
		t.Fatalf("key directory mode %v, want 0700", info.Mode().Perm())
	}
	if got, err := ReadPublic(publicPath); err != nil || got != p.Public {
		t.Fatalf("ReadPublic = %q, %v", got, err)
	}
	if got, err := ReadSecret(secretPath); err != nil || got != p {
		t.Fatalf("ReadSecret = %v, %v", got, err)
	}
	pub, _ := os.ReadFile(publicPath)
	if bytes.Contains(pub, []byte(p.Secret)) || bytes.Contains(pub, []byte("secret-key")) {
		t.Fatal("the public file holds the secret key")
	}

	t.Run("never overwrites", func(t *testing.T) {
		q, _ := Generate()
		if _, _, err := WriteFiles(base, q, "test"); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("err = %v", err)
		}
		if got, _ := ReadPublic(publicPath); got != p.Public {
			t.Fatal("the public key changed")
		}
	})
	t.Run("a secret file open to others is refused", func(t *testing.T) {
		loose := filepath.Join(dir, "loose.key_secret")
		data, _ := os.ReadFile(secretPath)
		if err := os.WriteFile(loose, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadSecret(loose)
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+loose) {
			t.Fatalf("err = %v, want one that says how to fix it", err)
		}
	})
	t.Run("a public file given as secret", func(t *testing.T) {
		pubAsSecret := filepath.Join(dir, "pub-as-secret")
		data, _ := os.ReadFile(publicPath)
		os.WriteFile(pubAsSecret, data, 0o600)
		if _, err := ReadSecret(pubAsSecret); err == nil || !strings.Contains(err.Error(), "no secret-key") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("allowed keys from a directory or a file", func(t *testing.T) {
		q, _ := Generate()
		if _, _, err := WriteFiles(filepath.Join(dir, "keys", "w2"), q, "test"); err != nil {
			t.Fatal(err)
		}
		keys, err := ReadAllowed(filepath.Dir(base))
		if err != nil || len(keys) != 2 || !(keys[0] == p.Public || keys[1] == p.Public) || !(keys[0] == q.Public || keys[1] == q.Public) {
			t.Fatalf("ReadAllowed(dir) = %v, %v", keys, err)
		}
		keys, err = ReadAllowed(publicPath)
		if err != nil || len(keys) != 1 || keys[0] != p.Public {
			t.Fatalf("ReadAllowed(file) = %v, %v", keys, err)
		}
		empty := t.TempDir()
		if _, err := ReadAllowed(empty); err == nil || !strings.Contains(err.Error(), "no public key files") {
			t.Fatalf("empty dir: %v", err)
		}
	})
}

func TestReadMalformed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"no key":        "metadata\ncurve\n",
		"bad key":       "curve\n    public-key = \"not z85 at all\"\n",
		"bad line":      "curve\n    public-key\n",
		"duplicate":     "curve\n    public-key = \"" + strings.Repeat("0", 40) + "\"\n    public-key = \"" + strings.Repeat("0", 40) + "\"\n",
		"too big":       strings.Repeat("#\n", maxFileSize),
		"wrong section": "metadata\n    public-key = \"" + strings.Repeat("0", 40) + "\"\n",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		os.WriteFile(path, []byte(content), 0o600)
		if k, err := ReadPublic(path); err == nil {
			t.Errorf("%s: ReadPublic = %q, want an error", name, k)
		}
	}
	// Quotes are optional, comments and other sections are skipped.
	path := filepath.Join(dir, "plain")
	key := strings.Repeat("0", 40)
	os.WriteFile(path, []byte("# c\nmetadata\n    name = \"x\"\ncurve\n    public-key = "+key+"\n"), 0o600)
	if k, err := ReadPublic(path); err != nil || k != key {
		t.Fatalf("ReadPublic = %q, %v", k, err)
	}
}

func TestKeygen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out bytes.Buffer
	err := Keygen("hootenanny", []string{"--out", filepath.Join(dir, "w")}, &out, func(pub, sec string) string { return "next: " + sec })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "next: "+filepath.Join(dir, "w.key_secret")) {
		t.Fatalf("output %q", out.String())
	}
	if _, err := ReadSecret(filepath.Join(dir, "w.key_secret")); err != nil {
		t.Fatal(err)
	}
	if err := Keygen("hootenanny", nil, &out, nil); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("no --out: %v", err)
	}
	if err := Keygen("hootenanny", []string{"-h"}, &out, nil); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
}
