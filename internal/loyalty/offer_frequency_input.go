package loyalty

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// frequencyRule names the accepted offer_frequency_id values.
const frequencyRule = "The offer frequency id must be 1 (once per customer a day, in the business's time zone), " +
	"2 (once per customer a week: " + weeklyRule + "), 3 (on given weekdays and hours: freq_details, peak_from, peak_to) " +
	"or 4 (once per customer); null for no limit."

// applyFrequency applies offer_frequency_id and the window of a day-and-time
// offer (freq_details: weekdays "1" Monday to "7" Sunday; peak_from and
// peak_to: "HH:MM", local time, from before to). The window belongs to
// frequency 3 only: another frequency clears it and refuses one sent.
func (in *OfferInput) applyFrequency(v Validation, o *Offer) {
	if in.OfferFrequencyID.Set {
		switch f, ok := in.OfferFrequencyID.Value(); {
		case !ok:
			o.Frequency = 0
		case f >= OfferDaily && f <= OfferOnce:
			o.Frequency = f
		default:
			v.Add("offer_frequency_id", frequencyRule)
		}
	}
	if v.Has("offer_frequency_id") {
		return
	}
	if in.FreqDetails.Set {
		o.Days = nil
		if sentValue(in.FreqDetails) {
			o.Days = parseDays(v, in.FreqDetails.V)
		}
	}
	for _, f := range []struct {
		name string
		in   Opt[any]
		to   *string
	}{{"peak_from", in.PeakFrom, &o.PeakFrom}, {"peak_to", in.PeakTo, &o.PeakTo}} {
		if !f.in.Set {
			continue
		}
		*f.to = ""
		if !sentValue(f.in) {
			continue
		}
		if hm, ok := f.in.V.(string); ok && validHourMinute(hm) {
			*f.to = hm
		} else {
			v.Add(f.name, "The "+strings.ReplaceAll(f.name, "_", " ")+" must be a time of day from \"00:00\" to \"23:59\", such as \"09:00\".")
		}
	}
	if o.Frequency != OfferDayTime {
		for _, f := range []struct {
			name string
			in   Opt[any]
		}{{"freq_details", in.FreqDetails}, {"peak_from", in.PeakFrom}, {"peak_to", in.PeakTo}} {
			if sentValue(f.in) && !v.Has(f.name) {
				v.Add(f.name, "The "+strings.ReplaceAll(f.name, "_", " ")+" applies only to offer_frequency_id 3 (on given weekdays and hours).")
			}
		}
		o.Days, o.PeakFrom, o.PeakTo = nil, "", ""
		return
	}
	switch {
	case v.Has("freq_details") || v.Has("peak_from") || v.Has("peak_to"):
	case len(o.Days) == 0:
		v.Add("freq_details", "The freq details are required when offer_frequency_id is 3: the weekdays, such as [\"1\",\"5\"] for Monday and Friday.")
	case o.PeakFrom == "":
		v.Add("peak_from", "The peak from is required when offer_frequency_id is 3, such as \"09:00\".")
	case o.PeakTo == "":
		v.Add("peak_to", "The peak to is required when offer_frequency_id is 3, such as \"17:30\".")
	case o.PeakFrom >= o.PeakTo:
		v.Add("peak_to", "The peak to must be a time after peak from.")
	}
}

// parseDays reads freq_details: a list of weekdays, each "1" (Monday) to
// "7" (Sunday), as strings (the reference's shape) or numbers. It returns
// them in order without repeats.
func parseDays(v Validation, x any) []int {
	list, ok := x.([]any)
	if !ok {
		v.Add("freq_details", "The freq details must be a list of weekdays, \"1\" (Monday) to \"7\" (Sunday).")
		return nil
	}
	var days []int
	for i, d := range list {
		var n int
		switch d := d.(type) {
		case string:
			n, _ = strconv.Atoi(strings.TrimSpace(d))
		case json.Number:
			n, _ = strconv.Atoi(d.String())
		case float64:
			if d == float64(int(d)) {
				n = int(d)
			}
		}
		if n < 1 || n > 7 {
			v.Add("freq_details."+itoa(i), "Each weekday must be \"1\" (Monday) to \"7\" (Sunday).")
			continue
		}
		if !slices.Contains(days, n) {
			days = append(days, n)
		}
	}
	slices.Sort(days)
	return days
}

// validHourMinute reports whether s is a time of day "HH:MM", 00:00 to 23:59.
func validHourMinute(s string) bool {
	if len(s) != 5 || s[2] != ':' {
		return false
	}
	h, err1 := strconv.Atoi(s[:2])
	m, err2 := strconv.Atoi(s[3:])
	return err1 == nil && err2 == nil && s[0] != '+' && s[3] != '+' && h >= 0 && h < 24 && m >= 0 && m < 60
}
