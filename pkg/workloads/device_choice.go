package workloads

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/softroce"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// ChooseDevice is the device a side measures its RDMA runs on, and why
// ("" when there is none): the one -d
// names; else the one `rdma-bench softroce up` made (a hosted CI runner's
// own NIC is an RDMA device too, and libibverbs may list it first); else
// the only one; else the first, saying which others there were.
func ChooseDevice(named string) (name, why string) {
	names, err := verbs.DeviceNames()
	if err != nil {
		names = nil // Open says what is wrong
	}
	return pickDevice(named, names, softroce.Made())
}

// pickDevice is ChooseDevice's rule over the devices present (in
// libibverbs' order) and the device softroce up made ("" for none).
func pickDevice(named string, names []string, made string) (string, string) {
	switch {
	case named != "":
		return named, "named by -d"
	case made != "" && slices.Contains(names, made):
		if len(names) == 1 {
			return made, "made by rdma-bench softroce up, the only RDMA device"
		}
		return made, fmt.Sprintf("made by rdma-bench softroce up, of %d RDMA devices (%s); -d names another", len(names), strings.Join(names, ", "))
	case len(names) == 1:
		return names[0], "the only RDMA device"
	case len(names) > 1:
		return names[0], fmt.Sprintf("the first of %d RDMA devices (%s); -d names another", len(names), strings.Join(names, ", "))
	}
	return "", ""
}
