package gateway

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// superviseWorker runs the worker command, pointed at endpoint through HOOTENANNY_GATEWAY (and,
// when dataDir is set, at that data directory through HOOTENANNY_DATA, and when casURL is set,
// at that content store through HOOTENANNY_CAS), and
// starts it again after a pause that grows while it keeps failing. When ctx ends the worker gets
// SIGTERM, and SIGKILL if it has not stopped within stopGrace.
func superviseWorker(ctx context.Context, command []string, endpoint, dataDir, casURL string, log *slog.Logger) {
	const stopGrace = 10 * time.Second
	backoff := time.Second
	for ctx.Err() == nil {
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Env = append(os.Environ(), "HOOTENANNY_GATEWAY="+endpoint)
		if dataDir != "" {
			cmd.Env = append(cmd.Env, "HOOTENANNY_DATA="+dataDir)
		}
		if casURL != "" {
			cmd.Env = append(cmd.Env, "HOOTENANNY_CAS="+casURL)
		}
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr // stdout may be the MCP stdio stream
		// Its own process group keeps a terminal's Ctrl-C for the gateway, which stops the worker in
		// order; Pdeathsig stops it should the gateway die without that chance.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		started := time.Now()
		if err := cmd.Start(); err != nil {
			log.Error("cannot start the worker command", "command", command, "err", err)
		} else {
			log.Info("worker command started", "command", command, "pid", cmd.Process.Pid)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				log.Warn("worker command exited", "err", err)
			case <-ctx.Done():
				_ = cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-done:
				case <-time.After(stopGrace):
					_ = cmd.Process.Kill()
					<-done
				}
				return
			}
		}
		if time.Since(started) > time.Minute {
			backoff = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}
