package main

import (
	"context"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
	"github.com/rdma-bench/rdma-bench/pkg/workloads/tcp"
)

// allWorkloads lists the RDMA workloads and the TCP baseline.
func allWorkloads() string {
	return strings.Join(append(workloads.Names(), tcp.Lat, tcp.Bw), ", ")
}

// point is one measurement to make: a workload at one size.
type point struct {
	workload string
	size     int
	more     bool // another RDMA point follows on the same server
}

// check validates a point before anything is created.
func (b *benchFlags) check(p point) error {
	if isTCP(p.workload) {
		c := b.tcpConfig(p.workload, p.size)
		if err := c.Normalize(); err != nil {
			return usageError("%v", err)
		}
		return nil
	}
	c := b.cfg
	c.Workload, c.Size = p.workload, p.size
	c.Duration, _ = b.duration()
	if _, err := c.Normalize(); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// measure runs one point against host, or in this process when host is
// empty (loopback).
func (b *benchFlags) measure(ctx context.Context, p point, host string) (*report.Result, error) {
	if isTCP(p.workload) {
		c := b.tcpConfig(p.workload, p.size)
		if host == "" {
			return tcp.Loopback(ctx, c)
		}
		return tcp.RunClient(ctx, c, host, b.tcpPort)
	}
	c := b.cfg
	c.Workload, c.Size, c.More = p.workload, p.size, p.more
	c.Duration, _ = b.duration()
	if host == "" {
		return workloads.Loopback(ctx, c)
	}
	return workloads.RunClient(ctx, c, host, b.port)
}
