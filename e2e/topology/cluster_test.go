package topology

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
)

// cluster is the topology deploy/local-cluster.sh started: its settings
// (cluster.env) and how to reach it.
type cluster struct {
	dir    string
	env    map[string]string
	client *http.Client // trusts HAProxy's self-signed certificate
	script string
	vars   []string // the script's environment
}

// needTools skips the test when the machine lacks what the script runs,
// or fails it when CI is set (.ci/run installs them).
func needTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("the topology test starts a pg_auto_failover monitor and two PostgreSQL nodes, two pgbouncers, HAProxy and three instances; -short")
	}
	var missing []string
	for _, tool := range []string{"haproxy", "pgbouncer", "pg_autoctl", "openssl", "runuser", "setsid", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				missing = append(missing, tool)
			}
		}
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) == 0 {
		missing = append(missing, "postgresql (server binaries)")
	} else if m, _ := filepath.Glob("/usr/lib/postgresql/*/lib/pgautofailover.so"); len(m) == 0 {
		missing = append(missing, "postgresql-NN-auto-failover (the monitor's extension)")
	}
	if len(missing) > 0 {
		unavailable(t, "the topology test needs %s: apt-get install -y haproxy pgbouncer postgresql postgresql-15-auto-failover pg-auto-failover-cli openssl curl (.ci/run does)", strings.Join(missing, ", "))
	}
	if os.Geteuid() != 0 {
		unavailable(t, "the topology test runs PostgreSQL and pg_autoctl as the postgres user: run it as root")
	}
}

// unavailable skips the test, or fails it under CI, where .ci/run has
// installed what it needs.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: the topology test must run)", msg)
	}
	t.Skip(msg)
}

// startCluster runs deploy/local-cluster.sh up with the loyalty binary bin
// on free loopback ports, and down when the test ends (showing the
// instances' logs first if it failed). extra is added to the script's
// environment (and so to the instances').
func startCluster(t *testing.T, bin string, extra ...string) *cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "loyalty-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(dir) // the script creates it, for the postgres user
	script, err := filepath.Abs("../../deploy/local-cluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	redis, err := url.Parse(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	// A database of its own keeps the instances' rate-limit counts apart
	// from those of the other tests sharing this Redis.
	redis.Path = "/9"
	c := &cluster{dir: dir, script: script, vars: append([]string{
		"LOYALTY_BIN=" + bin, "LOYALTY_CLUSTER_DIR=" + dir,
		"LOYALTY_CLUSTER_PORT=" + fmt.Sprint(freePorts(t, 14)), "LOYALTY_REDIS=" + redis.String(),
	}, extra...)}
	t.Cleanup(func() {
		if t.Failed() {
			for i := 1; i <= 3; i++ {
				b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("loyalty%d.log", i)))
				t.Logf("instance %d log (tail):\n%s", i, tail(string(b), 3000))
			}
			for _, name := range []string{"monitor", "node1", "node2"} {
				b, _ := os.ReadFile(filepath.Join(dir, name+".log"))
				t.Logf("pg_autoctl %s log (tail):\n%s", name, tail(string(b), 3000))
			}
		}
		c.run(t, "down")
	})
	start := time.Now()
	c.run(t, "up")
	t.Logf("topology up in %v", time.Since(start).Round(time.Millisecond))
	c.env = readEnv(t, filepath.Join(dir, "cluster.env"))
	pem, err := os.ReadFile(c.env["CA_CERT"])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 16}}
	t.Cleanup(c.client.CloseIdleConnections)
	return c
}

// run runs the script with a command; a failure fails the test.
func (c *cluster) run(t *testing.T, command string) string {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(c.script, command)
	cmd.Env = append(os.Environ(), c.vars...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("local-cluster.sh %s: %v\n%s", command, err, out.String())
	}
	return out.String()
}

// cli runs a loyalty admin command against the cluster's database.
func (c *cluster) cli(t *testing.T, bin string, args ...string) map[string]any {
	t.Helper()
	return testenv.RunJSON(t, bin, append(append([]string{"--db", c.env["DB"], "--data-dir", c.env["DATA_DIR"]}, args...), "--json")...)
}

// freePorts returns the first of n consecutive loopback ports that are
// free now, below the kernel's ephemeral range: a port of that range
// free now can be handed to any outgoing connection of the tests running
// beside this one before the cluster binds it (a CI run failed so, with
// "address already in use").
func freePorts(t *testing.T, n int) int {
	t.Helper()
	top := 32768 // Linux's default start of the ephemeral range
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if lo, err := strconv.Atoi(f[0]); err == nil && lo > 20000+2*n {
				top = lo
			}
		}
	}
	for range 50 {
		base := 20000 + rand.IntN(top-20000-n)
		free := true
		for p := base; p < base+n && free; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				free = false
				continue
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free range of loopback ports")
	return 0
}

// readEnv reads the script's KEY=VALUE file (values may be single-quoted).
func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			env[k] = strings.Trim(v, "'")
		}
	}
	return env
}

// do sends req and decodes a JSON reply into v; it returns the status, or
// 0 when no answer came.
func do(hc *http.Client, req *http.Request, v any) (int, []byte) {
	resp, err := hc.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 300 && v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			return 0, raw
		}
	}
	return resp.StatusCode, raw
}

var tail, str = testenv.Tail, testenv.Str
