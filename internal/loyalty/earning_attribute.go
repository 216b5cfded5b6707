package loyalty

import (
	"math"
	"math/big"
	"math/bits"
)

// attribute shares every applied rule's points among the lines it
// covered, by their eligible totals (by units when those are all zero,
// else equally), the remainder of the rounding to the largest fractions
// (the first line on a tie): points per amount and per item over their
// qualifying lines, a multiplier over the lines it was best on, a bonus
// over every line. It returns the points of each basket line; a return
// of some of a line's units takes back their share of them.
func attribute(s *sale, cands []candidate) []int64 {
	n := 0
	for _, l := range s.lines {
		n = max(n, l.basket+1)
	}
	out := make([]int64, n)
	share, rest := make([]int64, len(s.lines)), make([]int64, len(s.lines))
	for i := range cands {
		c := &cands[i]
		if !c.applied || c.points == 0 {
			continue
		}
		on := c.mask
		if c.effect.Type == EffectMultiplier {
			on = c.lines
		}
		clear(share)
		distribute(c.points, s.lines, on, share, rest)
		for j, l := range s.lines {
			if l.basket >= 0 {
				out[l.basket] += share[j]
			}
		}
	}
	return out
}

// distribute splits points among the lines on holds (every line when
// nil) by weight, into share: the largest remainder method, exact (rest
// holds each line's remainder).
func distribute(points int64, lines []saleLine, on []bool, share, rest []int64) {
	weight := func(j int, by int) int64 {
		switch by {
		case 0:
			return int64(lines[j].total)
		case 1:
			return lines[j].units
		}
		return 1
	}
	for by := range 3 {
		var total int64
		for j := range lines {
			if on == nil || on[j] {
				total += weight(j, by)
			}
		}
		if total <= 0 {
			continue
		}
		var given int64
		clear(rest)
		for j := range lines {
			if on != nil && !on[j] {
				continue
			}
			share[j], rest[j] = mulDivRem(points, weight(j, by), total)
			given += share[j]
		}
		for left := points - given; left > 0; left-- {
			best := -1
			for j := range lines {
				if (on == nil || on[j]) && (best < 0 || rest[j] > rest[best]) {
					best = j
				}
			}
			share[best]++
			rest[best] = -1
		}
		return
	}
}

// mulDivRem is a × b ÷ c (c > 0) and its remainder, exact: in 128 bits
// when a and b are not negative and the quotient fits, else by big.Int.
func mulDivRem(a, b, c int64) (int64, int64) {
	if a >= 0 && b >= 0 {
		hi, lo := bits.Mul64(uint64(a), uint64(b))
		if hi < uint64(c) {
			if q, r := bits.Div64(hi, lo, uint64(c)); q <= math.MaxInt64 {
				return int64(q), int64(r)
			}
		}
	}
	q, r := new(big.Int).QuoRem(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)), big.NewInt(c), new(big.Int))
	return q.Int64(), r.Int64()
}
