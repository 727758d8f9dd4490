package resolver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/chromedp/cdproto/cdp"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/refmap"
)

// plan is a parsed locator ready to run: its steps without the trailing
// nth / last, which pick one element from all the frames' matches.
type plan struct {
	p      parsed
	steps  []jsStep
	nth    int  // the pick: -1 last
	picked bool // false: strict (exactly one)
	never  bool // stacked trailing picks that can match nothing (nth=1 >> nth=1)
	// verify is the role of the last query step when only filters follow
	// it: its candidates are checked against Chrome's accessibility tree.
	verify *locator.Role
}

func newPlan(p parsed) plan {
	steps := p.loc.Steps
	end := len(steps)
	for end > 0 && steps[end-1].Op == locator.OpNth {
		end--
	}
	pl := plan{p: p, steps: toJSSteps(steps[:end])}
	if end < len(steps) {
		pl.nth, pl.picked = steps[end].Nth, true
		for _, s := range steps[end+1:] {
			if s.Nth != 0 && s.Nth != -1 {
				pl.never = true
			}
		}
	}
	for i := end - 1; i >= 0; i-- {
		s := steps[i]
		if s.Op == locator.OpNth {
			break // a pick between the role and the end picks among unchecked candidates
		}
		if s.Op == locator.OpQuery {
			if s.Kind == locator.KindRole {
				r := s.Role
				pl.verify = &r
			}
			break
		}
	}
	return pl
}

// pageNames says which names the page gives the matches (jsSpec.Names):
// the checked step asks for a name ("name"), rows by name ("row": their
// names from content), else none.
func (pl plan) pageNames() string {
	switch {
	case pl.verify == nil || pl.verify.Name == nil:
		return ""
	case canonRole(pl.verify.Role) == "row":
		return "row"
	}
	return "name"
}

// pageRoles says whether the page gives the matches' roles
// (jsSpec.Roles): for a checked role step whose role Chrome drops outside
// its required context (contextRoles).
func (pl plan) pageRoles() bool {
	return pl.verify != nil && contextRoles[canonRole(pl.verify.Role)]
}

func (pl plan) jsPick() *jsPick {
	if !pl.picked {
		return &jsPick{Strict: true}
	}
	n := pl.nth
	return &jsPick{Nth: &n}
}

// choose applies the plan's pick to total matches: the index, or an error.
func (pl plan) choose(total int) (int, error) {
	switch {
	case pl.never:
		return 0, pl.notFound(0, "the stacked nth= steps pick nothing")
	case !pl.picked && total == 0:
		return 0, pl.notFound(0, "")
	case !pl.picked && total > 1:
		return 0, pl.ambiguous(total, false, candidates{}, "")
	case !pl.picked:
		return 0, nil
	case pl.nth == -1 && total > 0:
		return total - 1, nil
	case pl.nth >= 0 && pl.nth < total:
		return pl.nth, nil
	}
	if total == 0 {
		return 0, pl.notFound(0, "")
	}
	return 0, pl.notFound(total, fmt.Sprintf("nth=%d is out of range", pl.nth))
}

func (pl plan) notFound(n int, why string) error {
	msg := fmt.Sprintf("%s matched %d elements", pl.p.loc, n)
	if why != "" {
		msg += ": " + why
	}
	if n == 0 && why == "" {
		if words, ok := bareWords(pl.p); ok {
			msg += fmt.Sprintf("; a locator without an engine is CSS: for the text, try text=%s", strconv.Quote(words))
		} else if name, ok := labelWords(pl.p); ok {
			msg += fmt.Sprintf("; label= reads a label's text only, not an image's alt or a title in it: "+
				"a control a snapshot names %s is found by role=ROLE[name=%s]", strconv.Quote(name), strconv.Quote(name))
		}
	}
	return &Error{Kind: Transient, Op: "resolve", Target: pl.p.input, Count: n, Err: causef(ErrNotFound, "%s", msg)}
}

// ambiguous is the error of a strict locator that matched n elements (at
// least n: not all were checked); cands names the first of them
// (r.candidates), empty when not known; exact is the locator that takes the
// one match named exactly as asked (exactName), "" when there is none.
func (pl plan) ambiguous(n int, atLeast bool, cands candidates, exact string) error {
	count := fmt.Sprint(n)
	if atLeast {
		count = "at least " + count
	}
	list := ""
	if cands.list != "" {
		list = ": " + cands.list
	}
	next := "add nth=… or make it more specific"
	if cands.refs {
		next = "use one of their refs, " + next
	}
	if exact != "" {
		exact = fmt.Sprintf(" (%s takes the one named exactly so)", exact)
	}
	return &Error{Kind: Permanent, Op: "resolve", Target: pl.p.input, Count: n,
		Err: causef(ErrAmbiguous, "strict mode: %s matched %s elements%s; %s%s", pl.p.loc, count, list, next, exact)}
}

// exactName is, for a locator that is one role step with a name matched
// as a substring (role=button[name="Save"]), the same step with the name
// matched exactly (role=button[name="Save"s]) when exactly one of the
// checked matches fs[idx] has that name: Django's Save beside "Save and
// add another" and "Save and continue editing". "" otherwise.
func (pl plan) exactName(fs []found, idx []int) string {
	steps := pl.p.loc.Steps
	if len(steps) != 1 || steps[0].Op != locator.OpQuery || steps[0].Kind != locator.KindRole {
		return ""
	}
	r := steps[0].Role
	if r.Name == nil || r.Name.Exact || r.Name.Regex {
		return ""
	}
	exact := locator.Text{Value: r.Name.Value, Exact: true}
	n := 0
	for _, i := range idx {
		if fs[i].checked && fs[i].ok && nameMatches(fs[i].name, exact) {
			n++
		}
	}
	if n != 1 {
		return ""
	}
	r.Name = &exact
	return locator.Locator{Steps: []locator.Step{{Op: locator.OpQuery, Kind: locator.KindRole, Role: r}}}.String()
}

// maxCandidates is how many of an ambiguous locator's matches its error
// names, as Playwright's strict-mode error lists them: enough to tell the
// one meant apart by its role and name (role=R[name="N"]).
const maxCandidates = 3

// namedRefs is what a tab's snapshot refs tell an ambiguous locator's
// error: the refs its latest snapshot gave the elements of the main
// document with a role and name (*snapshot.Tab).
type namedRefs interface {
	Named(ctx context.Context, mainFrame cdp.FrameID, role, name string) ([]refmap.Entry, error)
}

// candidates is how an ambiguous locator's error names its first matches:
// list, `textbox "Password" @3, button "Show password", 2 more`; refs,
// whether one of them has a ref to use.
type candidates struct {
	list string
	refs bool
}

// candidates names the checked matches fs[idx] (at most maxCandidates;
// those hidden from the accessibility tree have no role to name) by role
// and name, in document order, each with the ref the tab's latest snapshot
// gave it (its main document's elements only: a frame, which an agent's
// reach may refuse, is not asked; within a second: the error's extra,
// never its cause), and says how many more of total there are (atLeast:
// some more, uncounted).
func (r *Resolver) candidates(ctx context.Context, docs []doc, fs []found, idx []int, total int, atLeast bool) candidates {
	nr, _ := r.refs.(namedRefs)
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	type roleName struct{ role, name string } // of the main document
	named := make(map[roleName][]refmap.Entry)
	var out candidates
	var parts []string
	hidden := 0
	for _, i := range idx {
		if len(parts) == maxCandidates {
			break
		}
		f := fs[i]
		if f.checked && f.hidden {
			hidden++ // no role or name to tell: said as a count
			continue
		}
		if !f.checked || f.role == "" || f.role == "none" {
			continue
		}
		s := f.role
		if f.name != "" {
			s += " " + strconv.Quote(f.name)
		}
		if d := docs[f.d]; nr != nil && d.sid == "" && d.root && d.frameID != "" {
			k := roleName{f.role, f.name}
			es, ok := named[k]
			if !ok {
				es, _ = nr.Named(ctx, d.frameID, f.role, f.name)
				named[k] = es
			}
			for _, e := range es {
				if e.BackendNodeID == f.id {
					s += " @" + e.Ref
					out.refs = true
				}
			}
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return candidates{}
	}
	more := total - len(parts) - hidden
	if hidden > 0 {
		// Matches an agent cannot see in a snapshot (Roundcube's hidden
		// Reply-To and Followup-To beside its To, for label=To) are
		// matches still, as Playwright counts them.
		parts = append(parts, fmt.Sprintf("%d hidden", hidden))
	}
	switch {
	case atLeast:
		parts = append(parts, "more")
	case more > 0:
		parts = append(parts, fmt.Sprintf("%d more", more))
	}
	out.list = strings.Join(parts, ", ")
	return out
}

// scriptError turns the script's own error report into a permanent error.
func (pl plan) scriptError(res jsResult) error {
	if res.Error == "" {
		return nil
	}
	if res.Syntax {
		return &Error{Kind: Permanent, Op: "resolve", Target: pl.p.input,
			Err: &locator.SyntaxError{Input: pl.p.input, Offset: -1, Msg: res.Error}}
	}
	return &Error{Kind: Permanent, Op: "resolve", Target: pl.p.input, Err: errors.New(res.Error)}
}

// labelWords reports whether p is one label= step with a plain text (not
// a regular expression), and that text: a control named by an icon's alt
// in its label (Django's search box: <label><img alt="Search"></label>)
// shows in a snapshot as textbox "Search", which label=Search does not
// find (Playwright's getByLabel does not either).
func labelWords(p parsed) (string, bool) {
	steps := p.loc.Steps
	if len(steps) != 1 || steps[0].Op != locator.OpQuery || steps[0].Kind != locator.KindLabel ||
		steps[0].Text.Regex || len(steps[0].Text.Value) > maxHintWords {
		return "", false
	}
	return steps[0].Text.Value, true
}

// maxHintWords bounds the locator a not_found hint quotes again: a longer
// one is not a label someone copied, and its error stays its own size.
const maxHintWords = 80

// bareWords reports whether p is a bare CSS selector that reads as words
// rather than as element names: no engine named, letters, digits and
// spaces only, with a capital letter (CSS's element names are written in
// lower case: "button", "ul li"). "Create this page" is such a locator:
// CSS reads it as elements named create, this and page, which no page
// has; the text it meant is text="Create this page".
func bareWords(p parsed) (string, bool) {
	steps := p.loc.Steps
	if len(steps) != 1 || steps[0].Op != locator.OpQuery || steps[0].Kind != locator.KindCSS {
		return "", false
	}
	words := strings.TrimSpace(p.input)
	if words != steps[0].Selector || words == "" || len(words) > maxHintWords {
		return "", false // an engine was named (css=…), or the selector is not the input as it came
	}
	for _, r := range words {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' {
			return "", false
		}
	}
	if strings.ToLower(words) == words {
		return "", false
	}
	return words, true
}
