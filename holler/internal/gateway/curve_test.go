package gateway

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hooteproto/curvekey"
)

func TestListenOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string) (public, secret string) {
		p, err := curvekey.Generate()
		if err != nil {
			t.Fatal(err)
		}
		public, secret, err = curvekey.WriteFiles(filepath.Join(dir, name), p, "test")
		if err != nil {
			t.Fatal(err)
		}
		return public, secret
	}
	_, gatewaySecret := write("gateway")
	workerPublic, _ := write("workers/w1")
	loose := filepath.Join(dir, "loose.key_secret")
	data, _ := os.ReadFile(gatewaySecret)
	os.WriteFile(loose, data, 0o644)

	for _, tc := range []struct {
		name string
		cfg  Config
		want string // in the error; "" for none
		keys bool   // CURVE on
	}{
		{"loopback without keys", Config{WorkerEndpoint: "tcp://127.0.0.1:5580"}, "", false},
		{"reachable without keys", Config{WorkerEndpoint: "tcp://0.0.0.0:5580"}, "holler keygen", false},
		{"reachable, insecure on purpose", Config{WorkerEndpoint: "tcp://*:5580", InsecureWorkers: true}, "", false},
		{"reachable with keys", Config{WorkerEndpoint: "tcp://*:5580", CurveSecretFile: gatewaySecret, CurveAllow: filepath.Dir(workerPublic)}, "", true},
		{"allowed keys from one file", Config{WorkerEndpoint: "tcp://127.0.0.1:5580", CurveSecretFile: gatewaySecret, CurveAllow: workerPublic}, "", true},
		{"secret without allowed", Config{CurveSecretFile: gatewaySecret}, "--curve-allow", false},
		{"allowed without secret", Config{CurveAllow: workerPublic}, "--curve-secret", false},
		{"secret open to others", Config{CurveSecretFile: loose, CurveAllow: workerPublic}, "chmod 600", false},
		{"public file as secret", Config{CurveSecretFile: workerPublic, CurveAllow: workerPublic}, "no secret-key", false},
	} {
		tc.cfg.Logger = slog.New(slog.DiscardHandler)
		opts, err := listenOptions(tc.cfg)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want one that mentions %q", tc.name, err, tc.want)
		case err == nil && (opts.Curve != nil) != tc.keys:
			t.Errorf("%s: CURVE on = %v, want %v", tc.name, opts.Curve != nil, tc.keys)
		}
	}
}
