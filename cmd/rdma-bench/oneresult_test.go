package main

import (
	"encoding/json"
	"testing"
)

// measured is what the device tests read of a run's one result.
type measured struct {
	Validation string `json:"validation"`
	Ops        uint64 `json:"ops"`
	Params     struct {
		Atomic      string `json:"atomic"`
		Bidir       bool   `json:"bidir"`
		PostList    int    `json:"post_list"`
		InlineBytes int    `json:"inline_bytes"`
		PostAPI     string `json:"post_api"`
		SRQ         bool   `json:"srq"`
		PageBytes   int    `json:"page_bytes"`
	} `json:"params"`
}

// oneResult is the one result of a successful run with -o json.
func oneResult(t *testing.T, r result) measured {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Results []measured `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Results) != 1 {
		t.Fatalf("want one result: %v\n%s", err, r.stdout)
	}
	return doc.Results[0]
}
