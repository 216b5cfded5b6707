package loyalty

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limits of catalog fields.
const (
	maxTitle       = 255
	maxDescription = 1000
	maxImages      = 4
	maxURL         = 255
	maxBranchRefs  = 100
)

// catalogInput holds the body fields that offers, rewards and gift cards
// share. (Each input declares them itself: the JSON decoder would name a
// field of an embedded struct after the struct in its type errors.)
type catalogInput struct {
	Title       Opt[string]
	Description Opt[string]
	ExpiresAt   Opt[string]
	Images      Opt[[]Image]
	Enabled     Opt[bool]
}

// catalogFields points at the shared fields of one catalog object.
type catalogFields struct {
	title, description *string
	expiresAt          *time.Time
	images             *[]Image
	enabled            *bool
}

// apply validates the shared fields and writes the ones sent. On create the
// title is required.
func (in catalogInput) apply(v Validation, f catalogFields, create bool) {
	if t, ok := in.Title.Value(); ok {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			v.Add("title", "The title may not be empty.")
		case len(t) > maxTitle:
			v.Add("title", "The title may not be greater than "+itoa(maxTitle)+" characters.")
		default:
			*f.title = t
		}
	} else if create || in.Title.Null {
		v.Add("title", "The title field is required.")
	}
	if in.Description.Set {
		d := strings.TrimSpace(in.Description.V)
		if len(d) > maxDescription {
			v.Add("description", "The description may not be greater than "+itoa(maxDescription)+" characters.")
		} else {
			*f.description = d
		}
	}
	setTime(v, "expires_at", in.ExpiresAt, f.expiresAt, true)
	if in.Images.Set {
		*f.images = checkImages(v, in.Images.V)
	}
	setBool(v, "enabled", in.Enabled, f.enabled)
}

// setTime reads an RFC 3339 timestamp; null or "" clears it when nullable.
func setTime(v Validation, field string, o Opt[string], dst *time.Time, nullable bool) {
	if !o.Set {
		return
	}
	if o.Null || strings.TrimSpace(o.V) == "" {
		if nullable {
			*dst = time.Time{}
		} else {
			v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" may not be empty.")
		}
		return
	}
	t, err := ParseTime(strings.TrimSpace(o.V))
	if err != nil || t.Year() < 1970 || t.Year() > 9999 {
		v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" must be an RFC 3339 timestamp such as 2026-01-31T09:05:00+00:00.")
		return
	}
	// Times are kept, compared and shown in whole seconds.
	*dst = t.Truncate(time.Second)
}

// setBool writes a sent boolean; null is refused.
func setBool(v Validation, field string, o Opt[bool], dst *bool) {
	if b, ok := o.Value(); ok {
		*dst = b
	} else if o.Null {
		v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" field must be true or false.")
	}
}

// setMoney writes a sent amount that is not negative; null is refused.
func setMoney(v Validation, field string, o Opt[Money], dst *Money) {
	if m, ok := o.Value(); ok {
		if m < 0 {
			v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" may not be negative.")
			return
		}
		*dst = m
	} else if o.Null {
		v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" must be a number.")
	}
}

// setPoints writes a sent number of points, 0 to maxPoints.
func setPoints(v Validation, field string, o Opt[int64], dst *int64) {
	if p, ok := o.Value(); ok {
		if p < 0 || p > maxPoints {
			v.Add(field, "The "+field+" must be a whole number between 0 and "+itoa(maxPoints)+".")
			return
		}
		*dst = p
	} else if o.Null {
		v.Add(field, "The "+field+" must be a whole number.")
	}
}

// checkImages validates images: at most four, each an http(s) path or
// the four sizes of the reference platform (then path is the original), at
// most one default. When none is the default the first one is.
func checkImages(v Validation, images []Image) []Image {
	if len(images) > maxImages {
		v.Add("images", "The images may not have more than "+itoa(maxImages)+" items.")
		return nil
	}
	out := make([]Image, 0, len(images))
	defaults := 0
	for i, im := range images {
		p := "images." + itoa(i) + "."
		im, ok := checkImage(v, p, im)
		if !ok {
			continue
		}
		if im.Default {
			defaults++
		}
		out = append(out, im)
	}
	if defaults > 1 {
		v.Add("images", "Only one image may be the default.")
	}
	if defaults == 0 && len(out) > 0 {
		out[0].Default = true
	}
	return out
}

// checkImage validates one image whose fields are named p+name.
func checkImage(v Validation, p string, im Image) (Image, bool) {
	sizes := []*string{&im.Original, &im.Large, &im.Medium, &im.Thumbnail}
	names := []string{"original", "large", "medium", "thumbnail"}
	sized := false
	for _, s := range sizes {
		*s = strings.TrimSpace(*s)
		sized = sized || *s != ""
	}
	im.Path = strings.TrimSpace(im.Path)
	ok := true
	if sized {
		for i, s := range sizes {
			if !imageURL(*s) {
				v.Add(p+names[i], "Each of original, large, medium and thumbnail must be an http or https URL of at most "+itoa(maxURL)+" characters, or the path an image upload returned.")
				ok = false
			}
		}
		if im.Path == "" {
			im.Path = im.Original
		}
	}
	switch {
	case im.Path == "" && !sized:
		v.Add(p+"path", "The image path is required.")
		ok = false
	case !imageURL(im.Path):
		v.Add(p+"path", "The image path must be an http or https URL of at most "+itoa(maxURL)+" characters, or the path an image upload returned.")
		ok = false
	}
	return im, ok
}

// uploadedImage is the path of an image uploaded to the service (POST
// /offers/images, /rewards/images), served under /images/.
var uploadedImage = regexp.MustCompile(`^/images/[0-9a-f]{32}-[0-9a-f]{16}\.(jpg|png|gif|webp)$`)

// imageURL reports whether s is an http or https URL short enough to
// keep, or the path of an image uploaded to the service.
func imageURL(s string) bool {
	if uploadedImage.MatchString(s) {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(s) <= maxURL
}

// checkBranches checks that every id of field (branches, or the
// reference's available_at_branches of {id} objects) names a branch of
// the business and returns the ids without repeats; an empty list means
// every branch.
func checkBranches(ctx context.Context, tx Tx, v Validation, businessID, field string, ids []string) ([]string, error) {
	if len(ids) > maxBranchRefs {
		v.Add(field, "At most "+itoa(maxBranchRefs)+" branches may be given.")
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for i, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		elem := field + "." + itoa(i)
		if field == "available_at_branches" {
			elem += ".id"
		}
		if !ValidID(id) {
			v.Add(elem, "The branch id is not a valid id.")
			continue
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, err := tx.Branch(ctx, businessID, id); ErrorCode(err) == ENotFound {
			v.Add(elem, "The branch does not exist.")
			continue
		} else if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// applyBranches applies the branches of an offer or reward, given as
// branch ids (branches) or as the reference's available_at_branches.
func applyBranches(ctx context.Context, tx Tx, v Validation, businessID string, branches Opt[[]string], available Opt[[]StringRef], dst *[]string) error {
	ids, field, sent := branches.V, "branches", branches.Set
	if available.Set {
		var ok bool
		if ids, ok = refIDs(v, "available_at_branches", available); ok && branches.Set {
			v.Add("available_at_branches", "Send available_at_branches or branches, not both.")
		}
		field, sent = "available_at_branches", ok
	}
	if !sent {
		return nil
	}
	found, err := checkBranches(ctx, tx, v, businessID, field, ids)
	if err == nil {
		*dst = found
	}
	return err
}

// refIDs reads a list of {id} objects (such as available_at_branches);
// an empty list is refused, as the reference requires one at least.
func refIDs(v Validation, field string, refs Opt[[]StringRef]) ([]string, bool) {
	list, ok := refs.Value()
	if !ok || len(list) == 0 {
		v.Add(field, "At least one branch is required.")
		return nil, false
	}
	ids := make([]string, len(list))
	for i, r := range list {
		if ids[i], ok = r.ID.Value(); !ok || ids[i] == "" {
			v.Add(field+"."+itoa(i)+".id", "The branch id is required.")
			return nil, false
		}
	}
	return ids, true
}

// applyNeverExpires applies never_expires_flag: 1 clears the expiry (and
// takes no expires_at), 0 requires one, which the caller checks once the
// expiry is known. It returns the flag sent, or -1.
func applyNeverExpires(v Validation, flag Opt[int], expiresAt Opt[string], dst *time.Time) int {
	f, ok := flag.Value()
	switch {
	case flag.Null:
		v.Add("never_expires_flag", "The never expires flag must be 0 or 1.")
	case !ok:
		return -1
	case f == 1:
		if e, sent := expiresAt.Value(); sent && strings.TrimSpace(e) != "" {
			v.Add("never_expires_flag", "An object that never expires takes no expires_at.")
		} else {
			*dst = time.Time{}
		}
	case f != 0:
		v.Add("never_expires_flag", "The never expires flag must be 0 or 1.")
	}
	return f
}

// setFlag writes a sent 0/1 flag as a boolean.
func setFlag(v Validation, field string, o Opt[int], dst *bool) {
	if f, ok := o.Value(); ok && (f == 0 || f == 1) {
		*dst = f == 1
	} else if o.Set {
		v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" must be 0 or 1.")
	}
}

// refuseFlag accepts a 0/1 flag only as 0, explaining why 1 is refused.
func refuseFlag(v Validation, field string, o Opt[int], why string) {
	f, ok := o.Value()
	switch {
	case !o.Set || (ok && f == 0):
	case ok && f == 1:
		v.Add(field, why)
	default:
		v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" must be 0 or 1.")
	}
}

// sentValue reports whether a field was sent with a value other than
// null, "" or an empty list.
func sentValue(o Opt[any]) bool {
	v, ok := o.Value()
	if !ok {
		return false
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case []any:
		return len(x) > 0
	}
	return true
}

// setExternalID writes the business's own reference; null clears it.
func setExternalID(v Validation, o Opt[string], dst *string) {
	if !o.Set {
		return
	}
	s := strings.TrimSpace(o.V)
	if len(s) > maxExternalID {
		v.Add("external_id", "The external id may not be greater than "+itoa(maxExternalID)+" characters.")
		return
	}
	*dst = s
}

// intID reads the integer id of a path, a bad request when it is not one.
func intID(what, s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, Errorf(EBadRequest, "Invalid %s id supplied.", what)
	}
	return id, nil
}
