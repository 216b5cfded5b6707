package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// productJSON is a product as the reference shows it (Product Base), with
// what the business manages of it beside: its category, tags, branches.
type productJSON struct {
	ID               int64                 `json:"id"`
	Title            string                `json:"title"`
	Description      string                `json:"description"`
	Images           []loyalty.Image       `json:"images"`
	SKU              string                `json:"product_sku"`
	ActualPrice      loyalty.Money         `json:"actual_price"`
	RealPrice        loyalty.Money         `json:"real_price"`
	TermsConditions  string                `json:"terms_conditions"`
	Link             string                `json:"link"`
	PromoteFlag      int                   `json:"promote_flag"`
	CategoryID       *int64                `json:"category_id"`
	Tags             []string              `json:"tags"`
	Branches         []string              `json:"branches"`
	ProductLanguages []productLanguageJSON `json:"product_languages"`
	CreatedAt        string                `json:"created_at"`
	UpdatedAt        string                `json:"updated_at"`
}

// productLanguageJSON is one entry of a product's product_languages.
type productLanguageJSON struct {
	LanguageID      int          `json:"language_id"`
	Title           string       `json:"title"`
	Description     string       `json:"description"`
	TermsConditions string       `json:"terms_conditions"`
	Link            string       `json:"link"`
	Language        languageJSON `json:"language"`
}

// languageJSON names a language as the reference does.
type languageJSON struct {
	ID           int    `json:"id"`
	Abbreviation string `json:"abbreviation"`
	Name         string `json:"name"`
}

// languages are the reference's language ids.
var languages = map[int]languageJSON{
	loyalty.LanguageEnglish: {loyalty.LanguageEnglish, "en", "English"},
	loyalty.LanguageFrench:  {loyalty.LanguageFrench, "fr", "French"},
	loyalty.LanguageSpanish: {loyalty.LanguageSpanish, "es", "Spanish"},
}

func toProductJSON(p loyalty.Product) productJSON {
	out := productJSON{ID: p.ID, Title: p.Title, Description: p.Description, Images: imagesOrEmpty(p.Images), SKU: p.SKU,
		ActualPrice: p.ActualPrice, RealPrice: p.RealPrice, Tags: p.Tags, Branches: idsOrEmpty(p.BranchIDs),
		ProductLanguages: []productLanguageJSON{}, CreatedAt: loyalty.FormatTime(p.CreatedAt), UpdatedAt: loyalty.FormatTime(p.UpdatedAt)}
	if p.Promote {
		out.PromoteFlag = 1
	}
	if p.CategoryID != 0 {
		id := p.CategoryID
		out.CategoryID = &id
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	for _, t := range loyalty.TextsOf(p.Title, p.Description, p.Texts) {
		out.ProductLanguages = append(out.ProductLanguages, productLanguageJSON{LanguageID: t.LanguageID, Title: t.Title,
			Description: t.Description, TermsConditions: t.TermsConditions, Link: t.Link, Language: languages[t.LanguageID]})
		if t.LanguageID == loyalty.LanguageEnglish {
			out.TermsConditions, out.Link = t.TermsConditions, t.Link
		}
	}
	return out
}

func (s *Server) listProducts(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.ProductListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Products.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]productJSON, len(list))
	for i, p := range list {
		data[i] = toProductJSON(p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("products", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) getProduct(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	p, err := rc.svc.Products.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toProductJSON(p)})
	return nil
}

func (s *Server) createProduct(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.ProductInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := auditedOf(s, r, rc, loyalty.AuditProgramCreated, named("Product", in.Title, ""), func(svc loyalty.Services) (loyalty.Product, error) {
		return svc.Products.Create(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toProductJSON(p)})
	return nil
}

func (s *Server) updateProduct(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.ProductInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Product", in.Title, r.PathValue("id"), func() (string, error) {
		p, err := rc.svc.Products.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return p.Title, err
	}), func(svc loyalty.Services) (loyalty.Product, error) {
		return svc.Products.Update(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toProductJSON(p)})
	return nil
}

func (s *Server) deleteProduct(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Product", nameOf(func() (string, error) {
		p, err := rc.svc.Products.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return p.Title, err
	}), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.Products.Delete(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// maxBatchBody bounds the body of POST /products/batch.
const maxBatchBody = 8 << 20

// productBatchInput is the body of POST /products/batch.
type productBatchInput struct {
	Products []json.RawMessage `json:"products"`
}

// batchProducts upserts up to loyalty.MaxProductBatch products by SKU in
// one transaction; each product's body is read as POST /products reads
// one, its errors named by its place (products.3.product_sku).
func (s *Server) batchProducts(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var body productBatchInput
	if err := decodeBodyUpTo(r, &body, maxBatchBody); err != nil {
		return err
	}
	if body.Products == nil {
		return loyalty.Invalid("products", "The products field is required: an array of products, each with its product_sku.")
	}
	in := make([]loyalty.ProductInput, len(body.Products))
	if len(body.Products) <= loyalty.MaxProductBatch {
		v := loyalty.Validation{}
		for i, raw := range body.Products {
			var e *loyalty.Error
			if err := decodeJSON(raw, &in[i]); errors.As(err, &e) && e.Code == loyalty.EInvalid {
				for f, msgs := range e.Fields {
					v["products."+strconv.Itoa(i)+"."+f] = append(v["products."+strconv.Itoa(i)+"."+f], msgs...)
				}
			} else if err != nil {
				return loyalty.Invalid("products."+strconv.Itoa(i), "Each product must be a JSON object.")
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
	}
	res, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, "Products: a batch of "+strconv.Itoa(len(in)), func(svc loyalty.Services) (loyalty.BatchResult, error) {
		return svc.Products.Batch(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	data, created := make([]productJSON, len(res.Products)), 0
	for i, p := range res.Products {
		data[i] = toProductJSON(p)
		if res.Created[i] {
			created++
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data,
		"meta": map[string]int{"created": created, "updated": len(data) - created}})
	return nil
}

// categoryJSON is a product category.
type categoryJSON struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

func toCategoryJSON(c loyalty.ProductCategory) categoryJSON {
	return categoryJSON{ID: c.ID, Name: c.Name, CreatedAt: loyalty.FormatTime(c.CreatedAt), UpdatedAt: loyalty.FormatTime(c.UpdatedAt)}
}

func (s *Server) listCategories(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.ProductCategoryListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Products.Categories(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]categoryJSON, len(list))
	for i, c := range list {
		data[i] = toCategoryJSON(c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("product-categories", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) getCategory(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	c, err := rc.svc.Products.Category(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toCategoryJSON(c)})
	return nil
}

// saveCategory creates a category (POST, no id) or renames one (PUT).
func (s *Server) saveCategory(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.CategoryInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	c, err := auditedOf(s, r, rc, saved(r.PathValue("id")), namedOrRead("Product category", in.Name, r.PathValue("id"), func() (string, error) {
		c, err := rc.svc.Products.Category(r.Context(), tenant(rc), r.PathValue("id"))
		return c.Name, err
	}), func(svc loyalty.Services) (loyalty.ProductCategory, error) {
		return svc.Products.SaveCategory(r.Context(), tenant(rc), r.PathValue("id"), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toCategoryJSON(c)})
	return nil
}

func (s *Server) deleteCategory(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Product category", nameOf(func() (string, error) {
		c, err := rc.svc.Products.Category(r.Context(), tenant(rc), r.PathValue("id"))
		return c.Name, err
	}), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.Products.DeleteCategory(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// nullID is an id, or null for 0.
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// dataJSON is a reply's {data: …}.
type dataJSON[T any] struct {
	Data T `json:"data"`
}
