package worker

import (
	"errors"

	"github.com/hootenanny/hoot/hooteproto/curvekey"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
)

// dialOptions returns the transport options for the connection to the i-th gateway: CURVE when
// the config names key files.
func dialOptions(cfg Config, i int) (*zmqtransport.Options, error) {
	opts := &zmqtransport.Options{Logger: cfg.Logger}
	gateway := cfg.Gateways[i]
	serverFile := ""
	switch len(cfg.CurveServerFiles) {
	case 0:
	case 1:
		serverFile = cfg.CurveServerFiles[0]
	default:
		serverFile = cfg.CurveServerFiles[i]
	}
	switch {
	case cfg.CurveSecretFile == "" && serverFile == "":
		if !zmqtransport.Loopback(gateway) {
			cfg.Logger.Warn("connecting to the gateway without CURVE keys: the connection is neither encrypted nor authenticated; see hootenanny keygen",
				"gateway", gateway)
		}
		return opts, nil
	case cfg.CurveSecretFile == "":
		return nil, errors.New("--curve-server needs --curve-secret, this worker's secret key file (make one with \"hootenanny keygen --out keys/NAME\")")
	case serverFile == "":
		return nil, errors.New("--curve-secret needs --curve-server, the gateway's public key file (the .key file that holler keygen wrote)")
	}
	keys, err := curvekey.ReadSecret(cfg.CurveSecretFile)
	if err != nil {
		return nil, err
	}
	server, err := curvekey.ReadPublic(serverFile)
	if err != nil {
		return nil, err
	}
	opts.Curve = &zmqtransport.Curve{SecretKey: keys.Secret, ServerKey: server}
	cfg.Logger.Info("connecting to the gateway with CURVE", "gateway", gateway, "public_key", keys.Public, "gateway_key", server)
	return opts, nil
}
