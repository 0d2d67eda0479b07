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
	props := []JUnitProperty{{"base", r.BaseLabel}, {"new", r.NewLabel}, {"settings", r.settings()}}
	for _, m := range r.Meta {
		props = append(props, JUnitProperty{"differs." + m.Field, m.Base + " -> " + m.New})
	}
	var cases []JUnitCase
	for _, g := range r.Gate.Rows {
		c := JUnitCase{Name: g.Metric.Name, Classname: g.Point, Out: evidence(g)}
		switch {
		case g.Outcome == OutcomeFail:
			c.Failure = &JUnitResult{Message: g.Message, Type: "regression", Text: g.Reason}
		case g.Outcome == OutcomeInconclusive && r.Gate.Strict:
			c.Failure = &JUnitResult{Message: g.Message, Type: "inconclusive", Text: g.Reason}
		case g.Outcome == OutcomeInconclusive:
			c.Skipped = &JUnitResult{Message: g.Message, Type: "inconclusive"}
		case g.Outcome == OutcomeNotGated && g.Verdict == Inconclusive:
			c.Skipped = &JUnitResult{Message: g.Reason, Type: "inconclusive"}
		}
		cases = append(cases, c)
	}
	return WriteJUnitSuite(w, title, props, strings.Join(append([]string{r.Summary()}, r.Notes()...), "\n"), cases)
}

// JUnitProperty is a suite's name=value property.
type JUnitProperty struct{ Name, Value string }

// JUnitResult is a testcase's failure or skip: its message, type and text.
type JUnitResult struct{ Message, Type, Text string }

// JUnitCase is one testcase: Failure or Skipped set (or neither, a pass),
// Out its evidence (system-out).
type JUnitCase struct {
	Name, Classname string
	Failure         *JUnitResult
	Skipped         *JUnitResult
	Out             string
}

// WriteJUnitSuite writes one testsuite named title, with its properties,
// its system-out and its cases, as JUnit XML: the one writer of both
// compare's and the gate's JUnit, so both read alike in a CI.
func WriteJUnitSuite(w io.Writer, title string, props []JUnitProperty, out string, cases []JUnitCase) error {
	suite := junitSuite{Name: title, Time: "0", SystemOut: &junitText{out}}
	for _, p := range props {
		suite.Properties = append(suite.Properties, junitProperty(p))
	}
	for _, c := range cases {
		jc := junitCase{Name: c.Name, Classname: c.Classname, Time: "0", SystemOut: &junitText{c.Out}}
		if c.Failure != nil {
			jc.Failure = &junitResult{Message: c.Failure.Message, Type: c.Failure.Type, Text: c.Failure.Text}
			suite.Failures++
		}
		if c.Skipped != nil {
			jc.Skipped = &junitResult{Message: c.Skipped.Message, Type: c.Skipped.Type, Text: c.Skipped.Text}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, jc)
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
