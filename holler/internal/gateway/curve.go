package gateway

import (
	"errors"
	"fmt"

	"github.com/hootenanny/hoot/hooteproto/curvekey"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
)

// listenOptions returns the worker endpoint's transport options: CURVE when the config names
// key files, and a refusal to serve workers on other machines without it.
func listenOptions(cfg Config) (*zmqtransport.Options, error) {
	opts := &zmqtransport.Options{Logger: cfg.Logger}
	switch {
	case cfg.CurveSecretFile == "" && cfg.CurveAllow == "":
		if !zmqtransport.Loopback(cfg.WorkerEndpoint) && !cfg.InsecureWorkers {
			return nil, fmt.Errorf("the worker endpoint %s is reachable from other machines, and workers there would "+
				"connect without encryption or authentication. Make keys with \"holler keygen --out keys/gateway\" here and "+
				"\"hootenanny keygen --out keys/NAME\" for each worker; put the workers' .key files in one directory; then start "+
				"holler with --curve-secret keys/gateway.key_secret --curve-allow THAT_DIRECTORY and each worker with "+
				"--curve-secret keys/NAME.key_secret --curve-server gateway.key. On a network you trust, --insecure-workers "+
				"serves the endpoint without keys", cfg.WorkerEndpoint)
		}
		return opts, nil
	case cfg.CurveSecretFile == "":
		return nil, errors.New("--curve-allow needs --curve-secret, the gateway's secret key file (make one with \"holler keygen --out keys/gateway\")")
	case cfg.CurveAllow == "":
		return nil, errors.New("--curve-secret needs --curve-allow, the public key files (.key) of the workers to let in: one file or a directory of them")
	}
	keys, err := curvekey.ReadSecret(cfg.CurveSecretFile)
	if err != nil {
		return nil, err
	}
	allow, err := curvekey.ReadAllowed(cfg.CurveAllow)
	if err != nil {
		return nil, err
	}
	opts.Curve = &zmqtransport.Curve{SecretKey: keys.Secret, Allow: allow}
	cfg.Logger.Info("worker endpoint uses CURVE", "public_key", keys.Public, "allowed_workers", len(allow))
	return opts, nil
}
