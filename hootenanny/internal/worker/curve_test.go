package worker

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hooteproto/curvekey"
)

func TestDialOptions(t *testing.T) {
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
	gatewayPublic, _ := write("gateway")
	_, workerSecret := write("w1")
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
		keys bool
	}{
		{"without keys", Config{Gateways: []string{"tcp://127.0.0.1:5580"}}, "", false},
		{"with keys", Config{Gateways: []string{"tcp://10.0.0.1:5580"}, CurveSecretFile: workerSecret, CurveServerFiles: []string{gatewayPublic}}, "", true},
		{"secret only", Config{Gateways: []string{"tcp://10.0.0.1:5580"}, CurveSecretFile: workerSecret}, "--curve-server", false},
		{"server only", Config{Gateways: []string{"tcp://10.0.0.1:5580"}, CurveServerFiles: []string{gatewayPublic}}, "--curve-secret", false},
		{"missing file", Config{Gateways: []string{"tcp://10.0.0.1:5580"}, CurveSecretFile: workerSecret, CurveServerFiles: []string{filepath.Join(dir, "nope.key")}}, "no such file", false},
		{"second gateway's key", Config{Gateways: []string{"tcp://10.0.0.1:5580", "tcp://10.0.0.2:5580"}, CurveSecretFile: workerSecret,
			CurveServerFiles: []string{filepath.Join(dir, "nope.key"), gatewayPublic}}, "", true},
	} {
		tc.cfg.Logger = slog.New(slog.DiscardHandler)
		opts, err := dialOptions(tc.cfg, len(tc.cfg.Gateways)-1)
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
