//go:build !linux

package counters

import (
	"errors"
	"fmt"
)

// QueryNetlink reports that RDMA netlink exists only on Linux.
func QueryNetlink(device string, port int) (map[string]uint64, error) {
	return nil, fmt.Errorf("rdma netlink statistic of %s/%d: %w", device, port, errors.ErrUnsupported)
}
