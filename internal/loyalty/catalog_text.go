package loyalty

import (
	"net/url"
	"slices"
	"strings"
)

// Languages a catalog text may be written in (language_id).
const (
	LanguageEnglish = 1
	LanguageFrench  = 2
	LanguageSpanish = 3
)

// Limits of the texts of an offer or reward in one language.
const (
	maxTerms   = 1000
	maxLink    = 500
	maxProduct = 255
)

// CatalogText is an offer's or a reward's texts in one language
// (offer_languages, reward_languages). The English text's title and
// description are the object's own title and description.
type CatalogText struct {
	LanguageID      int    `json:"language_id"`
	Title           string `json:"title"`
	Description     string `json:"description"`
	TermsConditions string `json:"terms_conditions"`
	Link            string `json:"link"`
	Product         string `json:"product,omitempty"` // offers: the free product
}

// textInput is one entry of offer_languages or reward_languages, with the
// names its fields have on the wire.
type textInput struct {
	languageID                               Opt[int]
	title, description, terms, link, product Opt[string]
	names                                    textNames
}

// textNames are the wire names of a language entry's fields.
type textNames struct{ title, description, terms, link, product string }

// Wire names of offer_languages and reward_languages entries.
var (
	offerTextNames  = textNames{"offer_title", "offer_description", "offer_terms_conditions", "offer_link", "offer_product"}
	rewardTextNames = textNames{"title", "description", "terms_conditions", "link", "product"}
)

// catalogTexts carries what applyTexts merges: the object's texts and its
// own title and description, and whether the body sent those two.
type catalogTexts struct {
	texts               *[]CatalogText
	title, description  *string
	titleSent, descSent bool
}

// hasEnglishTitle reports whether the entries give an English title.
func hasEnglishTitle(entries []textInput) bool {
	for _, e := range entries {
		if id, _ := e.languageID.Value(); id == LanguageEnglish {
			if t, ok := e.title.Value(); ok && strings.TrimSpace(t) != "" {
				return true
			}
		}
	}
	return false
}

// applyTexts validates the entries of field (offer_languages or
// reward_languages) and merges them into the object's texts by language:
// a language already there keeps what an entry does not send, a new one
// needs its title. The English entry sets the object's title and
// description (and may not contradict a title or description sent beside
// it). On create English is required, as an entry or as the title.
func applyTexts(v Validation, field string, entries []textInput, c catalogTexts, create bool) {
	if len(entries) == 0 {
		v.Add(field, "At least one language is required, English (language_id 1) first of all.")
		return
	}
	out := slices.Clone(*c.texts)
	if englishAt(out) < 0 && *c.title != "" {
		out = append(out, CatalogText{LanguageID: LanguageEnglish, Title: *c.title, Description: *c.description})
	}
	seen := map[int]bool{}
	for i, e := range entries {
		p := field + "." + itoa(i) + "."
		id, ok := e.languageID.Value()
		switch {
		case !ok:
			v.Add(p+"language_id", "The language id is required: 1 English, 2 French or 3 Spanish.")
			continue
		case id < LanguageEnglish || id > LanguageSpanish:
			v.Add(p+"language_id", "The selected language id is invalid: 1 English, 2 French or 3 Spanish.")
			continue
		case seen[id]:
			v.Add(p+"language_id", "Each language may appear once.")
			continue
		}
		seen[id] = true
		j := slices.IndexFunc(out, func(t CatalogText) bool { return t.LanguageID == id })
		if j < 0 {
			out = append(out, CatalogText{LanguageID: id})
			j = len(out) - 1
			if _, ok := e.title.Value(); !ok {
				v.Add(p+e.names.title, "The title is required for a new language.")
			}
		}
		e.applyTo(v, p, &out[j])
		if id != LanguageEnglish {
			continue
		}
		if t, ok := e.title.Value(); ok && c.titleSent && strings.TrimSpace(t) != *c.title {
			v.Add(p+e.names.title, "The English title differs from the title sent beside it.")
		}
		if d, ok := e.description.Value(); ok && c.descSent && strings.TrimSpace(d) != *c.description {
			v.Add(p+e.names.description, "The English description differs from the description sent beside it.")
		}
		*c.title, *c.description = out[j].Title, out[j].Description
	}
	if create && !seen[LanguageEnglish] && !c.titleSent {
		v.Add(field, "English (language_id 1) is required.")
	}
	slices.SortFunc(out, func(a, b CatalogText) int { return a.LanguageID - b.LanguageID })
	*c.texts = out
}

// applyTo writes the fields an entry sends into t; null clears a field
// other than the title.
func (e textInput) applyTo(v Validation, p string, t *CatalogText) {
	if s, ok := e.title.Value(); ok {
		switch s = strings.TrimSpace(s); {
		case s == "":
			v.Add(p+e.names.title, "The title may not be empty.")
		case len(s) > maxTitle:
			v.Add(p+e.names.title, "The title may not be greater than "+itoa(maxTitle)+" characters.")
		default:
			t.Title = s
		}
	} else if e.title.Null {
		v.Add(p+e.names.title, "The title may not be empty.")
	}
	setText(v, p+e.names.description, e.description, &t.Description, maxDescription)
	setText(v, p+e.names.terms, e.terms, &t.TermsConditions, maxTerms)
	setText(v, p+e.names.product, e.product, &t.Product, maxProduct)
	if e.link.Set {
		s := strings.TrimSpace(e.link.V)
		if u, err := url.Parse(s); s != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(s) > maxLink) {
			v.Add(p+e.names.link, "The link must be an http or https URL of at most "+itoa(maxLink)+" characters.")
		} else {
			t.Link = s
		}
	}
}

// syncEnglish makes a stored English text carry the object's title and
// description, which a plain title or description update changes.
func syncEnglish(texts []CatalogText, title, description string) {
	if i := englishAt(texts); i >= 0 {
		texts[i].Title, texts[i].Description = title, description
	}
}

// TextsOf returns an object's texts for the wire: every language, English
// first, made from the title and description when none was stored.
func TextsOf(title, description string, texts []CatalogText) []CatalogText {
	out := make([]CatalogText, 0, len(texts)+1)
	if englishAt(texts) < 0 {
		out = append(out, CatalogText{LanguageID: LanguageEnglish, Title: title, Description: description})
	}
	return append(out, texts...)
}

func englishAt(texts []CatalogText) int {
	return slices.IndexFunc(texts, func(t CatalogText) bool { return t.LanguageID == LanguageEnglish })
}
