package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"
)

// binary is a running `loyalty serve`.
type binary struct {
	cmd  *exec.Cmd
	base string
	logs *bytes.Buffer
	mu   *sync.Mutex
}

// startBinary starts `bin serve` with args on a free loopback port and
// waits until it answers.
func startBinary(ctx context.Context, bin string, args ...string) (*binary, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	b := &binary{base: "http://" + addr, logs: &bytes.Buffer{}, mu: &sync.Mutex{}}
	b.cmd = exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	b.cmd.Stdout, b.cmd.Stderr = io.Discard, lockedWriter{b.mu, b.logs}
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(b.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return b, nil
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	b.stop()
	return nil, fmt.Errorf("%s serve did not answer within a minute:\n%s", bin, b.tail())
}

func (b *binary) stop() {
	b.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

func (b *binary) tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.logs.String()
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
