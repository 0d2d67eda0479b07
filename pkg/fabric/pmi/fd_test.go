package pmi_test

import (
	"os"
	"strconv"
	"syscall"
)

// dupFD returns a duplicate of f's descriptor as PMI_FD text; pmi.Open
// takes it over.
func dupFD(f *os.File) (string, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return "", err
	}
	return strconv.Itoa(fd), nil
}
