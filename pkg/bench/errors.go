package bench

import "fmt"

// InputError is an error caused by what the user typed (a flag's value,
// an argument, a point the device cannot run): a command exits 2 on it.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// inputError builds an *InputError.
func inputError(format string, a ...any) error {
	return &InputError{msg: fmt.Sprintf(format, a...)}
}
