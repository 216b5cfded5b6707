package console

import (
	"context"
	"io"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The console's imports: the owner and managers upload, preview, start
// and follow imports; the upload and the start are in the audit log.

// Imports lists the actor's business's imports, newest first.
func (d *CustomerDesk) Imports(ctx context.Context, a loyalty.Actor) ([]loyalty.Import, error) {
	b, err := d.importer(ctx, a)
	if err != nil {
		return nil, err
	}
	return d.on(b).Imports.List(ctx, b, 0, 50)
}

// importer checks the actor may import, and reads its business.
func (d *CustomerDesk) importer(ctx context.Context, a loyalty.Actor) (loyalty.Business, error) {
	if err := a.Require(loyalty.PermManage); err != nil {
		return loyalty.Business{}, err
	}
	return d.business(ctx, a)
}

// UploadImport receives and previews a file (ImportService.Upload).
func (d *CustomerDesk) UploadImport(ctx context.Context, a loyalty.Actor, in loyalty.ImportUpload, file io.Reader) (loyalty.Import, error) {
	b, err := d.importer(ctx, a)
	if err != nil {
		return loyalty.Import{}, err
	}
	in.By, in.Guess = a.Email, true
	var im loyalty.Import
	err = loyalty.Audited(a, loyalty.AuditImportUploaded, in.FileName, nil, map[string]string{"type": in.Kind}, func(r *loyalty.AuditRecord) error {
		var err error
		im, err = d.on(b).AuditedBy(r).Imports.Upload(ctx, b, in, file)
		return err
	})
	return im, err
}

// PreviewImport returns an import with its columns, first rows and rows in error.
func (d *CustomerDesk) PreviewImport(ctx context.Context, a loyalty.Actor, id int64) (loyalty.ImportPreview, error) {
	b, err := d.importer(ctx, a)
	if err != nil {
		return loyalty.ImportPreview{}, err
	}
	return d.on(b).Imports.Preview(ctx, b, id)
}

// GetImport returns an import, without its preview: where it stands.
func (d *CustomerDesk) GetImport(ctx context.Context, a loyalty.Actor, id int64) (loyalty.Import, error) {
	b, err := d.importer(ctx, a)
	if err != nil {
		return loyalty.Import{}, err
	}
	return d.on(b).Imports.Get(ctx, b, id)
}

// MapImport reads an uploaded import again through the columns' fields
// chosen (ImportService.Map), with the choice in the audit log.
func (d *CustomerDesk) MapImport(ctx context.Context, a loyalty.Actor, id int64, chosen []string) (loyalty.Import, error) {
	b, err := d.importer(ctx, a)
	if err != nil {
		return loyalty.Import{}, err
	}
	p, err := d.on(b).Imports.Preview(ctx, b, id)
	if err != nil {
		return loyalty.Import{}, err
	}
	after := loyalty.ImportMapping{}
	for i, h := range p.Header {
		if i < len(chosen) {
			after[loyalty.ImportColumnKey(h)] = chosen[i]
		}
	}
	var im loyalty.Import
	err = loyalty.Audited(a, loyalty.AuditImportMapped, "Import #"+strconv.FormatInt(id, 10), nil, loyalty.MappingText(p.Header, after), func(r *loyalty.AuditRecord) error {
		var err error
		im, err = d.on(b).AuditedBy(r).Imports.Map(ctx, b, id, chosen)
		return err
	})
	return im, err
}

// StartImport starts an uploaded import.
func (d *CustomerDesk) StartImport(ctx context.Context, a loyalty.Actor, id int64) (loyalty.Import, error) {
	b, err := d.importer(ctx, a)
	if err != nil {
		return loyalty.Import{}, err
	}
	var im loyalty.Import
	err = loyalty.Audited(a, loyalty.AuditImportStarted, "Import #"+strconv.FormatInt(id, 10), nil, nil, func(r *loyalty.AuditRecord) error {
		var err error
		im, err = d.on(b).AuditedBy(r).Imports.Start(ctx, b, id)
		return err
	})
	return im, err
}

// EachImportError calls fn for each row in error of an import, in order.
func (d *CustomerDesk) EachImportError(ctx context.Context, a loyalty.Actor, id int64, fn func(loyalty.ImportRowError) error) (loyalty.Import, error) {
	b, err := d.importer(ctx, a)
	if err != nil {
		return loyalty.Import{}, err
	}
	return d.on(b).Imports.EachError(ctx, b, id, fn)
}
