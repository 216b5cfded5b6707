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
	count int           // this instance's requests in the window
	seen  int           // all instances' requests, as far as this instance knows (see Failover)
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
	return m.share(key, limit, win, 1), nil
}

// Peek reports key's window as Allow would, without counting a request.
func (m *Memory) Peek(_ context.Context, key string, limit int, win time.Duration) (Result, error) {
	if err := validate(limit, win); err != nil {
		return Result{}, err
	}
	return m.peekShare(key, limit, win, 1), nil
}

// share counts one request of this instance for key and decides it as
// one of instances sharing limit: allowed while this instance's requests
// times instances, and the count of all of them as far as it knows (the
// last count Redis gave plus its own requests since), are within limit.
// With one instance it is a plain fixed window.
func (m *Memory) share(key string, limit int, win time.Duration, instances int) Result {
	now := time.Since(m.epoch)
	s := m.shard(key)
	s.mu.Lock()
	w := s.m[key]
	switch {
	case w == nil:
		w = &window{end: now + win}
		s.m[key] = w
	case now >= w.end:
		*w = window{end: now + win}
	}
	// Stop counting once over the limit.
	w.count = min(w.count+1, limit+1)
	w.seen = min(w.seen+1, limit+1)
	count, end := w.estimate(limit, instances), w.end
	s.mu.Unlock()
	return result(count, limit, m.epoch.Add(end))
}

// peekShare reports key's window as share would, without counting.
func (m *Memory) peekShare(key string, limit int, win time.Duration, instances int) Result {
	now := time.Since(m.epoch)
	s := m.shard(key)
	s.mu.Lock()
	count, end := 0, now+win
	if w := s.m[key]; w != nil && now < w.end {
		count, end = w.estimate(limit, instances), w.end
	}
	s.mu.Unlock()
	return result(count+1, limit, m.epoch.Add(end))
}

// maxMirrored is the longest window mirror keeps: shorter ones are rate
// limits, whose window in progress when Redis goes away matters; longer
// ones (a sign-in remembered for a month) would only fill the memory.
const maxMirrored = time.Hour

// mirror records in key's window what Redis answered for it: count, the
// requests of all instances, and reset, the end of Redis's window;
// counted says the answer counted a request of this instance. A window
// Redis began afresh starts afresh here too. A peek (counted false)
// starts no window of its own.
func (m *Memory) mirror(key string, limit int, win time.Duration, count int, reset time.Time, counted bool) {
	if win > maxMirrored {
		return
	}
	now, end := time.Since(m.epoch), reset.Sub(m.epoch)
	s := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.m[key]
	switch {
	case w == nil && !counted:
		return
	case w == nil:
		w = &window{}
		s.m[key] = w
	case now >= w.end || end >= w.end+win/2: // a new window in Redis
		*w = window{}
	}
	w.end = end
	if counted {
		w.count = min(w.count+1, limit+1)
	}
	w.seen = max(w.seen, min(count, limit+1))
}

// estimate is the window's count as seen by one of instances: its own
// requests times instances, or the count of all as far as it knows,
// whichever is larger, never more than limit+1.
func (w *window) estimate(limit, instances int) int {
	own := w.count
	if instances > 1 {
		// w.count * instances, without overflowing for huge limits.
		own = limit + 1
		if w.count <= (limit+1)/instances {
			own = w.count * instances
		}
	}
	return max(own, w.seen)
}

func (m *Memory) shard(key string) *shard {
	return &m.shards[maphash.String(m.seed, key)&(shardCount-1)]
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
