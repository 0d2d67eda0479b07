package plot

// reportHTML is the page template: inline CSS, no script, nothing
// fetched. A chart keeps its natural size (720 pt = 960 px) and scales
// down, keeping its proportions, in a narrower window; a table wider than
// the page scrolls sideways, its cells unbroken.
const reportHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arimo, Arial, Helvetica, sans-serif; color: #1a1a1a;
  margin: 1.5em auto; max-width: 1000px; padding: 0 1em; line-height: 1.4; background: #fff; }
h1 { font-size: 1.6em; margin: 0 0 .4em; }
h2 { font-size: 1.25em; margin: 1.6em 0 .5em; padding-top: .4em; border-top: 1px solid #ddd; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .9em; }
div.wide { overflow-x: auto; }
td { white-space: nowrap; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
caption { text-align: left; font-weight: bold; padding: .2em 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.note { font-size: .85em; color: #444; margin: -.8em 0 1.2em; }
table.meta th { background: none; border: none; color: #555; font-weight: normal; padding-left: 0; }
table.meta td { border: none; }
nav ol { margin: .4em 0 1em; padding-left: 1.4em; }
figure { margin: .8em 0 1.4em; }
figure svg { display: block; max-width: 100%; height: auto; }
p.note { margin: .4em 0; }
@media print { figure, table { break-inside: avoid; } body { max-width: none; } }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{- if .Meta}}
<table class="meta">
{{- range .Meta}}
<tr><th scope="row">{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- if gt (len .Sections) 1}}
<nav><ol>
{{- range $i, $s := .Sections}}
<li><a href="#section-{{$i}}">{{$s.Title}}</a></li>
{{- end}}
</ol></nav>
{{- end}}
{{- range $i, $s := .Sections}}
<section id="section-{{$i}}">
<h2>{{$s.Title}}</h2>
{{- range $s.Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{- range index $.Figures $i}}
<figure>{{.}}</figure>
{{- end}}
{{- range $s.Tables}}
<div class="wide"><table>
{{- if .Caption}}
<caption>{{.Caption}}</caption>
{{- end}}
{{- if .Header}}
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
{{- end}}
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td{{if numeric .}} class="num"{{end}}>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{- end}}
</section>
{{- end}}
</body>
</html>
`
