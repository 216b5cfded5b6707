package loyalty

import (
	"context"
	"strings"
	"time"
)

// Product is an item a business sells (the reference's /products): what
// a basket's lines name by SKU, and what rules over products, categories
// and tags match.
type Product struct {
	ID          int64
	BusinessID  string
	SKU         string // "" for none; else one live product of the business has it
	Title       string
	Description string
	Texts       []CatalogText // per language; see CatalogText
	Images      []Image
	ActualPrice Money // the price it sells at
	RealPrice   Money // its list price
	Promote     bool  // promote_flag
	CategoryID  int64 // 0: uncategorised
	Tags        []string
	BranchIDs   []string // empty: every branch
	Deleted     bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// ProductCategory groups products for rules and reports.
type ProductCategory struct {
	ID         int64
	BusinessID string
	Name       string
	Deleted    bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Limits of products.
const (
	minSKU          = 3
	maxSKU          = 100
	maxTags         = 20
	maxTag          = 50
	maxCategoryName = 100
	// MaxProductBatch is how many products one POST /products/batch takes.
	MaxProductBatch = 1000
)

// ProductInput is the body of a product create or update: the reference's
// fields (product_sku, product_actual_price, product_real_price,
// promote_flag, product_languages, available_at_branches, images), our
// title and description (or the English entry of product_languages), and
// category_id and tags. Every field records whether it was sent.
type ProductInput struct {
	Title               Opt[string]                 `json:"title"`
	Description         Opt[string]                 `json:"description"`
	Images              Opt[[]Image]                `json:"images"`
	SKU                 Opt[string]                 `json:"product_sku"`
	ActualPrice         Opt[Money]                  `json:"product_actual_price"`
	RealPrice           Opt[Money]                  `json:"product_real_price"`
	PromoteFlag         Opt[int]                    `json:"promote_flag"`
	ProductLanguages    Opt[[]ProductLanguageInput] `json:"product_languages"`
	AvailableAtBranches Opt[[]StringRef]            `json:"available_at_branches"`
	Branches            Opt[[]string]               `json:"branches"`
	CategoryID          Opt[int64]                  `json:"category_id"`
	Tags                Opt[[]string]               `json:"tags"`
}

// ProductLanguageInput is one entry of product_languages.
type ProductLanguageInput struct {
	LanguageID      Opt[int]    `json:"language_id"`
	Title           Opt[string] `json:"product_title"`
	Description     Opt[string] `json:"product_description"`
	TermsConditions Opt[string] `json:"product_terms_conditions"`
	Link            Opt[string] `json:"product_link"`
}

// productTextNames are the wire names of a product_languages entry.
var productTextNames = textNames{"product_title", "product_description", "product_terms_conditions", "product_link", ""}

// texts returns product_languages as the entries applyTexts reads.
func (in *ProductInput) texts() []textInput {
	out := make([]textInput, len(in.ProductLanguages.V))
	for i, l := range in.ProductLanguages.V {
		out[i] = textInput{languageID: l.LanguageID, title: l.Title, description: l.Description, terms: l.TermsConditions,
			link: l.Link, names: productTextNames}
	}
	return out
}

// ProductListSpec says how GET /products is paged and filtered.
var ProductListSpec = ListSpec{
	Fields: map[string]FilterKind{"product_sku": KindString, "category_id": KindInt, "created_at": KindTime,
		"updated_at": KindTime},
	DefaultPerPage: 100,
}

// ProductCategoryListSpec says how GET /product-categories is paged.
var ProductCategoryListSpec = ListSpec{DefaultPerPage: 100}

// ProductService holds the rules of a business's products and categories.
type ProductService struct {
	Store Store
}

// Get returns one live product.
func (s *ProductService) Get(ctx context.Context, b Business, id string) (Product, error) {
	pid, err := intID("product", id)
	if err != nil {
		return Product{}, err
	}
	p, err := s.Store.Product(ctx, b.ID, pid)
	if err == nil && p.Deleted {
		err = productNotFound()
	}
	return p, err
}

// List pages the live products, oldest first.
func (s *ProductService) List(ctx context.Context, b Business, q ListQuery) ([]Product, int, error) {
	return s.Store.Products(ctx, b.ID, q)
}

// Search pages the live products whose name or SKU holds text, case
// aside, oldest first; all of them when text is blank.
func (s *ProductService) Search(ctx context.Context, b Business, text string, q ListQuery) ([]Product, int, error) {
	if text = strings.ToLower(strings.TrimSpace(text)); text == "" {
		return s.Store.Products(ctx, b.ID, q)
	}
	return s.Store.SearchProducts(ctx, b.ID, text, q)
}

// Create adds a product. It needs a title (title, or the English entry of
// product_languages).
func (s *ProductService) Create(ctx context.Context, b Business, in ProductInput) (Product, error) {
	p := Product{BusinessID: b.ID, Images: []Image{}, Tags: []string{}}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		p.CreatedAt, p.UpdatedAt = now, now
		v := Validation{}
		if err := applyProduct(ctx, tx, v, b, "", &in, &p, true); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		return tx.InsertProduct(ctx, &p)
	})
	return p, err
}

// Update changes the fields sent.
func (s *ProductService) Update(ctx context.Context, b Business, id string, in ProductInput) (Product, error) {
	pid, err := intID("product", id)
	if err != nil {
		return Product{}, err
	}
	var out Product
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		p, err := liveProduct(ctx, tx, b.ID, pid)
		if err != nil {
			return err
		}
		v := Validation{}
		if err := applyProduct(ctx, tx, v, b, "", &in, &p, false); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		p.UpdatedAt = tx.Now()
		out = p
		return tx.UpdateProduct(ctx, &p)
	})
	return out, err
}

// Delete removes a product from every list; its SKU is free again.
func (s *ProductService) Delete(ctx context.Context, b Business, id string) error {
	pid, err := intID("product", id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		p, err := liveProduct(ctx, tx, b.ID, pid)
		if err != nil {
			return err
		}
		p.Deleted, p.UpdatedAt = true, tx.Now()
		return tx.UpdateProduct(ctx, &p)
	})
}

// liveProduct reads a product that is not deleted, inside a transaction.
func liveProduct(ctx context.Context, tx Tx, businessID string, id int64) (Product, error) {
	p, err := tx.Product(ctx, businessID, id)
	if err == nil && p.Deleted {
		err = productNotFound()
	}
	return p, err
}

func productNotFound() error { return Errorf(ENotFound, "Product not found.") }

// applyProduct validates in and merges it into p, adding each refusal to
// v named with prefix (a batch's "products.3."); it returns only errors
// of the store.
func applyProduct(ctx context.Context, tx Tx, v Validation, b Business, prefix string, in *ProductInput, p *Product, create bool) error {
	w := Validation{}
	texts := in.texts()
	if t, ok := in.Title.Value(); ok {
		switch t = strings.TrimSpace(t); {
		case t == "":
			w.Add("title", "The title may not be empty.")
		case len(t) > maxTitle:
			w.Add("title", "The title may not be greater than "+itoa(maxTitle)+" characters.")
		default:
			p.Title = t
		}
	} else if in.Title.Null || create && !(in.ProductLanguages.Set && hasEnglishTitle(texts)) {
		w.Add("title", "The title field is required: title, or product_languages with English (language_id 1).")
	}
	if d, ok := in.Description.Value(); ok {
		if d = strings.TrimSpace(d); len(d) > maxDescription {
			w.Add("description", "The description may not be greater than "+itoa(maxDescription)+" characters.")
		} else {
			p.Description = d
		}
	}
	if in.ProductLanguages.Set {
		applyTexts(w, "product_languages", texts, catalogTexts{&p.Texts, &p.Title, &p.Description, in.Title.Set, in.Description.Set}, create)
	}
	syncEnglish(p.Texts, p.Title, p.Description)
	if in.Images.Set {
		p.Images = checkImages(w, in.Images.V)
	}
	if in.SKU.Set {
		sku := strings.TrimSpace(in.SKU.V)
		switch {
		case in.SKU.Null || sku == "":
			p.SKU = ""
		case len(sku) < minSKU || len(sku) > maxSKU:
			w.Add("product_sku", "The product_sku must be "+itoa(minSKU)+" to "+itoa(maxSKU)+" characters.")
		case strings.ContainsAny(sku, "\t\r\n"):
			w.Add("product_sku", "The product_sku may not hold tabs or line breaks.")
		case sku == p.SKU:
			// Its own SKU already (or, in a batch, one planUpsert found free).
		default:
			if other, err := tx.ProductBySKU(ctx, b.ID, sku); err == nil && other.ID != p.ID {
				w.Add("product_sku", "Another product has the SKU "+sku+" (#"+itoa(int(other.ID))+").")
			} else if err != nil && ErrorCode(err) != ENotFound {
				return err
			}
			p.SKU = sku
		}
	}
	setMoney(w, "product_actual_price", in.ActualPrice, &p.ActualPrice)
	setMoney(w, "product_real_price", in.RealPrice, &p.RealPrice)
	b.checkSent(w, map[string]Opt[Money]{"product_actual_price": in.ActualPrice, "product_real_price": in.RealPrice})
	if in.PromoteFlag.Set {
		if f, ok := in.PromoteFlag.Value(); ok && (f == 0 || f == 1) {
			p.Promote = f == 1
		} else {
			w.Add("promote_flag", "The promote_flag must be 0 or 1.")
		}
	}
	if in.CategoryID.Null {
		p.CategoryID = 0
	} else if id, ok := in.CategoryID.Value(); ok {
		if c, err := tx.ProductCategory(ctx, b.ID, id); ErrorCode(err) == ENotFound || (err == nil && c.Deleted) {
			w.Add("category_id", "The category does not exist.")
		} else if err != nil {
			return err
		} else {
			p.CategoryID = id
		}
	}
	if in.Tags.Set {
		p.Tags = checkTags(w, in.Tags.V)
	}
	if err := applyBranches(ctx, tx, w, b.ID, in.Branches, in.AvailableAtBranches, &p.BranchIDs); err != nil {
		return err
	}
	for f, msgs := range w {
		v[prefix+f] = append(v[prefix+f], msgs...)
	}
	return nil
}

// checkTags trims the tags, drops repeats (case aside) and refuses empty
// or long ones.
func checkTags(v Validation, tags []string) []string {
	if len(tags) > maxTags {
		v.Add("tags", "At most "+itoa(maxTags)+" tags may be given.")
		return nil
	}
	out := []string{}
	seen := map[string]bool{}
	for i, t := range tags {
		t = strings.TrimSpace(t)
		switch {
		case t == "" || len(t) > maxTag:
			v.Add("tags."+itoa(i), "A tag must be 1 to "+itoa(maxTag)+" characters.")
		case !seen[strings.ToLower(t)]:
			seen[strings.ToLower(t)] = true
			out = append(out, t)
		}
	}
	return out
}
