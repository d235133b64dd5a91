// Package worker assembles a hootenanny worker process: the domain services over their storage,
// served over the HOOT/1 wire to a gateway.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/casservice"
	"github.com/hootenanny/hoot/hootenanny/internal/systemservice"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
)

// DefaultGateway is the gateway's worker endpoint that a worker connects to by default.
const DefaultGateway = "tcp://127.0.0.1:5580"

// Config says where a worker connects, where it keeps its data and how much it takes on.
// Zero fields take their defaults.
type Config struct {
	// Gateway is the gateway's worker endpoint (default DefaultGateway).
	Gateway string
	// DataDir holds the worker's storage (default: DefaultDataDir()).
	DataDir string
	// Name names the worker in the gateway's logs (default: host/pid).
	Name string
	// Capacity is how many requests the worker runs at once (default hooteproto.DefaultCapacity).
	Capacity int
	// Heartbeat and Liveness set how soon a silent gateway counts as gone.
	Heartbeat time.Duration
	Liveness  int
	// Logger receives the worker's logs (default: discard).
	Logger *slog.Logger
}

// DefaultDataDir returns the per-user state directory for hootenanny's data:
// $XDG_STATE_HOME/hootenanny, or ~/.local/state/hootenanny.
func DefaultDataDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hootenanny"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to keep data in (set --data): %w", err)
	}
	return filepath.Join(home, ".local", "state", "hootenanny"), nil
}

// Run opens the storage, connects to the gateway and serves until ctx ends.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Gateway == "" {
		cfg.Gateway = DefaultGateway
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.DataDir == "" {
		d, err := DefaultDataDir()
		if err != nil {
			return err
		}
		cfg.DataDir = d
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s/%d", host, os.Getpid())
	}
	store, err := cas.Open(filepath.Join(cfg.DataDir, "cas"), nil)
	if err != nil {
		return fmt.Errorf("open the content store: %w", err)
	}
	conn, err := zmqtransport.Dial(cfg.Gateway, &zmqtransport.Options{Logger: cfg.Logger})
	if err != nil {
		return err
	}
	defer conn.Close()
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{
		hootv1hoot.NewSystemService(systemservice.New(cfg.Name)),
		hootv1hoot.NewCasService(casservice.New(store)),
	},
		hooteproto.WithName(cfg.Name),
		hooteproto.WithCapacity(cfg.Capacity),
		hooteproto.WithHeartbeat(cfg.Heartbeat, cfg.Liveness),
		hooteproto.WithLogger(cfg.Logger),
	)
	if err != nil {
		return err
	}
	cfg.Logger.Info("hootenanny worker starting", "gateway", cfg.Gateway, "data", cfg.DataDir, "name", cfg.Name)
	if err := w.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	cfg.Logger.Info("hootenanny worker stopped")
	return nil
}
