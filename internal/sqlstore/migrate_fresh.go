package sqlstore

import (
	"bytes"
	"io"
	"io/fs"
)

// plainIndexes reads PostgreSQL migrations with their CONCURRENTLY
// dropped (CREATE [UNIQUE] INDEX, DROP INDEX), for a database whose
// tables the same run creates empty (DB.Migrate): on an empty table the
// plain statement holds nothing for long, and does not wait, as
// CONCURRENTLY does, for every older transaction of the database. The
// migrations keep their NO TRANSACTION mark, under which both forms run.
func plainIndexes(fsys fs.FS) fs.FS { return plainFS{fsys} }

type plainFS struct{ fs.FS }

var concurrently = [][2][]byte{
	{[]byte("CREATE INDEX CONCURRENTLY"), []byte("CREATE INDEX")},
	{[]byte("CREATE UNIQUE INDEX CONCURRENTLY"), []byte("CREATE UNIQUE INDEX")},
	{[]byte("DROP INDEX CONCURRENTLY"), []byte("DROP INDEX")},
}

// Open opens a migration with its indexes built plainly.
func (p plainFS) Open(name string) (fs.File, error) {
	f, err := p.FS.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return f, err
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	for _, r := range concurrently {
		b = bytes.ReplaceAll(b, r[0], r[1])
	}
	return &plainFile{Reader: bytes.NewReader(b), info: sizedInfo{st, int64(len(b))}}, nil
}

// ReadDir lists a directory as the wrapped file system does.
func (p plainFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(p.FS, name) }

type plainFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (f *plainFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *plainFile) Close() error               { return nil }

// sizedInfo is a file's information with the size of its rewritten text.
type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (i sizedInfo) Size() int64 { return i.size }
