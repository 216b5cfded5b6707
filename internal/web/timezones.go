package web

import "strings"

//go:generate go run ./tzgen -zoneinfo /usr/share/zoneinfo -o timezones_gen.go

// zoneEntry is one IANA time zone of the profile's choice, with its
// country.
type zoneEntry struct{ Name, Country string }

// zoneGroup is the time zones of one region (Europe, America, ...), as an
// optgroup of the profile's select.
type zoneGroup struct {
	Region string
	Zones  []zoneOption
}

// zoneOption is one time zone as the select shows it: "New York (United
// States)" under America.
type zoneOption struct{ Value, Label string }

// maxZoneLabel is the longest label a time zone gets with its country:
// what a select fits on a phone.
const maxZoneLabel = 28

// zoneGroups are the time zones offered by region, UTC first; a saved
// zone not in the list (one the API was given, such as Etc/GMT+5) is
// offered too, so that saving the profile keeps it.
func zoneGroups(saved string) []zoneGroup {
	groups := []zoneGroup{{Region: "Universal", Zones: []zoneOption{{"UTC", "UTC"}}}}
	known := saved == "UTC" || saved == ""
	for _, z := range zoneList {
		region, city, _ := strings.Cut(z.Name, "/")
		city = strings.ReplaceAll(city[strings.LastIndex(city, "/")+1:], "_", " ")
		if last := &groups[len(groups)-1]; last.Region != region {
			groups = append(groups, zoneGroup{Region: region})
		}
		last := &groups[len(groups)-1]
		label := city + " (" + z.Country + ")"
		if len(label) > maxZoneLabel {
			// A long country name would cut the choice off on a phone.
			label = city
		}
		last.Zones = append(last.Zones, zoneOption{z.Name, label})
		known = known || z.Name == saved
	}
	if !known {
		groups[0].Zones = append(groups[0].Zones, zoneOption{saved, saved})
	}
	return groups
}
