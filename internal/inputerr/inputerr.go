// Package inputerr marks the errors of library code that the user's
// input caused (a path, a flag's value, a label), so that a command can
// tell them from failures (rdma-bench exits 2 on them) without the
// library knowing the command's exit codes.
package inputerr

import (
	"errors"
	"fmt"
)

// ErrBadInput is what errors.Is finds in an error made by [New].
var ErrBadInput = errors.New("bad input")

// inputError is an error about the input; its message is the error's own.
type inputError struct{ err error }

func (e *inputError) Error() string        { return e.err.Error() }
func (e *inputError) Unwrap() error        { return e.err }
func (e *inputError) Is(target error) bool { return target == ErrBadInput }

// New is fmt.Errorf marked as caused by the input.
func New(format string, a ...any) error {
	return &inputError{err: fmt.Errorf(format, a...)}
}

// Wrap marks err as caused by the input, its message unchanged; nil
// stays nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err: err}
}

// Is says whether err, or an error it wraps, was caused by the input.
func Is(err error) bool { return errors.Is(err, ErrBadInput) }
