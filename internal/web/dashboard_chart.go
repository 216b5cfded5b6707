package web

import (
	"fmt"
	"strconv"
)

// A bar chart drawn on the server as SVG, on purpose: no chart library and
// no script, nothing fetched, so the console works offline, prints, and
// shows its charts to a browser that runs no script. The page gives each
// chart a title and a description (role="img") and shows its numbers in a
// table as well. The labels under the axis are thinned to as many as fit
// side by side (tickStep), and money axes are written in the business's
// currency, whole units without minor ones ("$1,200").

// Chart geometry, in the viewBox's units; the SVG scales to its box.
const (
	chartW, chartH         = 480, 240
	chartLeft, chartRight  = 60, 8
	chartTop, chartBottom  = 12, 30
	chartPlotW, chartPlotH = chartW - chartLeft - chartRight, chartH - chartTop - chartBottom
)

// chartSeries is one row of values to draw, with the CSS class of its bars.
type chartSeries struct {
	Name   string
	Class  string
	Values []int64
}

// barChart is what the template draws.
type barChart struct {
	ID, Title, Desc string
	W, H            int
	Bars            []chartBar
	Grid            []chartLine
	Ticks           []chartTick
	Legend          []chartSeries
	Left, Bottom    float64 // the axes
	Right, LabelX   float64 // the plot's right edge; where the values' labels end
}

type chartBar struct {
	X, Y, W, H float64
	Class      string
}

// chartLine is a gridline with its value's label.
type chartLine struct {
	Y     float64
	Label string
}

// chartTick is a label under the x axis.
type chartTick struct {
	X     float64
	Label string
}

// newBarChart lays out series (of equal length, one value per label) as
// grouped bars from 0 up to a round maximum in units of unit (1 for
// counts, a currency's minor units in one major unit for money, so the
// gridlines fall on whole amounts); negative values (a day with more
// cancelled than new) are drawn as empty, the table shows them.
func newBarChart(id, title, desc string, labels []string, format func(int64) string, unit int64, series ...chartSeries) barChart {
	c := barChart{ID: id, Title: title, Desc: desc, W: chartW, H: chartH, Legend: series,
		Left: chartLeft, Bottom: chartTop + chartPlotH, Right: chartW - chartRight, LabelX: chartLeft - 6}
	var top int64
	for _, s := range series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	unit = max(unit, 1)
	top = niceCeiling((top+unit-1)/unit) * unit
	for i := 0; i <= 4; i++ {
		v := top * int64(i) / 4
		c.Grid = append(c.Grid, chartLine{Y: c.Bottom - float64(v)/float64(top)*chartPlotH, Label: format(v)})
	}
	n := len(labels)
	if n == 0 {
		return c
	}
	slot := float64(chartPlotW) / float64(n)
	gap := slot * 0.2
	bar := (slot - gap) / float64(len(series))
	for i := range labels {
		for j, s := range series {
			v := max(s.Values[i], 0)
			h := float64(v) / float64(top) * chartPlotH
			c.Bars = append(c.Bars, chartBar{X: round2(chartLeft + float64(i)*slot + gap/2 + float64(j)*bar),
				Y: round2(c.Bottom - h), W: round2(bar), H: round2(h), Class: s.Class})
		}
	}
	step := tickStep(labels)
	for i := 0; i < n; i += step {
		x := chartLeft + (float64(i)+0.5)*slot
		if half := labelWidth(labels[i]) / 2; x+half > chartW || x-half < 0 {
			continue // it would leave the picture
		}
		c.Ticks = append(c.Ticks, chartTick{X: round2(x), Label: labels[i]})
	}
	return c
}

// Axis labels are 13 units high (style.css); a character is at most
// about 8 wide, and labels keep a gap of 16 between them.
const (
	charW    = 8.0
	labelGap = 16.0
)

// labelWidth is about how wide a label is drawn, in the viewBox's units.
func labelWidth(s string) float64 { return float64(len([]rune(s))) * charW }

// tickStep is every how many labels one is shown, so that those shown,
// as wide as the widest, never run into each other.
func tickStep(labels []string) int {
	var widest float64
	for _, l := range labels {
		widest = max(widest, labelWidth(l))
	}
	fit := max(1, int(float64(chartPlotW)/(widest+labelGap)))
	return max(1, (len(labels)+fit-1)/fit)
}

// niceCeiling rounds v up to 1, 2, 4 or 8 times a power of ten (at least 4,
// so that the four gridlines have whole values).
func niceCeiling(v int64) int64 {
	if v <= 4 {
		return 4
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 4, 8} {
			if m*p >= v && (m*p)%4 == 0 {
				return m * p
			}
		}
	}
}

func round2(f float64) float64 {
	r, _ := strconv.ParseFloat(fmt.Sprintf("%.2f", f), 64)
	return r
}
