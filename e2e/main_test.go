package e2e

import (
	"flag"
	"os"
	"runtime"
	"testing"

	"github.com/loyalty/loyalty/internal/testenv"
)

// TestMain runs up to four tests per core at once, unless -parallel says
// otherwise: each test spends most of its time waiting for PostgreSQL,
// for HTTP round trips and for the commands it runs, so go test's default
// (one per core) left the machine mostly idle and the package near go
// test's 10-minute limit on a slow machine.
func TestMain(m *testing.M) {
	flag.Parse()
	testenv.DefaultParallel(4 * runtime.GOMAXPROCS(0))
	os.Exit(m.Run())
}
