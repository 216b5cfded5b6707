package testenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
)

// The previous release is the tree a rolling upgrade starts from: the
// commit that deploy/previous-release names. Its binary is built from the
// repository's own history (a full clone: CI has one), once per commit,
// into the user's cache directory, offline from the module cache when
// its go.mod needs nothing else (the module proxy otherwise).

// ErrNoHistory is returned when the previous release's commit is not in
// the repository (a shallow clone, or a copy without .git).
var ErrNoHistory = errors.New("the previous release's commit is not in this repository's history")

// RepoRoot is the root of this checkout: the directory of go.mod above
// this source file.
func RepoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("testenv: no caller")
	}
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("testenv: no go.mod above " + file)
		}
		dir = up
	}
}

// PreviousRelease is the commit deploy/previous-release names (its first
// line that is neither empty nor a # comment).
func PreviousRelease(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "deploy", "previous-release"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			return line, nil
		}
	}
	return "", errors.New("deploy/previous-release names no commit")
}

// ReleaseBaseline is the last PostgreSQL migration of commit: the schema
// its binary expects.
func ReleaseBaseline(ctx context.Context, root, commit string) (int64, error) {
	out, err := git(ctx, root, "ls-tree", "--name-only", commit+":internal/sqlstore/migrations/postgres")
	if err != nil {
		return 0, err
	}
	var last int64
	for _, name := range strings.Fields(string(out)) {
		if v, err := goose.NumericComponent(name); err == nil && v > last {
			last = v
		}
	}
	if last == 0 {
		return 0, fmt.Errorf("commit %s has no PostgreSQL migrations", commit)
	}
	return last, nil
}

// BuildRelease returns the loyalty binary of commit, building it first
// when the cache has none. logf, if not nil, is told when it builds.
func BuildRelease(ctx context.Context, root, commit string, logf func(string, ...any)) (string, error) {
	full, err := git(ctx, root, "rev-parse", "--verify", "--quiet", commit+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w: %s (%v)", ErrNoHistory, commit, err)
	}
	commit = strings.TrimSpace(string(full))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "loyalty-releases", commit)
	bin := filepath.Join(dir, "loyalty")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src, err := os.MkdirTemp(dir, "src-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	if logf != nil {
		logf("building the loyalty binary of %s (once; kept in %s)", commit[:12], dir)
	}
	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", src)
	if untar.Stdin, err = archive.StdoutPipe(); err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	archive.Stderr, untar.Stderr = &stderr, &stderr
	if err := untar.Start(); err != nil {
		return "", err
	}
	if err := archive.Run(); err != nil {
		untar.Wait()
		return "", fmt.Errorf("git archive %s: %v\n%s", commit, err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		return "", fmt.Errorf("untar %s: %v\n%s", commit, err, stderr.String())
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			return "", fmt.Errorf("no go command to build the previous release: %v", err)
		}
	}
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	bctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	// Offline first (the module cache has what both trees need when
	// their go.mod agree), then through the module proxy.
	var out []byte
	for _, proxy := range []string{"off", ""} {
		build := exec.CommandContext(bctx, goBin, "build", "-o", tmp, "./cmd/loyalty")
		build.Dir = src
		build.Env = os.Environ()
		if proxy != "" {
			build.Env = append(build.Env, "GOPROXY="+proxy)
		}
		if out, err = build.CombinedOutput(); err == nil {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("go build of %s: %v\n%s", commit, err, out)
	}
	return bin, os.Rename(tmp, bin)
}

func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
