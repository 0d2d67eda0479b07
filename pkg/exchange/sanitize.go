package exchange

import (
	"strconv"
	"strings"
	"unicode"
)

// maxPeerText bounds peer-supplied text that reaches a message or a log.
const maxPeerText = 512

// Sanitize makes text from a peer safe to print: control characters
// (escape sequences, line breaks that would forge log lines) and invalid
// UTF-8 are escaped, and the text is cut to a length that fits a line.
func Sanitize(s string) string {
	if len(s) > maxPeerText {
		s = s[:maxPeerText] + "..."
	}
	if strings.IndexFunc(s, func(r rune) bool { return r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ' }) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}
