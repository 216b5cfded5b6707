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

// buildInfo is what the binary knows of its own build.
type buildInfo struct {
	Version  string // the module version: a release tag, or (devel) for a build from a checkout
	Commit   string // the VCS revision, when the build recorded it
	Time     string // the revision's time
	Modified bool   // the checkout had local changes
	Go       string
	Platform string
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
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
