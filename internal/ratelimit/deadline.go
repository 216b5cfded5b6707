package ratelimit

import (
	"math"
	"sync"
	"time"
)

// deadline is how long a call may wait on Redis, adapted to how fast
// Redis has been answering: twice the slowest recent answer (its weight
// halving every peakHalfLife), or the smoothed latency plus four times
// its deviation as TCP computes its retransmission timeout (RFC 6298),
// whichever is larger, within [min, max]. A call that misses it doubles
// it for the next calls (up to max), so a Redis slowed by a loaded host
// is soon given the time it needs instead of being taken for down.
type deadline struct {
	min, max time.Duration

	mu       sync.Mutex
	srtt     time.Duration // smoothed latency
	rttvar   time.Duration // its mean deviation
	peak     time.Duration // the slowest recent answer, decaying
	peakAt   time.Time
	current  time.Duration
	observed bool
}

// peakHalfLife is how fast a slow answer stops counting as recent.
const peakHalfLife = 10 * time.Second

func newDeadline(min, max time.Duration) *deadline {
	return &deadline{min: min, max: max, current: min}
}

// get is the deadline of the next call.
func (d *deadline) get() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.current
}

// observe records the latency of a call Redis answered.
func (d *deadline) observe(rtt time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	if !d.observed {
		d.srtt, d.rttvar, d.observed = rtt, rtt/2, true
	} else {
		d.rttvar = (3*d.rttvar + (d.srtt - rtt).Abs()) / 4
		d.srtt = (7*d.srtt + rtt) / 8
	}
	d.peak = time.Duration(float64(d.peak) * math.Exp2(-float64(now.Sub(d.peakAt))/float64(peakHalfLife)))
	if rtt >= d.peak {
		d.peak = rtt
	}
	d.peakAt = now
	d.current = min(max(d.srtt+4*d.rttvar, 2*d.peak, d.min), d.max)
}

// missed records a call that waited used without an answer: the next
// calls wait twice as long. Calls in flight together double it once.
func (d *deadline) missed(used time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.current = max(d.current, min(2*used, d.max))
}
