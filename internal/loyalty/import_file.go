package loyalty

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"slices"
)

// chunkWriter stores a file as it is received, one chunk at a time, and
// hashes it; it never holds more than a chunk.
type chunkWriter struct {
	ctx   context.Context
	store ImportStore
	id    int64
	buf   []byte
	seq   int
	size  int64
	hash  hash.Hash
}

func newChunkWriter(ctx context.Context, store ImportStore, id int64) *chunkWriter {
	return &chunkWriter{ctx: ctx, store: store, id: id, buf: make([]byte, 0, ImportChunkSize), hash: sha256.New()}
}

// errTooLarge is the refusal of a file over MaxImportBytes.
var errTooLarge = Invalid("file", "The file may not be larger than "+itoa(MaxImportBytes>>20)+" MiB; split it in several imports.")

func (w *chunkWriter) Write(p []byte) (int, error) {
	if w.size+int64(len(p)) > MaxImportBytes {
		return 0, errTooLarge
	}
	w.size += int64(len(p))
	w.hash.Write(p)
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), ImportChunkSize-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == ImportChunkSize {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// flush stores the chunk under way, if it holds anything.
func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if err := w.store.AddImportChunk(w.ctx, w.id, w.seq, w.buf); err != nil {
		return err
	}
	w.seq++
	w.buf = w.buf[:0]
	return nil
}

func (w *chunkWriter) sum() string { return hex.EncodeToString(w.hash.Sum(nil)) }

// chunkReader reads a stored file back, one chunk at a time.
type chunkReader struct {
	ctx   context.Context
	store ImportStore
	id    int64
	n     int // chunks
	seq   int
	buf   []byte
}

func newChunkReader(ctx context.Context, store ImportStore, im Import) *chunkReader {
	return &chunkReader{ctx: ctx, store: store, id: im.ID, n: im.Chunks}
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.seq >= r.n {
			return 0, io.EOF
		}
		data, err := r.store.ImportChunk(r.ctx, r.id, r.seq)
		if err != nil {
			return 0, err
		}
		r.seq++
		r.buf = data
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// rowReader reads an import file's records and numbers them as a
// spreadsheet shows them, the header being row 1. The preview and the run
// read a file through it alike, so a row's number (and its key) is the
// same in both.
type rowReader struct {
	csv      *csv.Reader
	header   []string     // the first row, as written
	cols     []*ImportCol // the field each column fills, nil when none
	unmapped []string     // the columns the mapping has no choice for
	num      int64
}

// newRowReader reads the header of src and maps its columns through m
// (nil: the API's names; see importHeader).
func newRowReader(kind string, m ImportMapping, src io.Reader) (*rowReader, error) {
	r, err := openRows(src)
	if err != nil {
		return nil, err
	}
	return r, r.mapHeader(kind, m)
}

// openRows reads the header of src, leaving its columns unmapped.
func openRows(src io.Reader) (*rowReader, error) {
	r := csv.NewReader(src)
	r.FieldsPerRecord = -1 // a row's cells are counted against the header by readRow
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, Invalid("file", "The file is empty: its first row must name the columns.")
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return nil, Invalid("file", "The first row cannot be read as CSV: "+pe.Err.Error()+".")
	} else if err != nil {
		return nil, err
	}
	return &rowReader{csv: r, header: slices.Clone(header), num: 1}, nil
}

// mapHeader maps the header's columns to fields through m.
func (r *rowReader) mapHeader(kind string, m ImportMapping) error {
	var err error
	r.cols, r.unmapped, err = importHeader(kind, r.header, m)
	return err
}

// next returns the next record and its number, with the row's error
// when it is not valid CSV; err is io.EOF at the end, or a failure to
// read the file. The record is reused by the following call.
func (r *rowReader) next() (rec []string, num int64, rowErr, err error) {
	rec, err = r.csv.Read()
	if err == io.EOF {
		return nil, 0, nil, io.EOF
	}
	r.num++
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return nil, r.num, Errorf(EInvalid, "The row is not valid CSV: %s.", pe.Err.Error()), nil
	}
	return rec, r.num, nil, err
}
