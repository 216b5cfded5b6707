package web

import (
	"fmt"
	"strconv"
	"testing"
)

// TestNiceCeiling: the chart's top is 1, 2, 4 or 8 times a power of ten,
// at least the largest value, and splits in four whole gridlines.
func TestNiceCeiling(t *testing.T) {
	for v, want := range map[int64]int64{0: 4, 3: 4, 5: 8, 9: 20, 30: 40, 41: 80, 81: 100, 101: 200, 12_345: 20_000} {
		if got := niceCeiling(v); got != want {
			t.Errorf("niceCeiling(%d) = %d, want %d", v, got, want)
		}
	}
}

// TestBarChart: bars are as tall as their values against the top, a
// negative value draws an empty bar, two series sit side by side, and a
// year of days gets a handful of labels.
func TestBarChart(t *testing.T) {
	count := func(v int64) string { return strconv.FormatInt(v, 10) }
	c := newBarChart("c", "T", "D", []string{"a", "b", "c"}, count, 1,
		chartSeries{Class: "bar-a", Values: []int64{0, 10, -5}}, chartSeries{Class: "bar-b", Values: []int64{20, 5, 0}})
	if len(c.Bars) != 6 {
		t.Fatalf("%d bars, want 6", len(c.Bars))
	}
	full := float64(chartPlotH)
	for i, want := range []float64{0, full, full / 2, full / 4, 0, 0} {
		if got := c.Bars[i].H; fmt.Sprintf("%.1f", got) != fmt.Sprintf("%.1f", want) {
			t.Errorf("bar %d is %.2f tall, want %.2f", i, got, want)
		}
	}
	if c.Bars[0].X >= c.Bars[1].X || c.Bars[1].X >= c.Bars[2].X {
		t.Errorf("the bars of a day are not side by side, in order: %+v", c.Bars[:3])
	}
	if c.Grid[4].Label != "20" || c.Grid[0].Label != "0" {
		t.Errorf("gridlines %+v, want 0 to 20", c.Grid)
	}
	labels := make([]string, 365)
	for i := range labels {
		labels[i] = "Oct 30"
	}
	values := make([]int64, 365)
	year := newBarChart("y", "T", "D", labels, count, 1, chartSeries{Class: "bar-a", Values: values})
	if n := len(year.Ticks); n < 5 || n > 7 {
		t.Errorf("%d labels under a year of days", n)
	}
	for _, b := range year.Bars {
		if b.X < chartLeft || b.X+b.W > chartW-chartRight+0.01 {
			t.Fatalf("a bar leaves the plot: %+v", b)
		}
	}
}

// TestChartLabelsApart: under a month of days and a year of months, the
// labels shown are as far apart as they are wide, never overlapping and
// never outside the picture; a money axis ends on whole amounts.
func TestChartLabelsApart(t *testing.T) {
	count := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, n := range []int{7, 30, 31, 90, 365} {
		labels := make([]string, n)
		for i := range labels {
			labels[i] = fmt.Sprintf("Sep %d", i%30+1)
		}
		c := newBarChart("c", "T", "D", labels, count, 1, chartSeries{Class: "bar-a", Values: make([]int64, n)})
		if len(c.Ticks) < 2 && n > 1 {
			t.Errorf("%d days: %d labels", n, len(c.Ticks))
		}
		for i, tk := range c.Ticks {
			half := labelWidth(tk.Label) / 2
			if tk.X-half < 0 || tk.X+half > chartW {
				t.Errorf("%d days: label %q at %.1f leaves the picture", n, tk.Label, tk.X)
			}
			if i > 0 && c.Ticks[i-1].X+labelWidth(c.Ticks[i-1].Label)/2+4 > tk.X-half {
				t.Errorf("%d days: labels %q and %q run into each other", n, c.Ticks[i-1].Label, tk.Label)
			}
		}
	}
	money := newBarChart("m", "T", "D", []string{"a"}, count, 100, chartSeries{Class: "bar-a", Values: []int64{171140}})
	if top := money.Grid[4].Label; top != "200000" {
		t.Errorf("a money axis for 1711.40 ends at %s minor units, want 200000 (2,000 whole units)", top)
	}
}
