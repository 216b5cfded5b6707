package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// productionScript makes wrk pick, for every request, a random business,
// one of its tokens and one of its customers, and read the customer with
// its balance or reward it by amount (mode). It counts the answers by
// status and prints them, with the latency percentiles, for the report.
const productionScript = `mode = %q
biz = {
%s}
request = function()
  local b = biz[math.random(#biz)]
  local id = b.c[math.random(#b.c)]
  local h = {["X-Application-Key"] = b.k, ["Authorization"] = "Bearer " .. b.t[math.random(#b.t)]}
  if mode == "read" then
    return wrk.format("GET", "/customers/" .. id .. "?include=balance", h)
  end
  h["Content-Type"] = "application/json"
  return wrk.format("POST", "/transactions", h, '{"intent":"reward","amount":12.50,"customer":{"id":"' .. id .. '"}}')
end
` + wrkCounting

// wrkCounting is the part of a wrk script (a format for fmt.Sprintf)
// that seeds each thread's random numbers, counts the answers by status
// and prints them, with the latency percentiles, as the LOADTEST line
// runWrk reads.
const wrkCounting = `local n = 0
local threads = {}
function setup(thread)
  n = n + 1
  thread:set("seed", n)
  table.insert(threads, thread)
end
function init(args)
  math.randomseed(os.time() * 1000 + seed)
  limited, failed = 0, 0
end
function response(status, headers, body)
  if status == 429 then
    limited = limited + 1
  elseif status ~= 200 then
    failed = failed + 1
  end
end
function done(summary, latency, requests)
  local l, f = 0, 0
  for _, t in ipairs(threads) do
    l = l + t:get("limited")
    f = f + t:get("failed")
  end
  io.write(string.format("LOADTEST requests=%%d p50=%%d p99=%%d limited=%%d failed=%%d\n",
    summary.requests, latency:percentile(50), latency:percentile(99), l, f))
end
`

// writeScript writes the wrk script of mode ("read" or "reward") over
// the tenants into dir.
func writeScript(dir, mode string, tenants []*tenant) (string, error) {
	var b strings.Builder
	for _, t := range tenants {
		fmt.Fprintf(&b, "{k=%q,t={", t.key)
		for i, tok := range t.tokens {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q", tok)
		}
		b.WriteString("},c={")
		for i, c := range t.customers {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q", c)
		}
		b.WriteString("}},\n")
	}
	path := filepath.Join(dir, mode+".lua")
	return path, os.WriteFile(path, []byte(fmt.Sprintf(productionScript, mode, b.String())), 0o600)
}

// measure is one wrk run's figures, with the serving process's CPU and
// peak memory over it, and the local PostgreSQL server's CPU.
type measure struct {
	rps             float64
	p50, p99        time.Duration
	requests        int64
	limited, failed int64
	cpuPerReq       time.Duration
	dbCPUPerReq     time.Duration // -1: not measured (SQLite, or a server on another machine)
	peakRSS         int64         // kB
}

var loadtestLine = regexp.MustCompile(`LOADTEST requests=(\d+) p50=(\d+) p99=(\d+) limited=(\d+) failed=(\d+)`)

// runWrk drives target with script for dur and measures the serving
// processes meanwhile (pids: pids, pid files or "self"): CPU time from
// /proc/PID/stat and peak resident memory (VmHWM, reset before the run),
// summed. With db, it also measures the CPU time of this machine's
// PostgreSQL server (postgresCPU).
func runWrk(target, script string, conns, threads int, dur time.Duration, pids []string, db bool) (measure, error) {
	procs, err := procDirs(pids)
	if err != nil {
		return measure{}, err
	}
	for _, p := range procs {
		os.WriteFile(p+"/clear_refs", []byte("5"), 0) // resets VmHWM; best effort
	}
	cpu0, err := processCPU(procs)
	if err != nil {
		return measure{}, err
	}
	var db0 time.Duration
	if db {
		db0 = postgresCPU()
	}
	out, err := exec.Command("wrk", "-t", fmt.Sprint(threads), "-c", fmt.Sprint(conns), "-d", dur.String(),
		"-s", script, target).CombinedOutput()
	if err != nil {
		return measure{}, fmt.Errorf("wrk (apt-get install wrk): %v: %s", err, out)
	}
	m := measure{dbCPUPerReq: -1}
	cpu1, err := processCPU(procs)
	if err != nil {
		return measure{}, err
	}
	var db1 time.Duration
	if db {
		db1 = postgresCPU()
	}
	rps := reqsRe.FindStringSubmatch(string(out))
	line := loadtestLine.FindStringSubmatch(string(out))
	if rps == nil || line == nil {
		return measure{}, fmt.Errorf("unexpected wrk output: %s", out)
	}
	m.rps, _ = strconv.ParseFloat(rps[1], 64)
	n := func(i int) int64 { v, _ := strconv.ParseInt(line[i], 10, 64); return v }
	m.requests, m.p50, m.p99 = n(1), time.Duration(n(2))*time.Microsecond, time.Duration(n(3))*time.Microsecond
	m.limited, m.failed = n(4), n(5)
	if m.requests > 0 {
		m.cpuPerReq = (cpu1 - cpu0) / time.Duration(m.requests)
		if db {
			m.dbCPUPerReq = (db1 - db0) / time.Duration(m.requests)
		}
	}
	for _, p := range procs {
		m.peakRSS += statusKB(p, "VmHWM:")
	}
	return m, nil
}

// clockTick is USER_HZ, the unit of /proc/*/stat's CPU times: 100 on
// every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// procDirs are the /proc directories of pids: numbers, files holding
// one (a pid file), or "self".
func procDirs(pids []string) ([]string, error) {
	var dirs []string
	for _, p := range pids {
		p = strings.TrimSpace(p)
		if _, err := strconv.Atoi(p); err != nil && p != "self" {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("server pid: %w", err)
			}
			p = strings.TrimSpace(string(b))
		}
		dirs = append(dirs, "/proc/"+p)
	}
	return dirs, nil
}

// processCPU is the user + system CPU time the processes have used.
func processCPU(procs []string) (time.Duration, error) {
	var total time.Duration
	for _, p := range procs {
		_, f, err := procStat(p)
		if err != nil {
			return 0, fmt.Errorf("CPU time needs Linux's /proc: %w", err)
		}
		total += cpuTime(f, 11, 12) // utime, stime
	}
	return total, nil
}

// procStat reads /proc/PID/stat: the command name, and the fields after
// it, counted from 0 (the command name may hold spaces and parentheses).
func procStat(proc string) (string, []string, error) {
	b, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return "", nil, err
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", nil, fmt.Errorf("%s/stat: unreadable", proc)
	}
	return s[open+1 : end], strings.Fields(s[end+1:]), nil
}

// cpuTime adds up fields of procStat that count clock ticks.
func cpuTime(f []string, fields ...int) time.Duration {
	var ticks int64
	for _, i := range fields {
		if i < len(f) {
			v, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += v
		}
	}
	return time.Duration(ticks) * clockTick
}

// postgresCPU is the CPU time the processes named postgres on this
// machine have used: the server and its backends, and, through the
// server's count of its children's time, the backends that ended. It
// counts every database of the server, so it is a figure for a machine
// that runs nothing else on PostgreSQL meanwhile.
func postgresCPU() time.Duration {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var total time.Duration
	for _, p := range dirs {
		// A process that ended meanwhile is left out.
		if comm, f, err := procStat(p); err == nil && comm == "postgres" {
			total += cpuTime(f, 11, 12, 13, 14) // utime, stime, cutime, cstime
		}
	}
	return total
}

// statusKB reads a kB figure of /proc/PID/status, 0 when unknown.
func statusKB(proc, field string) int64 {
	f, err := os.Open(proc + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// allCPUPerReq is the serving processes' CPU per request and, when
// measured, PostgreSQL's.
func (m measure) allCPUPerReq() time.Duration { return m.cpuPerReq + max(m.dbCPUPerReq, 0) }

func (m measure) String() string {
	s := fmt.Sprintf("%8.0f req/s  p50 %-8s p99 %-8s", m.rps, m.p50.Round(10*time.Microsecond), m.p99.Round(10*time.Microsecond))
	if m.peakRSS > 0 {
		s += fmt.Sprintf(" CPU %4d µs/req", m.cpuPerReq.Microseconds())
		if m.dbCPUPerReq >= 0 {
			s += fmt.Sprintf(" + PostgreSQL %4d µs/req", m.dbCPUPerReq.Microseconds())
		}
		s += fmt.Sprintf("  peak RSS %d MB", m.peakRSS/1024)
	}
	if m.limited > 0 || m.failed > 0 {
		s += fmt.Sprintf("  (%d answered 429, %d other errors)", m.limited, m.failed)
	}
	return s
}
