package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The documentation test: every egohost command line the docs show
// parses against the real command tree (verbs, flags, argument counts;
// nothing runs), every relative link and #anchor resolves, and the docs
// agree on one `mcp --http` address.

// docRoot is the repository, from this package's folder.
const docRoot = "../../.."

// docFiles are the documents checked, relative to docRoot.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "PROTOCOL.md", "extension/README.md", "manual-tests/README.md"}
	more, err := filepath.Glob(filepath.Join(docRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, _ := filepath.Rel(docRoot, f)
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

func TestDocs(t *testing.T) {
	ports := map[string][]string{} // --http address → where
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(filepath.Join(docRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		md := string(b)
		cmds := docCommands(file, md)
		for _, dc := range cmds {
			if err := checkCommand(dc.args, dc.code); err != nil {
				t.Errorf("%s:%d: %s: %v", dc.file, dc.line, dc.text, err)
			}
			if a := httpAddr(dc.args); a != "" {
				ports[a] = append(ports[a], fmt.Sprintf("%s:%d", dc.file, dc.line))
			}
		}
		if file == "README.md" && len(cmds) < 50 {
			t.Errorf("README.md: found %d egohost command lines, want the many it has: is the extraction broken?", len(cmds))
		}
		links := docLinks(file, md)
		for _, l := range links {
			if err := checkLink(docRoot, file, l.target); err != nil {
				t.Errorf("%s:%d: link %s: %v", file, l.line, l.target, err)
			}
		}
		for _, m := range docMentions(md) {
			if err := checkLink(docRoot, "", m); err != nil {
				t.Errorf("%s: names %s: %v", file, m, err)
			}
		}
		t.Logf("%s: %d egohost command lines, %d relative links", file, len(cmds), len(links))
	}
	// The commands' own examples (--help) parse too, and say the same port;
	// the documents their help names exist (egohost run --help: docs/scripts.md).
	walk(newDocRoot(), func(cmd *cobra.Command) {
		help := cmd.Short + "\n" + cmd.Long + "\n" + cmd.Example + "\n" + cmd.Flags().FlagUsages()
		for _, m := range docMentions(help) {
			if err := checkLink(docRoot, "", m); err != nil {
				t.Errorf("%s --help names %s: %v", cmd.CommandPath(), m, err)
			}
		}
		for i, line := range strings.Split(cmd.Example, "\n") {
			// "  egohost launch    start a browser…": the command, then what it does.
			line, _, _ = strings.Cut(strings.TrimSpace(line), "  ")
			for _, args := range egohostCommands(line) {
				if err := checkCommand(args, true); err != nil {
					t.Errorf("%s --help, example %q: %v", cmd.CommandPath(), strings.TrimSpace(line), err)
				}
				if a := httpAddr(args); a != "" {
					ports[a] = append(ports[a], fmt.Sprintf("%s --help example %d", cmd.CommandPath(), i+1))
				}
			}
		}
	})
	if len(ports) > 1 {
		t.Errorf("the docs use more than one `egohost mcp --http` address, want one: %v", ports)
	}
}

// TestDocsChecker: the checker fails on what does not exist.
func TestDocsChecker(t *testing.T) {
	commands := []struct {
		line string
		want string // "" = parses; else part of the error
	}{
		{"egohost click @3 --timeout 1500", ""},
		{"egohost --agent alice space new --task x shop.example", ""},
		{"egohost agents approve claude --yes", ""},
		{"egohost cdp Page.reload --tab ID", ""}, // a placeholder value
		{"egohost help click", ""},
		{"egohost completion bash", ""},
		{"egohost --version", ""},
		{"egohost frobnicate @3", "unknown command"},
		{"egohost click @3 --timout 1500", "unknown flag"},
		{"egohost snapshot -q", "unknown shorthand flag"},
		{"egohost agents frobnicate claude", "unknown command"},
		{"egohost click", "usage"},
		{"egohost click @3 --tab", "needs an argument"},
		{"egohost click @3 --timeout soon", "invalid argument"},
		{"egohost audit [--agent NAME] [--since 1h] [--last N] [--follow]", ""}, // usage notation
		{"egohost audit [--agent NAME] [--until 1h]", "unknown flag"},
	}
	for _, tt := range commands {
		all := egohostCommands(tt.line)
		if len(all) != 1 {
			t.Errorf("%q: got %d command lines, want 1", tt.line, len(all))
			continue
		}
		err := checkCommand(all[0], true)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: got %v, want it to parse", tt.line, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: got %v, want an error with %q", tt.line, err, tt.want)
		}
	}

	md := strings.Join([]string{
		"# Title",
		"Run `egohost tabs --all-of-them` or `EGOHOST_X=1 egohost open example.com`; not `egohost: an error`.",
		"A [good link](docs/b.md#the-part), [a dead one](docs/nope.md), [a dead anchor](#nowhere),",
		"[a live one](#title) and [the web](https://example.com/x.md).",
		"```sh",
		"$ egohost snapshot -i   # a comment",
		"egohost agents list | egohost agents revoke claude",
		"echo 'await page.title()' | egohost run --out \\",
		"  shots/",
		"egohost run <<'EOF' 2>/dev/null",
		"scripts/setup.sh && go run ./cmd/egohost-host demo --headed  # a clone's",
		`egohost click 'role=button[name="Go"]' --tab 3 > out.txt`,
		"```",
		"```text",
		"egohost demo: not a command line",
		"egohost 0.1.0",
		"```",
		"`egohost",
		"launch --headless` spans two lines; `egohost audit [--agent NAME] [--follow]` is usage.",
	}, "\n")
	var got []string
	for _, dc := range docCommands("x.md", md) {
		got = append(got, fmt.Sprintf("%d %q", dc.line, dc.args))
	}
	want := []string{
		`2 ["tabs" "--all-of-them"]`, `2 ["open" "example.com"]`,
		`6 ["snapshot" "-i"]`, `7 ["agents" "list"]`, `7 ["agents" "revoke" "claude"]`, `8 ["run" "--out" "shots/"]`,
		`10 ["run"]`, `11 ["demo" "--headed"]`, `12 ["click" "role=button[name=\"Go\"]" "--tab" "3"]`,
		`18 ["launch" "--headless"]`, `19 ["audit" "--agent" "NAME" "--follow"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("command lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := checkCommand([]string{"tabs", "--all-of-them"}, false); err == nil {
		t.Errorf("tabs --all-of-them: parsed, want an unknown flag")
	}
	// Inline code may name a verb without its arguments; a code block's line is a command line.
	if err := checkCommand([]string{"click"}, false); err != nil {
		t.Errorf("`egohost click` in prose: got %v, want it to pass", err)
	}

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "b.md"), []byte("# B\n## The part\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x.md"), []byte(md), 0o644)
	links := map[string]string{}
	for _, l := range docLinks("x.md", md) {
		msg := "ok"
		if err := checkLink(dir, "x.md", l.target); err != nil {
			msg = err.Error()
		}
		links[l.target] = msg
	}
	wantLinks := map[string]string{
		"docs/b.md#the-part": "ok",
		"docs/nope.md":       "no such file",
		"#nowhere":           "no heading",
		"#title":             "ok",
	}
	for target, want := range wantLinks {
		if !strings.Contains(links[target], want) {
			t.Errorf("link %s: got %q, want %q", target, links[target], want)
		}
	}
	if len(links) != len(wantLinks) {
		t.Errorf("links: got %v, want only the relative ones of %v", links, wantLinks)
	}
	// A document named in prose or in --help must exist too.
	if got := docMentions("printing what it logs (docs/scripts.md); see PROTOCOL.md §3.5 and docs/nope.md."); strings.Join(got, " ") != "docs/scripts.md PROTOCOL.md docs/nope.md" {
		t.Errorf("mentions: got %v", got)
	}
	if err := checkLink(docRoot, "", "docs/nope.md"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("docs/nope.md: got %v, want no such file", err)
	}
}

func TestAnchors(t *testing.T) {
	got := anchors("# egohost\n## Spaces: several agents, one browser\n## Agents (MCP)\n### 3.5 Scripts: `script.run`\n## Agents (MCP)\n```\n# not a heading\n```\n")
	var list []string
	for a := range got {
		list = append(list, a)
	}
	sort.Strings(list)
	want := []string{"35-scripts-scriptrun", "agents-mcp", "agents-mcp-1", "egohost", "spaces-several-agents-one-browser"}
	if strings.Join(list, " ") != strings.Join(want, " ") {
		t.Errorf("anchors: got %v, want %v", list, want)
	}
}

// docCommand is one egohost command line in a document.
type docCommand struct {
	file string
	line int
	text string   // as written
	args []string // after "egohost"
	code bool     // in a code block (a whole command line), not inline code (which may name a verb alone)
}

var fence = regexp.MustCompile("^\\s*(```+|~~~+)")

// fenceLine reads line l of a Markdown document whose open code block is
// inFence ("" outside one): the code block after l, and whether l is a
// fence (one that opens or closes a block, or one inside a block).
func fenceLine(inFence, l string) (string, bool) {
	m := fence.FindStringSubmatch(l)
	switch {
	case m == nil:
		return inFence, false
	case inFence == "":
		return m[1], true
	case strings.HasPrefix(strings.TrimSpace(l), inFence):
		return "", true
	}
	return inFence, true
}

// docCommands finds the egohost command lines of a Markdown document: in
// code blocks, every line (with a "$ " prompt or without, continued by a
// trailing \); elsewhere, inline code. Output such as "egohost demo: …"
// is no command line: the word after egohost must be a verb or a flag.
func docCommands(file, md string) []docCommand {
	var out []docCommand
	lines := strings.Split(md, "\n")
	inFence := ""
	var prose []string // the lines outside code blocks; code lines blanked
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		var isFence bool
		if inFence, isFence = fenceLine(inFence, l); isFence {
			prose = append(prose, "")
			continue
		}
		if inFence == "" {
			prose = append(prose, l)
			continue
		}
		prose = append(prose, "")
		start := i
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			prose = append(prose, "")
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
		}
		text := strings.TrimPrefix(strings.TrimSpace(l), "$ ")
		for _, args := range egohostCommands(text) {
			out = append(out, docCommand{file: file, line: start + 1, text: text, args: args, code: true})
		}
	}
	// Inline code may wrap: newlines become spaces, offsets stay.
	text := strings.Join(prose, "\n")
	flat := strings.ReplaceAll(text, "\n", " ")
	for _, m := range inlineCode.FindAllStringSubmatchIndex(flat, -1) {
		code := flat[m[2]:m[3]]
		line := strings.Count(text[:m[0]], "\n") + 1
		for _, args := range egohostCommands(code) {
			out = append(out, docCommand{file: file, line: line, text: strings.Join(strings.Fields(code), " "), args: args})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

var (
	inlineCode = regexp.MustCompile("`([^`]+)`")
	verbWord   = regexp.MustCompile(`^(-[-a-z]+|[a-z][a-z-]*)$`)
	envAssign  = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
)

// egohostCommands splits a shell line into its commands (at |, &&, ||,
// ;) and returns the arguments of those that run egohost (after any
// VAR=value prefixes), up to a redirection or a comment. Usage notation
// is read as what it stands for: [--follow] is --follow.
func egohostCommands(line string) [][]string {
	var out [][]string
	for _, words := range shellSplit(line) {
		for len(words) > 0 && envAssign.MatchString(words[0]) {
			words = words[1:]
		}
		if len(words) >= 3 && words[0] == "go" && words[1] == "run" && (words[2] == "./cmd/egohost" || words[2] == "./cmd/egohost-host") {
			words = words[2:] // a clone's `go run ./cmd/egohost-host demo`
		}
		if len(words) == 0 || (words[0] != "egohost" && words[0] != "egohost-host" && words[0] != "./cmd/egohost" && words[0] != "./cmd/egohost-host") {
			continue
		}
		var args []string
		for _, a := range words[1:] {
			a = strings.TrimPrefix(a, "[")
			if strings.HasSuffix(a, "]") && !strings.Contains(a, "[") {
				a = strings.TrimSuffix(a, "]")
			}
			if a != "" {
				args = append(args, a)
			}
		}
		if len(args) > 0 && !verbWord.MatchString(args[0]) {
			continue // output ("egohost demo: …", "egohost 0.1.0") or relay mode
		}
		out = append(out, args)
	}
	return out
}

// shellSplit splits a line into words as a POSIX shell would (quotes,
// backslashes), and into commands at unquoted |, &, ; operators; a # that
// starts a word and a redirection (<, >) end the command's words.
func shellSplit(line string) [][]string {
	var cmds [][]string
	var words []string
	var w strings.Builder
	inWord, redirect, done := false, false, false
	endWord := func() {
		if inWord && !done {
			if redirect {
				done = true // what follows a redirection is not an argument
			} else {
				words = append(words, w.String())
			}
		}
		w.Reset()
		inWord, redirect = false, false
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words, done = nil, false
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		if !inWord && (ch == '<' || ch == '>' || strings.HasPrefix(line[i:], "2>")) {
			redirect = true
		}
		switch {
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
			inWord = true
		case ch == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case ch == ' ' || ch == '\t':
			endWord()
		case ch == '|' || ch == ';' || ch == '&':
			endCmd()
		case ch == '#' && !inWord:
			endCmd()
			return cmds
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// newDocRoot is the real command tree, with what cobra adds when it runs.
func newDocRoot() *cobra.Command {
	c := &cli{stdin: strings.NewReader(""), stdout: new(strings.Builder), stderr: new(strings.Builder)}
	root := c.newRoot()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return root
}

func walk(cmd *cobra.Command, f func(*cobra.Command)) {
	f(cmd)
	for _, sub := range cmd.Commands() {
		walk(sub, f)
	}
}

// placeholder is a value the docs write for the reader to fill in: ID,
// NAME, <token>, …
var placeholder = regexp.MustCompile(`^([A-Z][A-Z0-9_]*|.*<[^>]*>.*|.*….*)$`)

// checkCommand parses args (an egohost command line, without "egohost")
// against a fresh command tree: the verb exists, every flag exists and
// takes the value given (a placeholder stands for any), and, for a whole
// command line (counted), the verb takes that many arguments. Nothing
// runs.
func checkCommand(args []string, counted bool) error {
	root := newDocRoot()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	if cmd == root {
		cmd.InitDefaultVersionFlag()
	}
	if err := cmd.ParseFlags(rest); err != nil {
		var iv *pflag.InvalidValueError
		if !errors.As(err, &iv) || !placeholder.MatchString(iv.GetValue()) {
			return err
		}
		// Parse again without the placeholder's value.
		if err := cmd.ParseFlags(withoutValue(rest, iv.GetValue())); err != nil {
			return err
		}
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil
	}
	positional := cmd.Flags().Args()
	if len(positional) == 0 && !counted {
		return nil
	}
	if err := cmd.ValidateArgs(positional); err != nil {
		if cmd.HasSubCommands() && len(positional) > 0 {
			return fmt.Errorf("unknown command %q for %q (%w)", positional[0], cmd.CommandPath(), err)
		}
		if counted {
			return err
		}
	}
	return nil
}

// withoutValue drops the flag whose value is v (and v) from args.
func withoutValue(args []string, v string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case strings.HasPrefix(args[i], "-") && strings.HasSuffix(args[i], "="+v):
			continue
		case strings.HasPrefix(args[i], "-") && i+1 < len(args) && args[i+1] == v:
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// httpAddr is the address of an `egohost mcp --http ADDR` command line.
func httpAddr(args []string) string {
	if len(args) == 0 || args[0] != "mcp" {
		return ""
	}
	for i, a := range args {
		if a == "--http" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--http="); ok {
			return v
		}
	}
	return ""
}

// mentioned are the repository's documents as prose and help name them.
var mentioned = regexp.MustCompile(`\b(?:docs/[\w.-]+\.md|PROTOCOL\.md|README\.md)\b`)

// docMentions lists the documents a text names by their path from the
// repository's root ("see docs/locators.md").
func docMentions(text string) []string {
	return mentioned.FindAllString(text, -1)
}

// docLink is a link of a document to a relative target.
type docLink struct {
	line   int
	target string
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	htmlLink = regexp.MustCompile(`\b(?:src|href)="([^"]+)"`)
	scheme   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// proseLines are md's lines with those of code blocks (and their fences)
// blanked, so indices stay line numbers.
func proseLines(md string) []string {
	lines := strings.Split(md, "\n")
	inFence := ""
	for i, l := range lines {
		var isFence bool
		if inFence, isFence = fenceLine(inFence, l); isFence || inFence != "" {
			lines[i] = ""
		}
	}
	return lines
}

// docLinks lists the relative links and images of a Markdown document,
// outside code.
func docLinks(file, md string) []docLink {
	var out []docLink
	for i, l := range proseLines(md) {
		l = inlineCode.ReplaceAllString(l, "``")
		for _, re := range []*regexp.Regexp{mdLink, htmlLink} {
			for _, m := range re.FindAllStringSubmatch(l, -1) {
				if !scheme.MatchString(m[1]) {
					out = append(out, docLink{line: i + 1, target: m[1]})
				}
			}
		}
	}
	return out
}

// checkLink resolves target, a link in file (both relative to root): the
// file or folder exists and, for a #anchor into Markdown, so does the
// heading.
func checkLink(root, file, target string) error {
	path, anchor, _ := strings.Cut(target, "#")
	full := filepath.Join(root, file)
	if path != "" {
		full = filepath.Join(root, filepath.Dir(file), filepath.FromSlash(path))
		if _, err := os.Stat(full); err != nil {
			return fmt.Errorf("no such file: %s", filepath.ToSlash(filepath.Join(filepath.Dir(file), path)))
		}
	}
	if anchor == "" || !strings.HasSuffix(full, ".md") {
		return nil
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return err
	}
	if !anchors(string(b))[anchor] {
		return fmt.Errorf("no heading has the anchor #%s", anchor)
	}
	return nil
}

var (
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	notInSlug  = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	explicitID = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// anchors are the #anchors of a Markdown document's headings, as GitHub
// makes them: lower case, punctuation dropped, spaces as -, and -1, -2…
// after a repeated one; and <a name/id="…"> anchors.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	for _, l := range proseLines(md) {
		for _, m := range explicitID.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		slug := strings.ReplaceAll(notInSlug.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		a := slug
		for n := 1; out[a]; n++ {
			a = fmt.Sprintf("%s-%d", slug, n)
		}
		out[a] = true
	}
	return out
}

// TestReadmeFirstCommands: the README's first lines give the two commands
// for a fresh machine (the demo, every test; CI runs the second), and
// the scripts they run are there and executable.
func TestReadmeFirstCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(docRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	first := strings.Join(lines[:min(12, len(lines))], "\n")
	for _, want := range []string{"scripts/setup.sh && go run ./cmd/egohost-host demo", "scripts/setup.sh && scripts/test.sh"} {
		if !strings.Contains(first, "\n"+want+" ") {
			t.Errorf("README.md's first lines do not start a line with %q", want)
		}
	}
	for _, script := range []string{"scripts/setup.sh", "scripts/test.sh", ".ci/run"} {
		fi, err := os.Stat(filepath.Join(docRoot, script))
		if err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s: want an executable file (%v)", script, err)
		}
	}
}
