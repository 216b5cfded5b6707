// Command loyalty runs the Loyalty service and support's admin tools.
// It exits 0 on success, 1 when the command failed and 2 on a usage error.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/loyalty/loyalty/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
