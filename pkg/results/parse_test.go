package results

import (
	"context"
	"os"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Parse decodes a document as pkg/document does.
var Parse = document.Parse

// ReadFile reads and checks one document, its Path the file's name.
func ReadFile(path string) (*document.Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := Parse(b)
	if err != nil {
		return nil, err
	}
	d.Path = path
	return d, nil
}

// Load reads documents for analysis, to the end.
func Load(paths ...string) ([]*document.Document, error) {
	return LoadNoting(context.Background(), nil, paths...)
}
