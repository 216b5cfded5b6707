package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// BuildLoyalty builds the loyalty binary into a temporary directory of tb
// and returns its path, for tests that drive the real binary.
func BuildLoyalty(tb testing.TB) string {
	tb.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			tb.Fatalf("no go command to build the binary: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(tb.TempDir(), "loyalty")
	if out, err := exec.CommandContext(ctx, goBin, "build", "-o", bin, "github.com/loyalty/loyalty/cmd/loyalty").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// RunJSON runs the binary with args and returns the one JSON object it
// printed; a failure or any other output fails tb.
func RunJSON(tb testing.TB, bin string, args ...string) map[string]any {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("loyalty %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var obj map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil {
		tb.Fatalf("loyalty %s printed %q, not one JSON object: %v", strings.Join(args, " "), stdout.String(), err)
	}
	return obj
}
