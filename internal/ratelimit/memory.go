package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

const (
	shardCount    = 64 // power of two
	sweepInterval = time.Minute
)

// Memory is an in-process Limiter; it is safe for concurrent use.
type Memory struct {
	seed   maphash.Seed
	epoch  time.Time // times are stored as monotonic offsets from epoch
	shards [shardCount]shard
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

type shard struct {
	mu sync.Mutex
	m  map[string]*window
	_  [48]byte // keep shards on separate cache lines
}

type window struct {
	count int
	end   time.Duration // offset from Memory.epoch
}

var _ Limiter = (*Memory)(nil)

// NewMemory returns an in-process Limiter whose expired windows are removed by
// a background goroutine until Close is called.
func NewMemory() *Memory {
	m := &Memory{
		seed:  maphash.MakeSeed(),
		epoch: time.Now(),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	for i := range m.shards {
		m.shards[i].m = make(map[string]*window)
	}
	go m.janitor(sweepInterval)
	return m
}

// Allow counts one request for key against limit per window and reports the result.
func (m *Memory) Allow(_ context.Context, key string, limit int, win time.Duration) (Result, error) {
	if err := validate(limit, win); err != nil {
		return Result{}, err
	}
	now := time.Since(m.epoch)
	s := &m.shards[maphash.String(m.seed, key)&(shardCount-1)]

	s.mu.Lock()
	w := s.m[key]
	switch {
	case w == nil:
		w = &window{end: now + win}
		s.m[key] = w
	case now >= w.end:
		*w = window{end: now + win}
	}
	if w.count <= limit { // stop counting once over the limit
		w.count++
	}
	count, end := w.count, w.end
	s.mu.Unlock()

	return result(count, limit, m.epoch.Add(end)), nil
}

// Peek reports key's window as Allow would, without counting a request.
func (m *Memory) Peek(_ context.Context, key string, limit int, win time.Duration) (Result, error) {
	if err := validate(limit, win); err != nil {
		return Result{}, err
	}
	now := time.Since(m.epoch)
	s := &m.shards[maphash.String(m.seed, key)&(shardCount-1)]
	s.mu.Lock()
	count, end := 0, now+win
	if w := s.m[key]; w != nil && now < w.end {
		count, end = w.count, w.end
	}
	s.mu.Unlock()
	return result(count+1, limit, m.epoch.Add(end)), nil
}

// Close stops the background cleanup; it is safe to call more than once.
func (m *Memory) Close() error {
	m.once.Do(func() {
		close(m.stop)
		<-m.done
	})
	return nil
}

func (m *Memory) janitor(every time.Duration) {
	defer close(m.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.sweep()
		}
	}
}

// sweep deletes every window that has ended.
func (m *Memory) sweep() {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		now := time.Since(m.epoch)
		for k, w := range s.m {
			if now >= w.end {
				delete(s.m, k)
			}
		}
		s.mu.Unlock()
	}
}

// len reports the number of tracked keys (for tests).
func (m *Memory) len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}
