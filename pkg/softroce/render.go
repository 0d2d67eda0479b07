package softroce

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Render writes the soft-RoCE devices among links as a table (NAME,
// NETDEV, STATE; "-" for what is unknown), or a line saying there are
// none.
func Render(w io.Writer, links []Link) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	n := 0
	for _, l := range links {
		if l.Type != TypeRXE {
			continue
		}
		if n == 0 {
			fmt.Fprintln(tw, "NAME\tNETDEV\tSTATE")
		}
		n++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Name, orDash(l.Netdev), orDash(l.State))
	}
	if n == 0 {
		fmt.Fprintln(tw, "no soft-RoCE devices")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the device table: %w", err)
	}
	return nil
}

// WriteUp creates a soft-RoCE device as [Up] does and writes a line
// saying so to w.
func WriteUp(w io.Writer, name, netdev string) error {
	l, err := Up(name, netdev)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "created %s on %s (port state %s)\n", l.Name, l.Netdev, orDash(l.State))
	return nil
}

// WriteDown deletes a soft-RoCE device as [Down] does and writes a line
// saying so to w.
func WriteDown(w io.Writer, name string) error {
	if name == "" {
		name = DefaultName
	}
	if err := Down(name); err != nil {
		return err
	}
	fmt.Fprintf(w, "deleted %s\n", name)
	return nil
}

// WriteStatus writes the soft-RoCE devices to w as [Render] does.
func WriteStatus(w io.Writer) error {
	links, err := Status()
	if err != nil {
		return err
	}
	return Render(w, links)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
