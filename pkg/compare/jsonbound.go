package compare

import (
	"bytes"
	"encoding/json"
	"math"
)

// LoBound and HiBound are the lower and upper ends of an interval of a
// change, in percent, as every document writes them: null when unbounded
// (too few runs or pairs for the confidence), since JSON has no infinity;
// null reads back as -Inf for a lower end and +Inf for an upper one.
type (
	LoBound float64
	HiBound float64
)

// MarshalJSON writes the end, null when unbounded.
func (b LoBound) MarshalJSON() ([]byte, error) { return boundJSON(float64(b)) }

// UnmarshalJSON reads the end; null is -Inf.
func (b *LoBound) UnmarshalJSON(p []byte) error { return boundFromJSON(p, (*float64)(b), math.Inf(-1)) }

// MarshalJSON writes the end, null when unbounded.
func (b HiBound) MarshalJSON() ([]byte, error) { return boundJSON(float64(b)) }

// UnmarshalJSON reads the end; null is +Inf.
func (b *HiBound) UnmarshalJSON(p []byte) error { return boundFromJSON(p, (*float64)(b), math.Inf(1)) }

func boundJSON(x float64) ([]byte, error) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return []byte("null"), nil
	}
	return json.Marshal(x)
}

func boundFromJSON(p []byte, x *float64, unbounded float64) error {
	if bytes.Equal(bytes.TrimSpace(p), []byte("null")) {
		*x = unbounded
		return nil
	}
	return json.Unmarshal(p, x)
}
