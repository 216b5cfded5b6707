package testenv

import (
	"flag"
	"strconv"
)

// DefaultParallel sets go test's -parallel to n unless the command line
// gave it. Call it from TestMain after flag.Parse. go test runs at most
// GOMAXPROCS parallel tests by default, which suits tests that keep a
// core busy; a package whose tests mostly wait (on a database server, on
// HTTP round trips, on a browser) takes several times longer than it must
// on a two-core machine at that setting.
func DefaultParallel(n int) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && n > 0 {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
