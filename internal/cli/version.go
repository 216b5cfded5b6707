package cli

import (
	"context"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	ucli "github.com/urfave/cli/v3"
)

func versionCmd(stdout io.Writer) *ucli.Command {
	return &ucli.Command{
		Name:   "version",
		Usage:  "print the version and build information (also loyalty --version)",
		Flags:  []ucli.Flag{jsonFlag()},
		Action: func(_ context.Context, cmd *ucli.Command) error { return printVersion(cmd, stdout) },
	}
}

// The version and commit a release build stamps into the binary, which
// win over what Go recorded (machines that set GOFLAGS=-buildvcs=false, or
// build outside the checkout, record no commit):
//
//	go build -ldflags "-X github.com/loyalty/loyalty/internal/cli.version=$(git describe --tags --always --dirty) \
//	  -X github.com/loyalty/loyalty/internal/cli.commit=$(git rev-parse HEAD)" -o loyalty ./cmd/loyalty
var (
	version string
	commit  string
)

// buildInfo is what the binary knows of its own build.
type buildInfo struct {
	Version  string // the stamped version, else the module version Go recorded: a tag, a pseudo-version, or (devel)
	Commit   string // the stamped commit, else the VCS revision when the build recorded it
	Time     string // the recorded revision's time
	Modified bool   // the checkout of the recorded revision had local changes
	Go       string
	Platform string
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		b.Version = version
	}
	if commit != "" && commit != b.Commit {
		// The recorded revision's time and state are not the stamped one's.
		b.Commit, b.Time, b.Modified = commit, "", false
	}
	return b
}

// printVersion prints the build information: one line, or one JSON object.
func printVersion(cmd *ucli.Command, stdout io.Writer) error {
	b := readBuildInfo()
	line := []string{"loyalty", b.Version}
	if b.Commit != "" {
		c := "commit " + b.Commit
		if b.Time != "" {
			c += " (" + b.Time + ")"
		}
		if b.Modified {
			c += " with local changes"
		}
		line = append(line, c)
	}
	line = append(line, b.Go, b.Platform)
	return emit(cmd, stdout, map[string]any{"version": b.Version, "commit": b.Commit, "commit_time": b.Time,
		"modified": b.Modified, "go": b.Go, "platform": b.Platform}, strings.Join(line, " "))
}
