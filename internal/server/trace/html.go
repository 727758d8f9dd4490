package trace

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"
)

// WriteHTML writes t as one self-contained HTML page: inline CSS and
// JavaScript, the screenshots as data: URIs, nothing fetched from
// anywhere. Every text of the trace (a page's title, a console message,
// an error) is escaped by html/template: a page cannot put markup or
// script in the viewer. title heads the page (a file name).
func WriteHTML(w io.Writer, t *Trace, title string) error {
	v := view{Title: title, Notes: t.Notes, End: t.End, Agents: strings.Join(t.Header.Agents, ", ")}
	if v.Agents == "" {
		v.Agents = "every agent"
	}
	for _, s := range t.Steps {
		v.Steps = append(v.Steps, stepView(s))
	}
	if err := page().Execute(w, v); err != nil {
		return fmt.Errorf("trace html: %w", err)
	}
	return nil
}

type view struct {
	Title  string
	Agents string
	Notes  []string
	End    *End
	Steps  []stepLine
}

type stepLine struct {
	N       int
	Time    string
	Words   string // the method and target in words
	Agent   string
	Where   string // tab and origin
	Result  string
	OK      bool
	Ms      string
	Error   string
	Summary string
	Shots   []shotView
	Missing string // why an action has no screenshots
	Diff    string
	Console []string
	Failed  []string
}

type shotView struct {
	Label string
	Src   template.URL // a data: URI made here from the JPEG's bytes
	Box   template.CSS // the element's box, in % of the picture; "" when none
	W, H  int
}

func stepView(s Step) stepLine {
	c := s.Call
	l := stepLine{
		N: s.N, Time: c.Time.UTC().Format(time.TimeOnly), Words: words(s), Agent: c.Agent,
		Result: c.Result, OK: c.Result == "ok", Ms: fmt.Sprintf("%.1f ms", c.Duration),
		Error: s.Error, Summary: s.Summary, Diff: s.Diff, Console: s.Console, Failed: s.Failed,
	}
	if c.Tab != 0 {
		l.Where = fmt.Sprintf("tab %d", c.Tab)
		if c.Origin != "" {
			l.Where += " · " + c.Origin
		}
	}
	for _, sh := range []struct {
		label string
		shot  *Shot
	}{{"before", s.Before}, {"after", s.After}} {
		if sh.shot == nil || len(sh.shot.JPEG) == 0 {
			continue
		}
		v := shotView{Label: sh.label, W: sh.shot.Width, H: sh.shot.Height,
			Src: template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(sh.shot.JPEG))}
		if b := s.Box; b != nil && sh.shot.ViewW > 0 && sh.shot.ViewH > 0 {
			v.Box = template.CSS(fmt.Sprintf("left:%.3f%%;top:%.3f%%;width:%.3f%%;height:%.3f%%",
				100*b.X/sh.shot.ViewW, 100*b.Y/sh.shot.ViewH, 100*b.W/sh.shot.ViewW, 100*b.H/sh.shot.ViewH))
		}
		l.Shots = append(l.Shots, v)
	}
	if s.NoShot != "" {
		l.Missing = s.NoShot
	}
	if s.ShotsOff {
		l.Missing = "no screenshots: the trace had reached its size bound"
	}
	return l
}

// words says what a step did: "click on role=button[name=Buy]",
// "fill 5 characters into #email", "goto https://shop.example/".
func words(s Step) string {
	c := s.Call
	var b strings.Builder
	b.WriteString(c.Method)
	if c.Length != nil {
		fmt.Fprintf(&b, " %d characters", *c.Length)
	}
	if c.Key != "" {
		b.WriteString(" " + c.Key)
	}
	if c.Target != "" {
		prep := " on "
		if c.Length != nil {
			prep = " into "
		}
		b.WriteString(prep + c.Target)
	}
	if c.URL != "" {
		b.WriteString(" " + c.URL)
	}
	return b.String()
}

// page is the viewer's template, parsed on first use (nothing at the
// binary's start: cmd/egohost TestStartDoesNoWork).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("trace").Parse(pageText))
})

const pageText = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>egohost trace {{.Title}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;display:flex;height:100vh;color:#1f2328}
nav{width:22em;overflow:auto;border-right:1px solid #d0d7de;flex:none}
nav ol{list-style:none;margin:0;padding:0}
nav a{display:block;padding:.4em .6em;color:inherit;text-decoration:none;border-bottom:1px solid #eaeef2}
nav a:focus,nav a.on{background:#ddf4ff;outline:2px solid #0969da;outline-offset:-2px}
nav .err{color:#cf222e}
main{flex:1;overflow:auto;padding:1em 1.5em}
section{display:none}section.on{display:block}
.shots{display:flex;gap:1em;flex-wrap:wrap}
figure{margin:0;flex:1 1 0;min-width:16em;max-width:802px}
.shot{position:relative;border:1px solid #d0d7de}
.shot img{display:block;width:100%;height:auto}
.box{position:absolute;border:3px solid #cf222e;box-sizing:border-box;pointer-events:none}
pre{background:#f6f8fa;padding:.6em;overflow:auto;max-height:24em;white-space:pre-wrap}
.bad{color:#cf222e}.good{color:#1a7f37}
header p{margin:.2em 0;color:#59636e}
</style></head>
<body>
<nav aria-label="steps"><header style="padding:.6em"><strong>trace {{.Title}}</strong>
<p>agents: {{.Agents}}{{with .End}} · {{.Steps}} steps{{if .Dropped}} ({{.Dropped}} left out){{end}}{{end}}</p>
{{range .Notes}}<p class="bad">{{.}}</p>{{end}}
<p>← → or j k: previous, next step</p></header>
<ol>{{range .Steps}}
<li><a href="#step-{{.N}}" data-step="{{.N}}"><span{{if not .OK}} class="err"{{end}}>{{.N}}. {{.Words}}</span><br><small>{{.Time}} · {{.Agent}} · {{.Result}}</small></a></li>{{end}}
</ol></nav>
<main>{{if not .Steps}}<p>This trace has no steps.</p>{{end}}{{range .Steps}}
<section id="step-{{.N}}" class="step">
<h2>{{.N}}. {{.Words}}</h2>
<p>{{.Agent}}{{with .Where}} · {{.}}{{end}} · {{.Time}} · {{.Ms}} · <span class="{{if .OK}}good{{else}}bad{{end}}">{{.Result}}</span></p>
{{with .Summary}}<p>{{.}}</p>{{end}}
{{with .Error}}<p class="bad">{{.}}</p>{{end}}
{{with .Missing}}<p class="bad">{{.}}</p>{{end}}
{{if .Shots}}<div class="shots">{{range .Shots}}
<figure><figcaption>{{.Label}}</figcaption><div class="shot"><img src="{{.Src}}" width="{{.W}}" height="{{.H}}" alt="{{.Label}} the step">{{with .Box}}<div class="box" style="{{.}}"></div>{{end}}</div></figure>{{end}}
</div>{{end}}
{{with .Diff}}<h3>snapshot diff</h3><pre>{{.}}</pre>{{end}}
{{with .Console}}<h3>console errors</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Failed}}<h3>failed requests</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
</section>{{end}}
</main>
<script>
(function(){
  var links=[].slice.call(document.querySelectorAll('nav a[data-step]'));
  var steps=[].slice.call(document.querySelectorAll('section.step'));
  var cur=0;
  function show(i,focus){
    if(!steps.length)return;
    cur=Math.max(0,Math.min(steps.length-1,i));
    steps.forEach(function(s,j){s.classList.toggle('on',j===cur)});
    links.forEach(function(a,j){a.classList.toggle('on',j===cur)});
    if(focus)links[cur].focus();
  }
  links.forEach(function(a,j){a.addEventListener('click',function(e){e.preventDefault();show(j,true)})});
  document.addEventListener('keydown',function(e){
    if(e.key==='ArrowRight'||e.key==='ArrowDown'||e.key==='j'){show(cur+1,true);e.preventDefault()}
    else if(e.key==='ArrowLeft'||e.key==='ArrowUp'||e.key==='k'){show(cur-1,true);e.preventDefault()}
  });
  show(0,false);
})();
</script>
</body></html>
`
