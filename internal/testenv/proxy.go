package testenv

import (
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP proxy on loopback in front of a real server (Redis,
// PostgreSQL) that a test cuts and restores, to play the server going
// away and coming back without touching the shared server itself.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	mode  proxyMode
	delay time.Duration         // before each reply is passed on
	conns map[net.Conn]struct{} // both ends of every open pair
	wg    sync.WaitGroup
}

type proxyMode int

const (
	passing proxyMode = iota
	refusing
	silent
)

// NewProxy starts a proxy to target (host:port) on 127.0.0.1; it is
// closed when tb ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("testenv: proxy listen: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every connection and closes each new one at once, as a
// stopped server's host would refuse them.
func (p *Proxy) Cut() { p.set(refusing, true) }

// Silence keeps connections open but forwards nothing either way, as a
// server that hangs or a network that drops packets would.
func (p *Proxy) Silence() { p.set(silent, false) }

// Restore forwards again, without delay: to the server for new
// connections, and on the connections that stayed open.
func (p *Proxy) Restore() {
	p.Delay(0)
	p.set(passing, false)
}

// Delay passes each reply of the server on d late, as a slow server or
// a loaded host would (0: at once).
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

func (p *Proxy) set(m proxyMode, closeAll bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	if closeAll {
		for c := range p.conns {
			c.Close()
		}
	}
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := p.mode == refusing
		p.mu.Unlock()
		if refuse {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.mode == refusing { // cut (or closed) while dialing
			p.mu.Unlock()
			c.Close()
			s.Close()
			continue
		}
		p.conns[c], p.conns[s] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(c, s, false)
		go p.pipe(s, c, true)
	}
}

// pipe copies from src to dst while passing (replies, from the server,
// after the delay); in silence it reads and drops. Either side closing
// closes both.
func (p *Proxy) pipe(src, dst net.Conn, replies bool) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.conns, src)
		delete(p.conns, dst)
		p.mu.Unlock()
		src.Close()
		dst.Close()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			pass, delay := p.mode == passing, p.delay
			p.mu.Unlock()
			if pass && replies && delay > 0 {
				time.Sleep(delay)
			}
			if pass {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) close() {
	p.ln.Close()
	p.set(refusing, true)
	p.wg.Wait()
}

// Proxied puts a Proxy between a PostgreSQL DSN (a postgres:// URL) and
// its server, and returns the DSN that goes through it.
func Proxied(tb testing.TB, dsn string) (string, *Proxy) {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("testenv: bad DSN: %v", err)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "5432"
	}
	p := NewProxy(tb, net.JoinHostPort(host, port))
	u.Host = p.Addr()
	return u.String(), p
}
