// Package readme runs the README and the pages of docs/ it links, as a
// newcomer would (TestReadme). It is a package of its own: its one long
// walk-through does not wait behind the end-to-end package's parallel
// tests, and the race pass, which runs the same service's code under
// those tests, leaves it out.
package readme

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/cli"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestReadme runs README.md, then every page of docs/ it links (in the
// order of their first links), as a newcomer would, in a fresh shell after
// a fresh clone: in a new directory linked to this checkout (so ./data
// starts empty and ./loyalty is built there), with `loyalty serve` started
// by the test on a free loopback port, it runs every ```sh block in order
// in one bash session (a page's blocks see the variables the README's
// set), with 127.0.0.1:8080 replaced by that server's address.
//
// A block fails the test when a command exits non-zero (the session runs
// with set -euo pipefail, curl with --fail-with-body so an HTTP error fails,
// jq with -e so a missing field fails) or when it writes anything to
// stderr. A ```sh block whose first line starts with "# not run" is
// skipped (a server that runs until stopped, commands that need a browser
// or another database), and so is any block with another fence (```text).
// A page of docs/ that the README does not link fails the test, as its
// blocks would never run; so does a file the blocks leave in the checkout
// (anything but ./data and ./loyalty).
//
// The test needs bash, curl, jq, openssl and sqlite3. Without them it is
// skipped, unless CI is set: then it fails (.ci/run installs them).
func TestReadme(t *testing.T) {
	t.Parallel() // its server and files are its own; the longest test, so it overlaps the rest
	for _, tool := range []string{"bash", "curl", "jq", "openssl", "sqlite3"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is needed to run the README's commands (CI is set, so this is a failure): %v", tool, err)
			}
			t.Skipf("%s not found: the README test needs it", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []readmeBlock
	for _, page := range append([]string{"README.md"}, linkedDocs(t, root)...) {
		blocks = append(blocks, readmeBlocks(t, root, page)...)
	}
	work := linkCheckout(t, root)
	addr := serveForReadme(t, filepath.Join(work, "data"))

	var script strings.Builder
	script.WriteString("set -euo pipefail\n" +
		"curl() { command curl --fail-with-body \"$@\"; }\n" +
		"jq() { command jq -e \"$@\"; }\n")
	for i, b := range blocks {
		fmt.Fprintf(&script, "printf '\\n@@block %d\\n'; printf '\\n@@block %d\\n' >&2\n", i, i)
		script.WriteString(strings.ReplaceAll(b.text, "127.0.0.1:8080", addr))
		script.WriteString("\n")
	}
	script.WriteString("printf '\\n@@end\\n'\n")
	path := filepath.Join(t.TempDir(), "readme.sh")
	if err := os.WriteFile(path, []byte(script.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", path)
	cmd.Dir = work
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOYALTY_") { // the README speaks of the defaults
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	outs, errs := splitBlocks(stdout.String()), splitBlocks(stderr.String())
	report := func(i int, why string) {
		t.Errorf("block %d (%s line %d) %s:\n%s\n--- stdout:\n%s\n--- stderr:\n%s",
			i+1, blocks[i].file, blocks[i].line, why, blocks[i].text, outs[strconv.Itoa(i)], errs[strconv.Itoa(i)])
	}
	if runErr != nil {
		last := -1
		for i := range blocks {
			if _, ok := outs[strconv.Itoa(i)]; ok {
				last = i
			}
		}
		if last < 0 {
			t.Fatalf("the README script did not start: %v\n%s", runErr, stderr.String())
		}
		report(last, "failed: "+runErr.Error())
		return
	}
	if _, ok := outs["end"]; !ok {
		t.Fatalf("the README script stopped early:\n%s", stdout.String())
	}
	for i := range blocks {
		if e := strings.TrimSpace(errs[strconv.Itoa(i)]); e != "" {
			report(i, "wrote to stderr")
		}
	}
	if len(blocks) < 8 {
		t.Errorf("only %d runnable blocks in README.md and its pages; the quick start has more", len(blocks))
	}
	// What the blocks create, they remove: a newcomer's checkout keeps
	// only what the quick start makes (its database and binary).
	entries, err := os.ReadDir(work)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 && e.Name() != "data" && e.Name() != "loyalty" {
			t.Errorf("the README's blocks left %s in the checkout", e.Name())
		}
	}
}

// readmeBlock is a runnable ```sh block, the page it is on and the line it
// starts on.
type readmeBlock struct {
	file string
	line int
	text string
}

// docsLink is a link from the README to a page of docs/.
var docsLink = regexp.MustCompile(`\]\((docs/[^)#\s]+\.md)(#[^)]*)?\)`)

// linkedDocs returns the pages of docs/ that README.md links, in the order
// of their first links, and fails the test for a page it does not link.
func linkedDocs(t *testing.T, root string) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, m := range docsLink.FindAllStringSubmatch(string(readme), -1) {
		if !slices.Contains(pages, m[1]) {
			pages = append(pages, m[1])
		}
	}
	all, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range all {
		if page := "docs/" + filepath.Base(path); !slices.Contains(pages, page) {
			t.Errorf("README.md does not link %s: link it from the README's map, or its blocks never run", page)
		}
	}
	return pages
}

// readmeBlocks returns the runnable blocks of the page at path under root,
// in order.
func readmeBlocks(t *testing.T, root, page string) []readmeBlock {
	t.Helper()
	path := filepath.Join(root, page)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	inFence, n := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case !inFence && strings.HasPrefix(line, "```"):
			inFence = true
			if strings.TrimSpace(strings.TrimPrefix(line, "```")) == "sh" {
				cur = &readmeBlock{file: page, line: n}
			}
		case inFence && strings.HasPrefix(line, "```"):
			inFence = false
			if cur != nil && !strings.HasPrefix(cur.text, "# not run") {
				blocks = append(blocks, *cur)
			}
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil || inFence {
		t.Fatalf("reading %s: %v (unclosed fence: %t)", path, err, inFence)
	}
	return blocks
}

var blockMarker = regexp.MustCompile(`(?m)^@@(block \d+|end)$`)

// splitBlocks cuts a run's output at the block markers, by block number.
func splitBlocks(out string) map[string]string {
	parts := map[string]string{}
	idx := blockMarker.FindAllStringSubmatchIndex(out, -1)
	for k, m := range idx {
		end := len(out)
		if k+1 < len(idx) {
			end = idx[k+1][0]
		}
		name := strings.TrimPrefix(out[m[2]:m[3]], "block ")
		parts[name] = out[m[1]:end]
	}
	return parts
}

// linkCheckout makes a fresh directory that looks like a clone of root:
// every top-level entry linked, except what building and running leave
// behind (./data, ./loyalty) and .git.
func linkCheckout(t *testing.T, root string) string {
	t.Helper()
	work := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case ".git", "data", "loyalty":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

// serveForReadme runs `loyalty serve` on a free loopback port with dataDir
// until the test ends, and returns its host:port.
func serveForReadme(t *testing.T, dataDir string) string {
	t.Helper()
	logs := &testenv.LogBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"loyalty", "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, io.Discard, logs)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("server log:\n%s", strings.Join(logs.Lines(), "\n"))
		}
	})
	// A liveness wait, not a timing: a fresh data directory starts in well
	// under a second, but under the race detector, beside the package's
	// other parallel services on two cores, migrating it took over 30 s.
	const startWait = 3 * time.Minute
	for deadline := time.Now().Add(startWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range logs.Lines() {
			var m struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &m) == nil && m.Msg == "listening" {
				return m.Addr
			}
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("serve exited %d:\n%s", code, strings.Join(logs.Lines(), "\n"))
		default:
		}
	}
	t.Fatalf("serve did not start within %s:\n%s", startWait, strings.Join(logs.Lines(), "\n"))
	return ""
}
