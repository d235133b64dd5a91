package artifacts

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
)

// crashDBEnv names the database that TestCrashKeepsCommittedArtifacts's child process writes.
const crashDBEnv = "HOOT_TEST_CRASH_DB"

// TestCrashKeepsCommittedArtifacts runs a process that creates artifacts from eight callers at
// once (so that commits are grouped) and prints the id of each as soon as Create returns it,
// kills that process with SIGKILL in the middle of its writes, opens the database again and
// finds every artifact whose creation was acknowledged.
func TestCrashKeepsCommittedArtifacts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), database.FileName)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashDBEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	var acked []string
	lines := bufio.NewScanner(out)
	for lines.Scan() && len(acked) < 400 {
		if id, ok := strings.CutPrefix(lines.Text(), "created "); ok {
			acked = append(acked, id)
		}
	}
	if len(acked) < 400 {
		t.Fatalf("the child acknowledged %d artifacts before it stopped, want 400 (%v)", len(acked), lines.Err())
	}
	// Killed while its callers are still writing.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// What the child printed after the scanner's last line was acknowledged too.
	for lines.Scan() {
		if id, ok := strings.CutPrefix(lines.Text(), "created "); ok {
			acked = append(acked, id)
		}
	}
	_ = cmd.Wait()
	killed = true

	db, err := database.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("opening the database after the crash: %v", err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(t.Context(), `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check after the crash = %q, %v", check, err)
	}
	got, err := NewStore(db).GetMany(t.Context(), acked)
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, id := range acked {
		if _, ok := got[id]; !ok {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of the %d artifacts acknowledged before the crash are gone", missing, len(acked))
	}
	t.Logf("%d acknowledged artifacts, all there after the crash", len(acked))
}

// TestMain runs crashChild instead of the tests in the child process of
// TestCrashKeepsCommittedArtifacts.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashDBEnv); path != "" {
		crashChild(path)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashChild creates artifacts in the database at path from eight callers until the process
// is killed.
func crashChild(path string) {
	ctx := context.Background()
	db, err := database.Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(1)
	}
	s := NewStore(db)
	root, err := s.Create(ctx, New{Hash: hash, Size: 11, MimeType: "text/plain"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			// Bounded: the parent kills the child long before.
			for i := range 100_000 {
				a, err := s.Create(ctx, New{Hash: hash, Size: 11, MimeType: "text/plain", Tags: []string{"crash", fmt.Sprint("g", g)},
					ParentIDs: []string{root.ID}, VariationSet: fmt.Sprint("set", i%3)})
				if err != nil {
					fmt.Fprintln(os.Stderr, "crash child:", err)
					os.Exit(1)
				}
				// Written straight to the pipe (os.Stdout is not buffered), so that a line
				// the parent reads was acknowledged.
				mu.Lock()
				fmt.Fprintf(os.Stdout, "created %s\n", a.ID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
