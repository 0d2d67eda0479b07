package compare

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  *junitText      `xml:"system-out"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string       `xml:"name,attr"`
	Classname string       `xml:"classname,attr"`
	Time      string       `xml:"time,attr"`
	Failure   *junitResult `xml:"failure"`
	Skipped   *junitResult `xml:"skipped"`
	SystemOut *junitText   `xml:"system-out"`
}

// junitText is element text kept as CDATA, so its lines stay readable.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML (valid against the JUnit 10
// schema that Jenkins' xunit plugin and most CI systems read): one
// testsuite named by the title, whose properties carry the labels, the
// settings, the thresholds and, as "differs.FIELD", the metadata that
// differs; then one testcase per point and metric, in input order, with
// the point as classname and the metric as name. A gate failure is a
// <failure type="regression"> whose message carries the figures; an
// inconclusive row is <skipped> with the reason, or a <failure
// type="inconclusive"> when the gate is strict; every testcase's
// system-out holds its evidence, and the suite's the summary and the
// notes.
func WriteJUnit(w io.Writer, r Comparison) error {
	title := r.Title
	if title == "" {
		title = "compare"
	}
	suite := junitSuite{Name: title, Time: "0", SystemOut: &junitText{strings.Join(append([]string{r.Summary()}, r.Notes()...), "\n")}}
	suite.Properties = []junitProperty{{"base", r.BaseLabel}, {"new", r.NewLabel}, {"settings", r.settings()}}
	for _, m := range r.Meta {
		suite.Properties = append(suite.Properties, junitProperty{"differs." + m.Field, m.Base + " -> " + m.New})
	}
	for _, g := range r.Gate.Rows {
		c := junitCase{Name: g.Metric.Name, Classname: g.Point, Time: "0", SystemOut: &junitText{evidence(g)}}
		switch {
		case g.Outcome == OutcomeFail:
			c.Failure = &junitResult{Message: g.Message, Type: "regression", Text: g.Reason}
		case g.Outcome == OutcomeInconclusive && r.Gate.Strict:
			c.Failure = &junitResult{Message: g.Message, Type: "inconclusive", Text: g.Reason}
		case g.Outcome == OutcomeInconclusive:
			c.Skipped = &junitResult{Message: g.Message, Type: "inconclusive"}
		case g.Outcome == OutcomeNotGated && g.Verdict == Inconclusive:
			c.Skipped = &junitResult{Message: g.Reason, Type: "inconclusive"}
		}
		if c.Failure != nil {
			suite.Failures++
		}
		if c.Skipped != nil {
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: title, Tests: suite.Tests, Failures: suite.Failures, Time: "0", Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return nil
}

// evidence is a row's figures, verdict and outcome, one per line.
func evidence(g GateRow) string {
	return fmt.Sprintf("%s (%s)\nbase: %s\nnew: %s\nchange: %s, %s\nverdict: %s: %s\ngate: %s: %s",
		g.Metric.Name, g.Metric.Unit, sideCell(g.Base), sideCell(g.New), changeCell(g.Row), fmtP(g.P),
		g.Verdict, g.Reason, gateCell(g), g.Message)
}
